"""The base map's tiles: which tile server the maps draw from, and what the field app may keep of it
for offline days (README "Base map tiles and offline maps").

None is configured by default, and then no tile server is ever contacted: the maps draw sites, limits
of work and the device's position on a plain background. MAP_TILE_URL names one server by a
`{z}/{x}/{y}` template; it is https, except http on this machine's loopback (a local tile server, the
tests'). Its origin is the only one the Content-Security-Policy adds for tiles, so the template names
exactly one host (no `{s}` subdomains). A bad setting stops the app at start (Config.check_settings).

Read by the app's policy (web), the field app's settings (GET /api/v1/map-settings) and the public
pages; settings may be a Flask config (a mapping) or a Config object.
"""
from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

DEFAULT_MAX_ZOOM = 19
DEFAULT_OFFLINE_ZOOMS = "14-17"
DEFAULT_OFFLINE_BUDGET_MB = 150
HIGHEST_ZOOM = 24  # deeper than any tile server serves; a larger number is a typo
MAX_ATTRIBUTION = 300
LOOPBACK = ("127.0.0.1", "localhost", "::1")

_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")
_HOST = re.compile(r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$")
_ZOOMS = re.compile(r"^\s*\d{1,2}(\s*-\s*\d{1,2})?(\s*,\s*\d{1,2}(\s*-\s*\d{1,2})?)*\s*$")


def _get(config: Any, name: str, default: Any = None) -> Any:
    value = config.get(name, default) if hasattr(config, "get") else getattr(config, name, default)
    return default if value is None or (isinstance(value, str) and not value.strip()) else value


def _url_problem(url: str) -> str | None:
    """Why the template cannot be used, or None."""
    parts = urlsplit(url)
    if parts.scheme not in ("https", "http"):
        return "must be an https address"
    if "{" in parts.netloc or "}" in parts.netloc:
        return "must name one host, without placeholders such as {s} (the Content-Security-Policy names that one origin)"
    if parts.username is not None or parts.password is not None:
        return "must not carry a user name or password (every browser of the app would receive it)"
    try:
        host, port = parts.hostname, parts.port
    except ValueError:
        return "has an invalid port"
    if not host or not (_HOST.match(host) or host == "::1"):
        return "must name a host by its DNS name or loopback address"
    if parts.scheme == "http" and host not in LOOPBACK:
        return "must be https (http only on a loopback host: 127.0.0.1, localhost or [::1])"
    if parts.fragment or any(c.isspace() for c in url):
        return "must not have a fragment or spaces"
    names = _PLACEHOLDER.findall(parts.path + "?" + parts.query)
    if sorted(set(names)) != ["x", "y", "z"] or len(names) != 3:
        return "must be a template with {z}, {x} and {y} once each, and no other placeholder"
    if port is not None and not 0 < port < 65536:
        return "has an invalid port"
    return None


def parse_zooms(text: str, max_zoom: int) -> list[int]:
    """"14-17" or "14,15,17" or "12,14-16": the zoom levels kept offline, ascending. ValueError when
    the text is not of that shape or a level lies outside 0..max_zoom."""
    if not _ZOOMS.match(str(text)):
        raise ValueError('must be zoom levels like "14-17" or "14,15,17"')
    zooms: set[int] = set()
    for part in str(text).split(","):
        low, _, high = part.partition("-")
        first, last = int(low), int(high or low)
        if first > last:
            raise ValueError(f'has a range that runs backwards ("{part.strip()}")')
        zooms.update(range(first, last + 1))
    if max(zooms) > max_zoom:
        raise ValueError(f"must lie between 0 and MAP_TILE_MAX_ZOOM ({max_zoom})")
    return sorted(zooms)


def _whole(config: Any, name: str, default: int, low: int, high: int) -> int:
    raw = _get(config, name, default)
    try:
        value = int(str(raw).strip())
    except ValueError:
        raise ValueError(f"{name} must be a whole number between {low} and {high}") from None
    if not low <= value <= high:
        raise ValueError(f"{name} must be a whole number between {low} and {high}")
    return value


def _read(config: Any) -> dict:
    """Every setting parsed; ValueError naming the setting when one is wrong."""
    url = _get(config, "MAP_TILE_URL")
    url = url.strip() if isinstance(url, str) else url
    attribution = _get(config, "MAP_TILE_ATTRIBUTION")
    attribution = " ".join(str(attribution).split()) if attribution else None
    if url is not None:
        problem = _url_problem(str(url))
        if problem:
            raise ValueError(f"MAP_TILE_URL {problem}; see README \"Base map tiles and offline maps\"")
        if not attribution:
            raise ValueError("MAP_TILE_ATTRIBUTION must be set when MAP_TILE_URL is: the tile server's required "
                             "credit, shown on every map")
        if len(attribution) > MAX_ATTRIBUTION:
            raise ValueError(f"MAP_TILE_ATTRIBUTION must be at most {MAX_ATTRIBUTION} characters")
    max_zoom = _whole(config, "MAP_TILE_MAX_ZOOM", DEFAULT_MAX_ZOOM, 0, HIGHEST_ZOOM)
    try:
        zooms = parse_zooms(_get(config, "MAP_TILE_OFFLINE_ZOOMS", DEFAULT_OFFLINE_ZOOMS), max_zoom)
    except ValueError as exc:
        raise ValueError(f"MAP_TILE_OFFLINE_ZOOMS {exc}") from None
    budget_mb = _whole(config, "MAP_TILE_OFFLINE_BUDGET_MB", DEFAULT_OFFLINE_BUDGET_MB, 0, 100_000)
    return {"url": url, "attribution": attribution, "max_zoom": max_zoom, "zooms": zooms, "budget_mb": budget_mb}


def check(config: Any) -> None:
    """Stops the start with a RuntimeError that names the setting and what it must be."""
    try:
        _read(config)
    except ValueError as exc:
        raise RuntimeError(str(exc)) from None


def tile_settings(config: Any) -> dict | None:
    """{url, attribution, min_zoom, max_zoom} of the configured tile server, or None when there is none.
    The attribution is plain text: whoever shows it shows it as text."""
    read = _read(config)
    if read["url"] is None:
        return None
    return {"url": read["url"], "attribution": read["attribution"], "min_zoom": 0, "max_zoom": read["max_zoom"]}


def offline_settings(config: Any) -> dict:
    """What the field app may keep for offline days: the zoom levels and the most bytes of tiles. With no
    tile server configured there is nothing to keep."""
    read = _read(config)
    if read["url"] is None:
        return {"zooms": [], "budget_bytes": 0}
    return {"zooms": read["zooms"], "budget_bytes": read["budget_mb"] * 1024 * 1024}


def tile_origin(config: Any) -> str | None:
    """The tile server's origin (scheme://host[:port]) for the Content-Security-Policy, or None."""
    settings = tile_settings(config)
    if settings is None:
        return None
    parts = urlsplit(settings["url"])
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    default_port = {"https": 443, "http": 80}[parts.scheme]
    port = f":{parts.port}" if parts.port not in (None, default_port) else ""
    return f"{parts.scheme}://{host}{port}"
