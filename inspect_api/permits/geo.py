"""Shape checks for the site point and the limit-of-work polygon (GeoJSON, RFC 7946)."""
from __future__ import annotations

import math
from typing import Any

from shapely.geometry import shape
from shapely.validation import explain_validity

MAX_POSITIONS = 5_000
MAX_RINGS = 50


def _position_problem(pos: Any) -> str | None:
    if not isinstance(pos, (list, tuple)) or len(pos) not in (2, 3):
        return "Each position is [longitude, latitude] (optionally with altitude)."
    if any(isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) for v in pos):
        return "Positions hold finite numbers."
    lon, lat = pos[0], pos[1]
    if not -180 <= lon <= 180 or not -90 <= lat <= 90:
        return "Positions are [longitude, latitude] within -180..180 and -90..90."
    return None


def polygon_problem(value: Any) -> str | None:
    """None when `value` is a valid GeoJSON Polygon, else a sentence saying what is wrong."""
    if not isinstance(value, dict) or value.get("type") != "Polygon":
        return 'The limit of work must be a GeoJSON object with "type": "Polygon".'
    rings = value.get("coordinates")
    if not isinstance(rings, list) or not rings or len(rings) > MAX_RINGS:
        return f"A Polygon holds 1 to {MAX_RINGS} linear rings in `coordinates`."
    total = 0
    for ring in rings:
        if not isinstance(ring, list) or len(ring) < 4:
            return "Each ring needs at least four positions, the last equal to the first."
        total += len(ring)
        if total > MAX_POSITIONS:
            return f"The polygon has more than {MAX_POSITIONS} positions; simplify it."
        for pos in ring:
            problem = _position_problem(pos)
            if problem:
                return problem
        if list(ring[0][:2]) != list(ring[-1][:2]):
            return "Each ring must be closed: its last position equal to its first."
    try:
        geometry = shape(value)
    except Exception:  # shapely raises several types for malformed input
        return "The polygon could not be read."
    if not geometry.is_valid:
        return f"The polygon is not valid: {explain_validity(geometry)}."
    if geometry.is_empty or geometry.area == 0:
        return "The polygon has no area."
    return None
