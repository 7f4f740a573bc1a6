"""The per-client limit on reports from the public (PUBLIC_REPORT_RATE_LIMIT), behind a trusted proxy as
the deployment runs it: each client is counted on the address the proxy names, so one client over the
limit is refused (429, Retry-After, the error shape) while the next one behind the same proxy is not;
what counts is a report received or a body with photos, never a form refused for its fields."""
from __future__ import annotations

import io

import pytest

from inspect_api.config import TestConfig

from .test_reports_support import NOTHING, REPORTS, assert_error, body, form, phone_photo, stored, town_clock  # noqa: F401

PROXY = "10.0.0.1"


@pytest.fixture
def config(_schema, tmp_path):
    """One trusted proxy in front of the app, and the default limit."""
    return TestConfig(SQLALCHEMY_DATABASE_URI=_schema, STORAGE_URL=(tmp_path / "blobs").as_uri(),
                      UPLOAD_TEMP_DIR=str(tmp_path / "upload-tmp"), TRUSTED_PROXIES=1,
                      PUBLIC_REPORT_RATE_LIMIT="5 per hour;20 per day")


def _send(client, forwarded_for: str, data: dict | None = None):
    return client.post(REPORTS, json=data or body(), headers={"X-Forwarded-For": forwarded_for},
                       environ_base={"REMOTE_ADDR": PROXY})


def _send_form(client, forwarded_for: str, fields: dict, photos=()):
    data = {**fields, **({"photos": [(io.BytesIO(p), "IMG.JPG") for p in photos]} if photos else {})}
    return client.post(REPORTS, data=data, content_type="multipart/form-data",
                       headers={"X-Forwarded-For": forwarded_for}, environ_base={"REMOTE_ADDR": PROXY})


def test_behind_a_proxy_one_client_is_limited_and_the_next_is_not(app, client, town_clock):
    for _ in range(5):
        assert _send(client, "203.0.113.5").status_code == 201
    refused = _send(client, "203.0.113.5")
    payload = assert_error(refused, 429, "too_many_requests")
    assert payload["message"] == "Too many attempts; wait a little and try again."
    assert 0 < int(refused.headers["Retry-After"]) <= 3600
    assert stored(app)["reports"] == 5  # the refused one was never read
    # another resident behind the same proxy still reports, by JSON or by the form
    assert _send(client, "198.51.100.9").status_code == 201
    assert _send_form(client, "198.51.100.9", form(), [phone_photo()]).status_code == 201
    # the proxy's own entry is the client: what the client wrote before it is not trusted
    assert_error(_send(client, "198.51.100.77, 203.0.113.5"), 429, "too_many_requests")


def test_the_form_and_the_json_share_one_count(app, client, town_clock):
    for _ in range(3):
        assert _send_form(client, "203.0.113.6", form()).status_code == 201
    for _ in range(2):
        assert _send(client, "203.0.113.6").status_code == 201
    assert_error(_send_form(client, "203.0.113.6", form()), 429, "too_many_requests")


def test_a_form_refused_for_its_fields_does_not_count_but_photos_do(app, client, town_clock):
    assert _send(client, "203.0.113.7").status_code == 201  # one counted: the next requests start after it
    for _ in range(8):  # a resident correcting the form is never locked out by their own mistakes
        assert_error(_send_form(client, "203.0.113.7", form(description="")), 422, "validation_error")
        assert_error(_send(client, "203.0.113.7", body(location=None)), 422, "validation_error")
    assert stored(app)["reports"] == 1
    for _ in range(4):  # a body that carried photos cost the Town its bandwidth and a decoder: it counts
        r = _send_form(client, "203.0.113.7", form(), [b"not an image"])
        assert_error(r, 422, "image_invalid")
    assert_error(_send(client, "203.0.113.7"), 429, "too_many_requests")
    assert stored(app)["reports"] == 1 and stored(app)["photos"] == 0
