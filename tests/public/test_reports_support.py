"""What the report tests share (no tests here): the configuration with a spool folder of the test's own,
the Town's clock, the bodies a resident sends, photos as phones write them, and counts of what is stored.

Import the fixtures into a test module to use them (`from .test_reports_support import config, ...`)."""
from __future__ import annotations

import io
import itertools
from datetime import date, time

import pytest
import sqlalchemy as sa

from inspect_api.audit import AuditEntry
from inspect_api.config import TestConfig
from inspect_api.extensions import db
from inspect_api.notifications.models import Notification
from inspect_api.public.models import PublicReport, PublicReportPhoto

from ..photos.conftest import blob_keys, temp_files
from ..photos.helpers import gps_block, jpeg, make_exif
from ..town_clock import TownClock

API = "/api/v1"
REPORTS = f"{API}/public/reports"
QUEUE = f"{API}/public-reports"
DAY0 = date(2026, 5, 4)  # a Monday; the Town's clock is 10:00 EDT (14:00Z) unless a test moves it
SITE = {"lat": 41.6376, "lon": -70.9036}  # the factory's permits stand here
_addresses = itertools.count(1)


@pytest.fixture
def config(_schema, tmp_path):
    """The suite's configuration with an upload spool of this test's own (so leftovers can be counted) and a
    report limit no test reaches by accident (the limit's own tests set theirs)."""
    return TestConfig(SQLALCHEMY_DATABASE_URI=_schema, STORAGE_URL=(tmp_path / "blobs").as_uri(),
                      UPLOAD_TEMP_DIR=str(tmp_path / "upload-tmp"), PUBLIC_REPORT_RATE_LIMIT="1000 per hour")


@pytest.fixture
def town_clock(monkeypatch):
    moment = TownClock(monkeypatch)
    moment.set(DAY0, time(10, 0))
    return moment


def body(**overrides) -> dict:
    data = {"description": "Brown water is running off the lot into the catch basin on Main Street.",
            "location": {"lat": 41.6379, "lon": -70.9032, "accuracy_m": 8.0},
            "observed_at": "2026-05-04T09:30:00-04:00"}
    data.update(overrides)
    return {key: value for key, value in data.items() if value is not ...}


def client_address() -> dict:
    """A client address of its own, so tests never share the per-client limit's counts."""
    n = next(_addresses)
    return {"REMOTE_ADDR": f"192.0.2.{n % 250 + 1}"}


def post_json(client, data: dict, headers: dict | None = None, **kwargs):
    kwargs.setdefault("environ_base", client_address())
    return client.post(REPORTS, json=data, headers=headers or {}, **kwargs)


def post_form(client, fields: dict, photos: list[tuple[bytes, str]] = (), headers: dict | None = None, **kwargs):
    """The HTML form's multipart/form-data body: text fields and `photos` files (bytes, file name)."""
    data = {key: value for key, value in fields.items()}
    if photos:
        data["photos"] = [(io.BytesIO(content), name) for content, name in photos]
    kwargs.setdefault("environ_base", client_address())
    return client.post(REPORTS, data=data, content_type="multipart/form-data", headers=headers or {}, **kwargs)


def form(**overrides) -> dict:
    fields = {"description": "Sediment washing into the brook behind the new houses.", "lat": "41.6379",
              "lon": "-70.9032", "accuracy_m": "12", "address": "", "observed_at": "2026-05-04T09:15",
              "name": "", "email": "", "phone": "", "website": ""}
    fields.update(overrides)
    return fields


def phone_photo(lat: float = 41.6381, lon: float = -70.9030, taken: str = "2026:05:04 09:14:00",
                size=(96, 72)) -> bytes:
    """A JPEG as a phone writes one: the time it was taken and where, in EXIF."""
    return jpeg(size, exif=make_exif(gps=gps_block(lat, lon), taken=taken, offset="-04:00", make="Apple",
                                     model="iPhone 13"))


def stored(app) -> dict:
    """What a report left behind: rows, blobs, spooled files, audit rows and messages."""
    db.session.expire_all()
    count = lambda model: db.session.scalar(sa.select(sa.func.count()).select_from(model))  # noqa: E731
    return {"reports": count(PublicReport), "photos": count(PublicReportPhoto), "blobs": blob_keys(app),
            "spooled": temp_files(app), "audit": count(AuditEntry), "messages": count(Notification)}


NOTHING = {"reports": 0, "photos": 0, "blobs": [], "spooled": [], "audit": 0, "messages": 0}


def submit(client, data: dict | None = None, **kwargs) -> dict:
    """A report received (201), its receipt."""
    response = post_json(client, data or body(), **kwargs)
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def report_of(reference: str) -> PublicReport:
    db.session.expire_all()
    return db.session.scalar(sa.select(PublicReport).where(PublicReport.reference == reference))


def assert_error(response, code: int, error: str, *fields: str) -> dict:
    payload = response.get_json()
    assert response.status_code == code, (response.status_code, payload)
    assert set(payload) == {"code", "status", "message", "error", "errors"} and payload["code"] == code, payload
    assert payload["error"] == error, payload
    for field in fields:
        assert field in payload["errors"], (field, payload)
    return payload
