"""The first load of the app, counted where it costs: on the wire. Every answer the live server sends
is recorded (its status line, headers and body as sent), so a file fetched by the page and again by
the service worker's precache counts twice, and an uncompressed file counts at its full size."""
from __future__ import annotations

import re
import threading
import time
from collections import Counter
from pathlib import Path

from .helpers import release_db, sign_in, wait_for_service_worker, wait_synced

# The goal of the first load of the shell (issue 28): page, modules, styles, icons and the precache.
SHELL_BUDGET = 300 * 1000
TEXT_SUFFIXES = (".js", ".css", ".svg", ".webmanifest")


class Wire:
    """WSGI middleware that records each answer's path, status, Content-Encoding and bytes sent."""

    def __init__(self, wsgi_app) -> None:
        self.wsgi_app = wsgi_app
        self.sent: list[dict] = []
        self.lock = threading.Lock()

    def __call__(self, environ, start_response):
        record = {"path": environ.get("PATH_INFO", ""), "body": 0}

        def start(status, headers, exc_info=None):
            record["status"] = int(status.split()[0])
            record["encoding"] = {k.lower(): v for k, v in headers}.get("content-encoding")
            record["head"] = len(f"HTTP/1.1 {status}\r\n") + sum(len(k) + len(v) + 4 for k, v in headers) + 2
            return start_response(status, headers, exc_info)

        body = self.wsgi_app(environ, start)
        try:
            for chunk in body:
                record["body"] += len(chunk)
                yield chunk
        finally:
            if hasattr(body, "close"):
                body.close()
            with self.lock:
                self.sent.append(record)

    def shell(self) -> list[dict]:
        with self.lock:
            return [r for r in self.sent if not r["path"].startswith("/api/")]


def later_files() -> list[str]:
    """shell.js LATER, at this version's paths, as the worker names them."""
    pwa = Path(__file__).resolve().parents[2] / "inspect_api" / "static" / "pwa"
    version = re.search(r'VERSION = "([^"]+)"', (pwa / "version.js").read_text()).group(1)
    text = (pwa / "shell.js").read_text().split("const LATER = [")[1].split("];")[0]
    return [f"/static/pwa/{version}/{name}" for name in re.findall(r'^  "([^"]+)",$', text, re.MULTILINE)]


def test_first_load_sends_each_shell_file_once_and_compressed(app, live_server, new_context, factory, monkeypatch):
    email = factory.user("inspector").email
    release_db()
    wire = Wire(app.wsgi_app)
    monkeypatch.setattr(app, "wsgi_app", wire)
    page = new_context().new_page()
    sign_in(page, live_server.url, email)
    wait_for_service_worker(page)  # activated: the shell is precached
    wait_synced(page)
    assert page.evaluate("() => caches.keys()")
    # After sign-in and a sync the worker keeps the rest (shell.js LATER: the map library, the viewer).
    later = later_files()
    assert any(path.endswith("/vendor/leaflet/leaflet-src.esm.js") for path in later)
    page.wait_for_function("""async (later) => { const cache = await caches.open((await caches.keys())[0]);
        return (await Promise.all(later.map((u) => cache.match(u)))).every(Boolean); }""", arg=later, polling=250)

    # The cache holds a file as soon as its last byte arrived; the server notes it just after.
    deadline = time.monotonic() + 10
    while not set(later) <= {r["path"] for r in wire.shell()} and time.monotonic() < deadline:
        time.sleep(0.05)
    everything = wire.shell()
    counts = Counter(r["path"] for r in everything)
    # Each of the later files crosses the network once, after the sign-in, never as part of the first load.
    signed_in = next(i for i, r in enumerate(wire.sent) if r["path"] == "/api/v1/auth/login")
    assert {r["path"] for r in wire.sent[:signed_in]} & set(later) == set()
    assert {path: counts[path] for path in later} == {path: 1 for path in later}
    shell = [r for r in everything if r["path"] not in set(later)]
    total = sum(r["head"] + r["body"] for r in shell)
    print(f"\nfirst load: {len(shell)} shell requests, {total} bytes ({sum(r['head'] for r in shell)} of headers); "
          f"API {sum(r['head'] + r['body'] for r in wire.sent if r['path'].startswith('/api/'))} bytes")
    assert {path: n for path, n in counts.items() if n > 1} == {}
    assert [r["path"] for r in shell if r["status"] != 200] == []
    uncompressed = [r["path"] for r in shell if r["path"].endswith(TEXT_SUFFIXES) and r["body"] > 1024
                    and r["encoding"] not in ("gzip", "br")]
    assert uncompressed == []
    assert total <= SHELL_BUDGET, f"{total} bytes"
    assert "/" in counts and "/sw.js" in counts and any(p.endswith("/js/app.js") for p in counts)
