"""Photo evidence as pure functions: EXIF GPS and time parsing, orientation, where a photo was taken
and how far that is from its site (DOMAIN.md "Evidence"). No database, no Flask.

Decisions (documented in the API description):
- A GPS coordinate without its N/S or E/W reference is read as north / east (positive), since the
  reference is what carries the sign; a written negative value keeps its sign.
- The photo's location is its EXIF GPS unless that is absent, not a number, out of range, or exactly
  (0, 0) (what some cameras write before they have a fix); then the device's own fix; else none.
- An EXIF time without OffsetTimeOriginal is read in the site's time zone (the town's).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone, tzinfo
from typing import Any
from shapely.geometry import Point, shape

EARTH_RADIUS_M = 6_371_008.8  # mean Earth radius (IUGG)

# EXIF orientation -> the PIL transpose that shows the image upright (ImageOps.exif_transpose's table).
ORIENTATION_TRANSPOSE = {2: "FLIP_LEFT_RIGHT", 3: "ROTATE_180", 4: "FLIP_TOP_BOTTOM", 5: "TRANSPOSE",
                         6: "ROTATE_270", 7: "TRANSVERSE", 8: "ROTATE_90"}

GPS_LAT_REF, GPS_LAT, GPS_LON_REF, GPS_LON, GPS_ALT_REF, GPS_ALT = 1, 2, 3, 4, 5, 6


@dataclass(frozen=True)
class Location:
    lat: float
    lon: float
    source: str  # "exif" | "device"


def to_number(value: Any) -> float | None:
    """One EXIF number in any form cameras write: int, float, IFDRational, or a (numerator,
    denominator) pair. A zero denominator or NaN gives None."""
    if isinstance(value, (tuple, list)) and len(value) == 2 and all(isinstance(v, (int, float)) for v in value):
        num, den = value
        if den == 0:
            return None
        value = num / den
    try:
        number = float(value)
    except (TypeError, ValueError, ZeroDivisionError):
        return None
    return number if math.isfinite(number) else None


def _components(value: Any) -> list[Any]:
    if isinstance(value, (bytes, str)):
        return []
    if isinstance(value, (tuple, list)):
        # A bare pair of ints is one rational as raw EXIF readers give it (numerator, denominator);
        # degrees-minutes pairs come as two rationals.
        if len(value) == 2 and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
            return [value]
        return list(value)
    return [value]


def dms_to_degrees(value: Any) -> float | None:
    """Degrees from (d, m, s), (d, decimal minutes), (d,) or a lone number; None if any part is not a number."""
    parts = _components(value)
    if not 1 <= len(parts) <= 3:
        return None
    numbers = [to_number(p) for p in parts]
    if any(n is None for n in numbers):
        return None
    degrees, minutes, seconds = (numbers + [0.0, 0.0])[:3]
    # 60 itself is allowed: some writers round 59.9999 up.
    if not (0 <= minutes <= 60 and 0 <= seconds <= 60) and len(numbers) > 1:
        return None
    sign = -1.0 if degrees < 0 else 1.0
    return sign * (abs(degrees) + minutes / 60.0 + seconds / 3600.0)


def _ref(value: Any) -> str:
    if isinstance(value, bytes):
        value = value.decode("ascii", "ignore")
    return str(value or "").strip("\x00 \t").upper()[:1]


def _signed(degrees: float, ref: str, negative: str) -> float:
    if ref == negative:
        return -abs(degrees)
    if ref:
        return abs(degrees)
    return degrees  # no reference: read as N/E, keeping a written sign


def _altitude(gps: dict[int, Any]) -> float | None:
    alt = to_number(gps.get(GPS_ALT))
    if alt is None:
        return None
    ref = gps.get(GPS_ALT_REF)
    if isinstance(ref, bytes):
        ref = ref[:1] == b"\x01"
    elif isinstance(ref, str):
        ref = ref.strip("\x00 ") == "1"
    elif isinstance(ref, (int, float)):
        ref = int(ref) == 1
    else:
        ref = False
    return round(-abs(alt) if ref else alt, 2)


def parse_gps(gps: dict[int, Any] | None) -> dict[str, float | None] | None:
    """{"lat", "lon", "alt"} in decimal degrees (south and west negative, 6 places) and metres
    (below sea level negative), or None when the block holds no usable position."""
    if not gps:
        return None
    lat = dms_to_degrees(gps.get(GPS_LAT))
    lon = dms_to_degrees(gps.get(GPS_LON))
    if lat is None or lon is None:
        return None
    lat = _signed(lat, _ref(gps.get(GPS_LAT_REF)), "S")
    lon = _signed(lon, _ref(gps.get(GPS_LON_REF)), "W")
    if not (-90 <= lat <= 90 and -180 <= lon <= 180):
        return None
    return {"lat": round(lat, 6), "lon": round(lon, 6), "alt": _altitude(gps)}


def plausible(lat: float | None, lon: float | None) -> bool:
    if lat is None or lon is None or not (math.isfinite(lat) and math.isfinite(lon)):
        return False
    if not (-90 <= lat <= 90 and -180 <= lon <= 180):
        return False
    return not (lat == 0 and lon == 0)


def choose_location(exif_gps: dict | None, device_gps: dict | None) -> Location | None:
    """EXIF first (the camera's own fix at the shutter), the device's fix when EXIF has none usable."""
    if exif_gps and plausible(exif_gps.get("lat"), exif_gps.get("lon")):
        return Location(exif_gps["lat"], exif_gps["lon"], "exif")
    if device_gps and plausible(device_gps.get("lat"), device_gps.get("lon")):
        return Location(device_gps["lat"], device_gps["lon"], "device")
    return None


def haversine_m(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """Great-circle distance in metres."""
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * EARTH_RADIUS_M * math.asin(min(1.0, math.sqrt(a)))


def within_polygon(geojson: dict | None, lat: float, lon: float) -> bool | None:
    """Whether the point lies in (or on the edge of) a GeoJSON Polygon/MultiPolygon; None without one."""
    if not geojson:
        return None
    try:
        area = shape(geojson)
    except (ValueError, TypeError, KeyError, AttributeError, IndexError):
        return None
    if area.is_empty or area.geom_type not in ("Polygon", "MultiPolygon"):
        return None
    return bool(area.covers(Point(lon, lat)))  # GeoJSON order is lon, lat


def far_from_site(distance_m: float | None, limit_m: float) -> bool | None:
    return None if distance_m is None else distance_m > limit_m


def displayed_size(width: int, height: int, orientation: int) -> tuple[int, int]:
    """Width and height as shown: orientations 5-8 turn the image a quarter."""
    return (height, width) if orientation in (5, 6, 7, 8) else (width, height)


def normal_orientation(value: Any) -> int:
    number = to_number(value)
    return int(number) if number is not None and int(number) == number and 1 <= number <= 8 else 1


def fit_within(width: int, height: int, longest: int) -> tuple[int, int]:
    """The size that keeps the aspect ratio with the longest side at most `longest` (never enlarges)."""
    if max(width, height) <= longest:
        return width, height
    scale = longest / max(width, height)
    return max(1, round(width * scale)), max(1, round(height * scale))


def _offset(value: Any) -> timezone | None:
    text = _text(value)
    if len(text) != 6 or text[0] not in "+-" or text[3] != ":":
        return None
    try:
        hours, minutes = int(text[1:3]), int(text[4:6])
    except ValueError:
        return None
    if hours > 14 or minutes > 59:
        return None
    delta = timedelta(hours=hours, minutes=minutes)
    return timezone(-delta if text[0] == "-" else delta)


def _text(value: Any) -> str:
    if isinstance(value, bytes):
        value = value.decode("ascii", "ignore")
    return str(value or "").strip("\x00 ")


def exif_datetime(value: Any, offset: Any = None, subsec: Any = None, *,
                  default_tz: tzinfo = timezone.utc) -> datetime | None:
    """DateTimeOriginal ("YYYY:MM:DD HH:MM:SS") with OffsetTimeOriginal and SubSecTimeOriginal when
    present; without an offset the time is read in `default_tz` (the site's zone)."""
    text = _text(value)
    try:
        taken = datetime.strptime(text[:19], "%Y:%m:%d %H:%M:%S")
    except ValueError:
        return None
    digits = _text(subsec)
    if digits.isdigit():
        taken = taken.replace(microsecond=int(digits[:6].ljust(6, "0")))
    zone = _offset(offset)
    if zone is not None:
        return taken.replace(tzinfo=zone)
    return taken.replace(tzinfo=default_tz)


def clean_text(value: Any, limit: int = 100) -> str | None:
    text = _text(value)
    text = "".join(ch for ch in text if ch.isprintable()).strip()
    text = " ".join(text.split())
    return text[:limit] or None
