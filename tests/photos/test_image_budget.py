"""One upload cannot take the server down (API.md "Photos"): image decoding is bounded by a memory
budget, runs outside any database transaction, and a few images at a time per process.

The first test is the attack itself, against a real server process over HTTP: a 389 kB
all-zero 10000x10000 RGBA PNG (exactly MAX_IMAGE_PIXELS) uploaded while a supervisor reads
/permits. The server's peak memory is read from /proc."""
from __future__ import annotations

import hashlib
import http.client
import json
import struct
import subprocess
import sys
import threading
import time
import uuid
import zlib
from pathlib import Path

import pytest

from inspect_api.photos import imaging

from .helpers import jpeg, put_photo

SIDE = 10_000
PASSWORD = "correct horse battery"


def _zero_rgba_png(path: Path) -> bytes:
    """A SIDE x SIDE all-zero RGBA PNG written row by row (never 400 MB in this process)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    packer, row, parts = zlib.compressobj(9), b"\x00" * (1 + SIDE * 4), []
    for _ in range(SIDE):
        parts.append(packer.compress(row))
    parts.append(packer.flush())
    data = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", SIDE, SIDE, 8, 6, 0, 0, 0))
            + chunk(b"IDAT", b"".join(parts)) + chunk(b"IEND", b""))
    path.write_bytes(data)
    return data


SERVER = r'''
import json, sys
from werkzeug.serving import make_server
from inspect_api import create_app
from inspect_api.config import TestConfig
from inspect_api.extensions import db
from inspect_api.seed import run_all
from inspect_api.auth.models import User
from inspect_api.auth.passwords import hash_password
from inspect_api.permits.models import Permit

folder = sys.argv[1]
app = create_app(TestConfig(SQLALCHEMY_DATABASE_URI=f"sqlite:///{folder}/server.sqlite3",
                            STORAGE_URL=f"file://{folder}/blobs", UPLOAD_TEMP_DIR=f"{folder}/tmp"))
with app.app_context():
    db.create_all()
    run_all()
    users = {role: User(email=f"{role}@example.org", name=role.title(), role=role,
                        password_hash=hash_password(sys.argv[2])) for role in ("applicant", "supervisor")}
    db.session.add_all(users.values())
    db.session.flush()
    permit = Permit(applicant_id=users["applicant"].id, created_by=users["applicant"].id, status="draft",
                    site_address="1 Main Street", site_lat=41.6376, site_lon=-70.9036, owner_name="Pat Owner",
                    disturbed_area_sqft=12000, drains_to_ms4=True, drains_to_waters=False,
                    proposed_use="house", former_numbers=[], review_level="administrative_review")
    db.session.add(permit)
    db.session.commit()
    permit_id = permit.id
server = make_server("127.0.0.1", 0, app, threaded=True)
print(json.dumps({"port": server.server_port, "permit_id": permit_id}), flush=True)
server.serve_forever()
'''


def _status_kb(pid: int, key: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    raise AssertionError(f"{key} not in /proc/{pid}/status")


def _call(port, method, path, body=None, headers=None, timeout=120):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def _token(port, role) -> dict:
    status, body = _call(port, "POST", "/api/v1/auth/login",
                         json.dumps({"email": f"{role}@example.org", "password": PASSWORD}),
                         {"Content-Type": "application/json"})
    assert status == 200, body
    return {"Authorization": "Bearer " + json.loads(body)["access_token"]}


@pytest.fixture
def server(tmp_path):
    if not Path("/proc/self/status").exists():
        pytest.skip("reads the server's memory from /proc (Linux)")
    script = tmp_path / "server.py"
    script.write_text(SERVER)
    process = subprocess.Popen([sys.executable, str(script), str(tmp_path), PASSWORD], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True)
    try:
        ready = json.loads(process.stdout.readline())
        yield process, ready["port"], ready["permit_id"]
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_huge_png_while_a_supervisor_reads_permits(server, tmp_path):
    process, port, permit_id = server
    png = _zero_rgba_png(tmp_path / "zero.png")
    assert len(png) < 500_000
    applicant, supervisor = _token(port, "applicant"), _token(port, "supervisor")
    assert _call(port, "GET", "/api/v1/permits", headers=supervisor)[0] == 200  # warm
    before_kb = _status_kb(process.pid, "VmRSS")
    upload: dict = {}

    def send():
        upload["status"], upload["body"] = _call(
            port, "PUT", f"/api/v1/photos/{uuid.uuid4()}?permit_id={permit_id}", png,
            {**applicant, "Content-Type": "image/png", "X-Content-SHA256": hashlib.sha256(png).hexdigest()})

    sender = threading.Thread(target=send)
    reads = []
    sender.start()
    while sender.is_alive() or not reads:
        started = time.monotonic()
        status, _ = _call(port, "GET", "/api/v1/permits", headers=supervisor, timeout=30)
        reads.append((status, time.monotonic() - started))
        time.sleep(0.05)
    sender.join()
    peak_growth_mb = (_status_kb(process.pid, "VmHWM") - before_kb) / 1024
    assert all(status == 200 for status, _ in reads), reads
    assert max(seconds for _, seconds in reads) < 1.0, reads
    assert peak_growth_mb < 300, f"the server's memory grew by {peak_growth_mb:.0f} MB"
    assert upload["status"] == 422, upload
    error = json.loads(upload["body"])
    assert error["error"] == "image_too_large" and "MB" in error["message"]
    assert error["errors"]["limit"] == [320 * 1024 * 1024]


# -- the pieces, in process ------------------------------------------------------------------------
@pytest.fixture
def local_only(backend):
    if backend != "local":
        pytest.skip("about decoding, not storage")


def test_images_are_read_outside_any_transaction(app, factory, local_only, monkeypatch):
    """A slow (but allowed) decode must not hold SQLite's write lock: a read meanwhile is prompt."""
    from tests.closeout.conftest import LiveServer
    real = imaging.derive
    decoding = threading.Event()

    def slow_derive(*args, **kwargs):
        decoding.set()
        time.sleep(2.5)
        return real(*args, **kwargs)

    monkeypatch.setattr(imaging, "derive", slow_derive)
    applicant, supervisor = factory.user("applicant"), factory.user("supervisor")
    permit_id = factory.permit(applicant=applicant).id
    headers, reader = factory.headers(applicant), factory.headers(supervisor)
    live = LiveServer(app)
    live.thread.start()
    try:
        port = live.server.server_port
        data = jpeg((640, 480))
        upload = {}

        def send():
            upload["status"], upload["body"] = _call(
                port, "PUT", f"/api/v1/photos/{uuid.uuid4()}?permit_id={permit_id}", data,
                {**headers, "Content-Type": "image/jpeg", "X-Content-SHA256": hashlib.sha256(data).hexdigest()})

        sender = threading.Thread(target=send)
        sender.start()
        assert decoding.wait(30)
        started = time.monotonic()
        status, _ = _call(port, "GET", "/api/v1/permits", headers=reader, timeout=30)
        waited = time.monotonic() - started
        sender.join()
    finally:
        live.server.shutdown()
        live.thread.join(timeout=10)
    assert status == 200 and waited < 1.0, waited
    assert upload["status"] == 201, upload


