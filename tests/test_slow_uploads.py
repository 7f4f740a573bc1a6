"""A client that sends its body slowly holds nothing in the database while it does, and a body that
does not keep the configured pace is dropped with 408, leaving nothing stored.

These run the app over real HTTP (a threaded server) and send bodies from a raw socket a few bytes
at a time, the way a weak field connection or a deliberate slow sender does.
"""
from __future__ import annotations

import hashlib
import io
import json
import os
import select
import socket
import threading
import time
import uuid
from datetime import timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy import func, select as sql_select

from inspect_api.clock import today
from inspect_api.extensions import db
from inspect_api.permits.models import PermitDocument
from inspect_api.photos.models import Photo

from .closeout.conftest import Closeout, LiveServer, live_server  # noqa: F401  (live_server: the fixture, shared)
from .factories import PASSWORD
from .sync.conftest import create, entry_data

API = "/api/v1"
FAST = 1.0  # seconds: what "answers at once" means here, far below any lock or busy timeout


def noisy_png(side: int = 96) -> bytes:
    """A valid PNG of random pixels (about 28 kB at 96 x 96): big enough to trickle for seconds."""
    from PIL import Image
    buffer = io.BytesIO()
    Image.frombytes("RGB", (side, side), os.urandom(side * side * 3)).save(buffer, format="PNG")
    return buffer.getvalue()


@pytest.fixture
def spool(app, tmp_path) -> Path:
    folder = tmp_path / "spool"
    app.config["UPLOAD_TEMP_DIR"] = str(folder)
    return folder


class SlowUpload(threading.Thread):
    """Sends one request from a raw socket: the headers at once, then the body `chunk` bytes every
    `interval` seconds; stops sending as soon as the server answers (a 408 comes before the end)."""

    def __init__(self, server: LiveServer, method: str, path: str, headers: dict, body: bytes, *,
                 chunk: int, interval: float, stop_after: int | None = None) -> None:
        super().__init__(daemon=True)
        self.stop_after = stop_after  # bytes after which the sender goes silent, the connection open
        self.port = server.server.server_port
        self.method, self.path, self.headers, self.body = method, path, headers, body
        self.chunk, self.interval = chunk, interval
        self.sending = threading.Event()
        self.sent = 0
        self.status: int | None = None
        self.answer: dict = {}
        self.elapsed = 0.0

    def run(self) -> None:
        started = time.monotonic()
        with socket.create_connection(("127.0.0.1", self.port), timeout=60) as sock:
            lines = [f"{self.method} {self.path} HTTP/1.1", "Host: 127.0.0.1", f"Content-Length: {len(self.body)}",
                     "Connection: close", *(f"{k}: {v}" for k, v in self.headers.items())]
            sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
            for start in range(0, len(self.body), self.chunk):
                if select.select([sock], [], [], 0)[0]:
                    break  # the server has answered (or closed): stop sending
                try:
                    sock.sendall(self.body[start:start + self.chunk])
                except OSError:
                    break
                self.sent += len(self.body[start:start + self.chunk])
                self.sending.set()
                if self.stop_after is not None and self.sent >= self.stop_after:
                    break
                time.sleep(self.interval)
            raw = b""
            try:
                while data := sock.recv(65536):
                    raw += data
            except OSError:
                pass
        self.elapsed = time.monotonic() - started
        head, _, payload = raw.partition(b"\r\n\r\n")
        if head:
            self.status = int(head.split(b" ", 2)[1])
            self.answer = json.loads(payload or b"{}")


def timed(server: LiveServer, method: str, path: str, body: dict | None, headers: dict) -> tuple[int, dict, float]:
    started = time.monotonic()
    status, answer = server.request(method, path, body, headers)
    return status, answer, time.monotonic() - started


def sign_in(server: LiveServer, email: str, device_id: str | None = None) -> dict:
    status, answer = server.request("POST", f"{API}/auth/login",
                                    {"email": email, "password": PASSWORD,
                                     **({"device_id": device_id} if device_id else {})}, {})
    assert status == 200, answer
    return {"Authorization": f"Bearer {answer['access_token']}"}


def _postgres() -> bool:
    return (os.environ.get("TEST_DATABASE_URL") or "").startswith("postgresql")


NUMBERINGS = [
    pytest.param("sqlite", id="sqlite",
                 marks=pytest.mark.skipif(_postgres(), reason="SQLite case; TEST_DATABASE_URL points at PostgreSQL")),
    pytest.param("counter", id="postgresql-counter",
                 marks=pytest.mark.skipif(not _postgres(), reason="PostgreSQL only: set TEST_DATABASE_URL=postgresql://...")),
    pytest.param("watermark", id="postgresql-watermark",
                 marks=pytest.mark.skipif(not _postgres(), reason="PostgreSQL only: set TEST_DATABASE_URL=postgresql://...")),
]


