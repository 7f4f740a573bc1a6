"""A client that vanishes mid-body, against a real HTTP server thread and a raw socket."""
from __future__ import annotations

import io
import queue
import random
import socket
import threading
import uuid
from urllib.parse import urlparse

import pytest
from PIL import Image
from sqlalchemy import func, select
from werkzeug.serving import make_server

from inspect_api.extensions import db
from inspect_api.photos.models import Photo, PhotoUpload

from .helpers import sha
from .test_tus import create, head, original_bytes, patch


class _Finished:
    """WSGI wrapper that reports each request once the app is completely done with it."""

    def __init__(self, app) -> None:
        self.app, self.done = app, queue.Queue()

    def __call__(self, environ, start_response):
        try:
            return list(self.app(environ, start_response))
        finally:
            self.done.put(environ.get("PATH_INFO"))


@pytest.fixture
def live(app):
    watched = _Finished(app)
    server = make_server("127.0.0.1", 0, watched, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_port, watched.done
    server.shutdown()
    thread.join(timeout=10)


@pytest.fixture
def noisy_jpeg() -> bytes:
    rng = random.Random(4)
    image = Image.frombytes("RGB", (400, 300), bytes(rng.getrandbits(8) for _ in range(400 * 300 * 3)))
    out = io.BytesIO()
    image.save(out, "JPEG", quality=92)
    return out.getvalue()


def send_half(port: int, request_line: str, headers: dict[str, str], body: bytes, sent: int) -> None:
    head_text = request_line + "\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items()) + "\r\n"
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(head_text.encode("latin-1") + body[:sent])
    # leaving the block closes the socket: the server sees the body end early


def _count(model) -> int:
    db.session.rollback()
    return db.session.scalar(select(func.count()).select_from(model))


def test_disconnect_mid_put_leaves_nothing(factory, live, noisy_jpeg, stored, leftovers):
    port, finished = live
    user, headers = factory.as_role("applicant")
    permit_id = factory.permit(applicant=user).id
    db.session.commit()  # hold no database lock while the server thread works
    photo_id = str(uuid.uuid4())
    send_half(port, f"PUT /api/v1/photos/{photo_id}?permit_id={permit_id} HTTP/1.1",
              {"Host": f"127.0.0.1:{port}", **headers, "Content-Type": "image/jpeg",
               "X-Content-SHA256": sha(noisy_jpeg), "Content-Length": str(len(noisy_jpeg))},
              noisy_jpeg, len(noisy_jpeg) // 2)
    assert finished.get(timeout=30) == f"/api/v1/photos/{photo_id}"
    assert leftovers() == [] and stored() == []
    assert _count(Photo) == 0


def test_disconnect_mid_patch_keeps_the_bytes_received(client, factory, live, noisy_jpeg, stored):
    port, finished = live
    user, headers = factory.as_role("applicant")
    permit_id = factory.permit(applicant=user).id
    url = urlparse(create(client, headers, permit_id, noisy_jpeg).headers["Location"]).path
    db.session.commit()
    half = len(noisy_jpeg) // 2
    send_half(port, f"PATCH {url} HTTP/1.1",
              {"Host": f"127.0.0.1:{port}", **headers, "Tus-Resumable": "1.0.0",
               "Content-Type": "application/offset+octet-stream", "Upload-Offset": "0",
               "Content-Length": str(len(noisy_jpeg))}, noisy_jpeg, half)
    assert finished.get(timeout=30) == url
    held = int(head(client, headers, url).headers["Upload-Offset"])
    assert held == half  # everything that arrived was kept
    done = patch(client, headers, url, held, noisy_jpeg[held:])
    assert done.status_code == 200, done.get_json()
    assert original_bytes(client, headers, done.get_json()["url"]) == noisy_jpeg
    assert _count(PhotoUpload) == 1 and _count(Photo) == 1


def test_the_same_request_sent_whole_is_stored(factory, live, noisy_jpeg, stored):
    """Control for the disconnect test: the identical request with its whole body makes the photo."""
    port, finished = live
    user, headers = factory.as_role("applicant")
    permit_id = factory.permit(applicant=user).id
    db.session.commit()
    photo_id = str(uuid.uuid4())
    request_head = (f"PUT /api/v1/photos/{photo_id}?permit_id={permit_id} HTTP/1.1\r\n"
                    + "".join(f"{k}: {v}\r\n" for k, v in {
                        "Host": f"127.0.0.1:{port}", **headers, "Content-Type": "image/jpeg",
                        "X-Content-SHA256": sha(noisy_jpeg), "Content-Length": str(len(noisy_jpeg)),
                        "Connection": "close"}.items()) + "\r\n")
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request_head.encode("latin-1") + noisy_jpeg)
        answer = sock.makefile("rb").readline()
    assert answer.startswith(b"HTTP/1.1 201"), answer
    assert finished.get(timeout=30) == f"/api/v1/photos/{photo_id}"
    assert _count(Photo) == 1 and len(stored()) == 3
