"""Serves the field app: the shell at `/`, the service worker at `/sw.js`, the manifest, and the
version's files under `/static/pwa/<VERSION>/`.

Every answer carries a strict Content-Security-Policy: the app has no inline script or style, talks
only to its own origin, and may not be framed. The three fixed addresses are sent `no-cache`
(revalidated by ETag) and name the current version's files; those are sent `immutable` for a year,
because a new version is a new path and an old path never changes. So the browser's HTTP cache holds
each file once, and the service worker's precache takes it from there instead of the network. Text
files go brotli- or gzip-compressed as the client accepts (assets.py). The unversioned
`/static/pwa/<file>` stays, `no-cache`, for pages of an earlier version finishing an update.
"""
from __future__ import annotations

import re
from pathlib import Path

from flask import Blueprint, Response, current_app, request
from werkzeug.security import safe_join

from .. import maptiles
from ..config import STATIC_ROOT
from ..errors import NotFound
from .assets import choose, load, version_of
from .map_settings import blp as map_blp

PWA_ROOT = STATIC_ROOT / "pwa"
_ORIGIN = re.compile(r"^https://[a-z0-9.-]+(:\d{1,5})?$")


def content_security_policy(media_origins: str | None = None, tile_origin: str | None = None) -> str:
    """The app's policy. With S3 storage, photos are fetched from short-lived signed URLs on the
    bucket's origin: PWA_MEDIA_ORIGINS (space-separated https origins) adds exactly those. With a base
    map configured, its tile server's origin (maptiles.tile_origin, checked at start) is added for
    images (the map's tiles) and connections (the offline download and the worker's cache)."""
    origins = [o for o in (media_origins or "").split() if _ORIGIN.match(o)]
    if tile_origin and tile_origin not in origins:
        origins.append(tile_origin)
    extra = f" {' '.join(origins)}" if origins else ""
    return "; ".join([
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        f"img-src 'self' blob: data:{extra}",
        f"connect-src 'self'{extra}",
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

IMMUTABLE = "public, max-age=31536000, immutable"
# The first segment of a versioned path: version.js sets versions like "1.5.0" (or "9.9.9-test").
_VERSIONED = re.compile(r"^\d+\.\d+[^/]*$")

blp = Blueprint("web", __name__)


def _send(relative: str, *, immutable: bool = False, names_version: bool = False) -> Response:
    suffix = Path(relative).suffix
    path = safe_join(str(PWA_ROOT), relative)  # None for a path that leaves PWA_ROOT
    if suffix not in TYPES or path is None or not Path(path).is_file():
        raise NotFound("No such file.")
    version = version_of(PWA_ROOT)
    asset = load(Path(path), version if names_version else None)
    encoding = choose(asset, request.accept_encodings)
    variant = asset.variants[encoding]
    response = Response(variant.body)
    # Set as a whole: werkzeug appends its own "; charset=utf-8" to text types, giving two.
    response.headers["Content-Type"] = TYPES[suffix]
    if encoding != "identity":
        response.headers["Content-Encoding"] = encoding
    if len(asset.variants) > 1:
        response.vary.add("Accept-Encoding")
    response.set_etag(variant.etag)  # no Last-Modified: a rewritten file changes with version.js, not its own date
    response.headers["Cache-Control"] = IMMUTABLE if immutable else "no-cache"
    # The service worker keeps a fixed-address file from the HTTP cache only if it is of its version.
    response.headers["X-App-Version"] = version
    response.headers["Content-Security-Policy"] = content_security_policy(
        current_app.config.get("PWA_MEDIA_ORIGINS"), maptiles.tile_origin(current_app.config))
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["X-Frame-Options"] = "DENY"
    return response.make_conditional(request)


@blp.get("/")
def index() -> Response:
    """The app shell; every screen is a hash route inside it, so one URL serves them all."""
    return _send("index.html", names_version=True)


@blp.get("/sw.js")
def service_worker() -> Response:
    response = _send("sw.js", names_version=True)
    # The worker lives under /sw.js already; the header states the scope explicitly.
    response.headers["Service-Worker-Allowed"] = "/"
    return response


@blp.get("/manifest.webmanifest")
def manifest() -> Response:
    return _send("manifest.webmanifest", names_version=True)


@blp.get("/static/pwa/<path:filename>")
def asset(filename: str) -> Response:
    """A file of the current version (immutable), or, unversioned, the current file (revalidated).
    Another version's path is 404: its files are not here, and a new file must never pass for one."""
    first, _, rest = filename.partition("/")
    if not _VERSIONED.match(first):
        return _send(filename)
    if first != version_of(PWA_ROOT) or not rest:
        raise NotFound("No such file.")
    return _send(rest, immutable=True)


# The field app's map settings (an API operation) are served beside the app.
blueprints = [blp, map_blp]
