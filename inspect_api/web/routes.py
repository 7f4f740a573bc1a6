"""Serves the field app: the shell at `/`, the service worker at `/sw.js`, the manifest and the
static modules under `/static/pwa/`.

Every answer carries a strict Content-Security-Policy: the app has no inline script or style, talks
only to its own origin, and may not be framed. Files are sent `no-cache` (revalidated by ETag):
the service worker's versioned cache, not the HTTP cache, is what keeps the app working offline, and
a stale HTTP copy must never leak an old file into a new version's precache.
"""
from __future__ import annotations

import re
from pathlib import Path

from flask import Blueprint, Response, current_app, send_from_directory

from ..config import STATIC_ROOT
from ..errors import NotFound

PWA_ROOT = STATIC_ROOT / "pwa"
_ORIGIN = re.compile(r"^https://[a-z0-9.-]+(:\d{1,5})?$")


def content_security_policy(media_origins: str | None = None) -> str:
    """The app's policy. With S3 storage, photos are fetched from short-lived signed URLs on the
    bucket's origin: PWA_MEDIA_ORIGINS (space-separated https origins) adds exactly those."""
    extra = " ".join(o for o in (media_origins or "").split() if _ORIGIN.match(o))
    media = f" {extra}" if extra else ""
    return "; ".join([
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        f"img-src 'self' blob: data:{media}",
        f"connect-src 'self'{media}",
        "worker-src 'self'",
        "manifest-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ])

# Extensions the app ships; anything else under /static/pwa/ is not served.
TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".webmanifest": "application/manifest+json",
}

blp = Blueprint("web", __name__)


def _send(relative: str) -> Response:
    suffix = Path(relative).suffix
    if suffix not in TYPES:
        raise NotFound("No such file.")
    # send_from_directory refuses paths that leave PWA_ROOT (safe_join) and answers 404 for those.
    response = send_from_directory(PWA_ROOT, relative, mimetype=TYPES[suffix], max_age=0, conditional=True)
    # Set as a whole: werkzeug appends its own "; charset=utf-8" to text types, giving two.
    response.headers["Content-Type"] = TYPES[suffix]
    response.headers["Cache-Control"] = "no-cache"
    response.headers["Content-Security-Policy"] = content_security_policy(current_app.config.get("PWA_MEDIA_ORIGINS"))
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["X-Frame-Options"] = "DENY"
    return response


@blp.get("/")
def index() -> Response:
    """The app shell; every screen is a hash route inside it, so one URL serves them all."""
    return _send("index.html")


@blp.get("/sw.js")
def service_worker() -> Response:
    response = _send("sw.js")
    # The worker lives under /sw.js already; the header states the scope explicitly.
    response.headers["Service-Worker-Allowed"] = "/"
    return response


@blp.get("/manifest.webmanifest")
def manifest() -> Response:
    return _send("manifest.webmanifest")


@blp.get("/static/pwa/<path:filename>")
def asset(filename: str) -> Response:
    return _send(filename)