def test_decode_budget_refuses_big_non_jpeg_and_reduces_jpeg(app, client, factory, local_only):
    from PIL import Image
    import io
    app.config["MAX_IMAGE_DECODE_BYTES"] = 8 * 1024 * 1024
    applicant, headers = factory.as_role("applicant")
    permit = factory.permit(applicant=applicant)
    big = io.BytesIO()
    Image.new("RGB", (1600, 1200), (30, 90, 40)).save(big, "PNG")  # 1.9 MP x 4 bytes x 1.5 = 11.5 MB
    r = put_photo(client, headers, permit.id, big.getvalue(), content_type="image/png")
    assert r.status_code == 422 and r.get_json()["error"] == "image_too_large", r.get_json()
    error = r.get_json()
    assert error["errors"] == {"decode_bytes": [1600 * 1200 * 6], "limit": [8 * 1024 * 1024]}
    assert "JPEG" in error["message"]
    # a 12 MP JPEG decodes reduced in draft mode (1/4 here, to stay within the budget) and fits
    r = put_photo(client, headers, permit.id, jpeg((4000, 3000)))
    assert r.status_code == 201, r.get_json()
    assert (r.get_json()["width"], r.get_json()["height"]) == (4000, 3000)
    small = io.BytesIO()
    Image.new("RGBA", (600, 400), (0, 0, 0, 0)).save(small, "PNG")
    assert put_photo(client, headers, permit.id, small.getvalue(), content_type="image/png").status_code == 201


def test_image_work_is_capped_per_process(app, client, factory, local_only):
    app.config.update(IMAGE_WORKERS=1, IMAGE_WAIT_SECONDS=0)
    applicant, headers = factory.as_role("applicant")
    permit = factory.permit(applicant=applicant)
    with imaging.slot(1, 0):  # another request is reading an image
        r = put_photo(client, headers, permit.id, jpeg((64, 48)))
    assert r.status_code == 503 and r.get_json()["error"] == "image_busy", r.get_json()
    assert r.headers["Retry-After"] == "5" and r.get_json()["errors"] == {"retry_after_s": [5]}
    assert put_photo(client, headers, permit.id, jpeg((64, 48))).status_code == 201  # the slot is free again