@pytest.fixture
def numbering(request, app):
    from inspect_api.changes import set_numbering
    mode = request.param
    if mode != "watermark":
        yield mode
        return
    set_numbering(db.engine, "watermark")
    yield mode
    set_numbering(db.engine, "counter")
    # Back to the counter: set it above every cursor handed out first (changes.py says why).
    db.session.execute(sa.text("UPDATE sync_counter SET value = "
                               "pg_snapshot_xmin(pg_current_snapshot())::text::bigint * 1048576 WHERE id = 1"))
    db.session.commit()


@pytest.mark.parametrize("numbering", NUMBERINGS, indirect=True)
@pytest.mark.parametrize("route", ["permit_document", "final_report_document"])
def test_a_slow_document_upload_delays_no_other_write_and_no_pull(live_server, factory, numbering, route, spool):
    """While an applicant's document trickles in (a tenth of it every half second), a sign-in, a sync
    push, the pull that should carry that push and an edit of the very permit all answer at once:
    the body is received with no transaction open, so no write lock (SQLite), no row lock and no
    open transaction holding back the feed's watermark (PostgreSQL)."""
    applicant = factory.user("applicant")
    inspector = factory.user("inspector")
    factory.user("supervisor")
    draft = factory.permit(applicant=applicant)  # the applicant may add documents and edit it
    site = factory.permit(status="issued")
    factory.assign(site, inspector)
    done = factory.permit(applicant=applicant, status="work_complete", disturbed_area_sqft=25_000)
    done.work_completed_on = today() - timedelta(days=30)
    db.session.commit()
    draft_id, draft_version, site_id, done_id = draft.id, draft.version, site.id, done.id
    owner_email, inspector_email = applicant.email, inspector.email
    # This thread holds no transaction while the server works (on SQLite it would hold the write lock).
    db.session.rollback()

    device = f"tablet-{uuid.uuid4().hex[:8]}"
    tablet = {**sign_in(live_server, inspector_email, device), "X-Device-Id": device}
    owner = sign_in(live_server, owner_email)
    if route == "final_report_document":
        status, report = live_server.request("POST", f"{API}/final-reports", Closeout.report_body(done_id), owner)
        assert status == 201, report
        path = f"{API}/final-reports/{report['id']}/documents?kind=as_built_plan&filename=plan.png"
    else:
        path = f"{API}/permits/{draft_id}/document-files?kind=esc_plan&filename=plan.png"
    status, page = live_server.request("GET", f"{API}/sync/pull?limit=1000", None, tablet)
    assert status == 200, page
    while page["has_more"]:
        status, page = live_server.request("GET", f"{API}/sync/pull?limit=1000&cursor={page['cursor']}", None, tablet)
    cursor = page["cursor"]

    body = noisy_png()
    upload = SlowUpload(live_server, "POST", path, {**owner, "Content-Type": "image/png"}, body,
                        chunk=len(body) // 10 + 1, interval=0.5)  # about 5 s for the whole body
    upload.start()
    try:
        assert upload.sending.wait(10)
        time.sleep(0.6)  # the server is now well into reading the body

        started = time.monotonic()
        sign_in(live_server, inspector_email)
        assert time.monotonic() - started < FAST

        entry_id = str(uuid.uuid4())
        status, answer, took = timed(live_server, "POST", f"{API}/sync/push",
                                     {"device_id": device, "mutations": [create("entry_authorization",
                                                                                entry_data(site_id), entry_id)]}, tablet)
        assert status == 200 and answer["results"][0]["status"] == "applied" and took < FAST, (status, answer, took)

        status, page, took = timed(live_server, "GET", f"{API}/sync/pull?limit=1000&cursor={cursor}", None, tablet)
        assert status == 200 and took < FAST, (status, page, took)
        seen = {(c["entity"], c["id"]) for c in page["changes"]}
        assert ("entry_authorization", entry_id) in seen, "a change committed during the upload did not reach the pull"

        status, answer, took = timed(live_server, "PATCH", f"{API}/permits/{draft_id}",
                                     {"version": draft_version, "description": "Edited while a document arrives"}, owner)
        assert status == 200 and took < FAST, (status, answer, took)

        assert upload.is_alive() and upload.sent < len(body), "the upload ended before the other requests were made"
    finally:
        upload.join(30)  # never leave a request running into the next test's reset
    assert upload.status == 201, (upload.status, upload.answer)
    assert upload.answer["sha256"] == hashlib.sha256(body).hexdigest()


def _nothing_stored(app, spool: Path) -> None:
    db.session.rollback()
    assert db.session.scalar(sql_select(func.count()).select_from(PermitDocument)) == 0
    assert db.session.scalar(sql_select(func.count()).select_from(Photo)) == 0
    blobs = Path(app.config["STORAGE_URL"].removeprefix("file://"))
    assert not blobs.exists() or [p for p in blobs.rglob("*") if p.is_file()] == []
    assert not spool.exists() or list(spool.iterdir()) == []


def _photo(permit_id: str, body: bytes) -> tuple[str, dict]:
    return (f"{API}/photos/{uuid.uuid4()}?permit_id={permit_id}",
            {"Content-Type": "image/png", "X-Content-SHA256": hashlib.sha256(body).hexdigest()})


@pytest.mark.parametrize("kind", ["document", "photo"])
@pytest.mark.parametrize("rule", ["too_slow", "too_long", "stalled"])
def test_a_body_that_breaks_the_pace_is_408_and_leaves_nothing(app, live_server, factory, spool, kind, rule):
    applicant = factory.user("applicant")
    permit = factory.permit(applicant=applicant)
    permit_id, email = permit.id, applicant.email
    db.session.rollback()
    owner = sign_in(live_server, email)
    body = noisy_png(64)  # about 12 kB
    if kind == "document":
        path, headers = f"{API}/permits/{permit_id}/document-files?kind=esc_plan&filename=plan.png", \
            {"Content-Type": "image/png"}
    else:
        path, headers = _photo(permit_id, body)
    if rule == "too_slow":
        # About 2 kB a second against a minimum of 8 kB a second, after a grace of one second.
        app.config.update(UPLOAD_MIN_BYTES_PER_SECOND=8192, UPLOAD_RATE_GRACE_SECONDS=1, UPLOAD_MAX_SECONDS=600)
    elif rule == "too_long":
        # A pace far above any minimum, but the whole body would take about 3 s against a limit of 1 s.
        app.config.update(UPLOAD_MIN_BYTES_PER_SECOND=0, UPLOAD_MAX_SECONDS=1)
    else:
        # A third of the body at once, then nothing more, the connection left open: the read that
        # waits for the rest ends when the body can no longer keep 4 kB a second (about a second).
        app.config.update(UPLOAD_MIN_BYTES_PER_SECOND=4096, UPLOAD_RATE_GRACE_SECONDS=1, UPLOAD_MAX_SECONDS=600)
    upload = SlowUpload(live_server, "PUT" if kind == "photo" else "POST", path, {**owner, **headers}, body,
                        chunk=len(body) // 12 + 1, interval=0.25 if rule != "stalled" else 0.01,
                        stop_after=len(body) // 3 if rule == "stalled" else None)
    upload.start()
    upload.join(30)
    assert upload.status == 408, (upload.status, upload.answer)
    assert upload.answer["error"] == "request_timeout" and upload.answer["code"] == 408
    assert set(upload.answer) == {"code", "status", "message", "error", "errors"}
    assert upload.sent < len(body), "the server should give up before the body ends"
    assert upload.elapsed < 10, upload.elapsed
    time.sleep(0.2)  # the handler thread has answered; give it a moment to finish its clean-up
    _nothing_stored(app, spool)


def test_a_body_at_a_good_pace_is_stored(app, live_server, factory, spool):
    """The same limits let an ordinary upload through: only a body that breaks them is dropped."""
    applicant = factory.user("applicant")
    permit = factory.permit(applicant=applicant)
    permit_id, email = permit.id, applicant.email
    db.session.rollback()
    owner = sign_in(live_server, email)
    body = noisy_png(64)
    app.config.update(UPLOAD_MIN_BYTES_PER_SECOND=1024, UPLOAD_RATE_GRACE_SECONDS=1, UPLOAD_MAX_SECONDS=600)
    path, headers = _photo(permit_id, body)
    upload = SlowUpload(live_server, "PUT", path, {**owner, **headers}, body, chunk=len(body) // 6 + 1, interval=0.25)
    upload.start()
    upload.join(30)
    assert upload.status == 201, (upload.status, upload.answer)
    assert not spool.exists() or list(spool.iterdir()) == []


@pytest.mark.parametrize("name, value", [("UPLOAD_MIN_BYTES_PER_SECOND", -1), ("UPLOAD_RATE_GRACE_SECONDS", -5),
                                         ("UPLOAD_MAX_SECONDS", 0)])
def test_a_pace_setting_out_of_range_stops_the_app_at_start(name, value):
    from inspect_api.config import TestConfig
    with pytest.raises(RuntimeError, match=name):
        TestConfig(**{name: value}).check()
