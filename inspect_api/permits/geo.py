"""Shape checks for the site point and the limit-of-work polygon (GeoJSON, RFC 7946)."""
from __future__ import annotations

import math
from typing import Any

from shapely.geometry import shape
from shapely.validation import explain_validity

MAX_POSITIONS = 5_000
MAX_RINGS = 50
MAX_POLYGONS = 50


# What polygon_problem() accepts, as the document publishes it (JSON Schema 2020-12): a client generated
# from it sends a shape the server can read. Closed and valid rings, the total of MAX_POSITIONS
# positions and a non-zero area are said in the field's description, not in the schema. Each branch is
# a whole object schema and null is its own branch: generators (openapi-python-client) make a model of
# each and a union of them.
_POSITION = {"type": "array", "minItems": 2, "maxItems": 3, "items": {"type": "number"},
             "prefixItems": [{"type": "number", "minimum": -180, "maximum": 180},
                             {"type": "number", "minimum": -90, "maximum": 90}],
             "description": "[longitude, latitude] or [longitude, latitude, altitude]"}
_RINGS = {"type": "array", "minItems": 1, "maxItems": MAX_RINGS,
          "items": {"type": "array", "minItems": 4, "maxItems": MAX_POSITIONS, "items": _POSITION}}


def _geometry(kind: str, coordinates: dict) -> dict:
    return {"title": kind, "type": "object", "required": ["type", "coordinates"], "additionalProperties": False,
            "properties": {"type": {"type": "string", "enum": [kind]}, "coordinates": coordinates}}


LIMIT_OF_WORK_SCHEMA = {"anyOf": [
    _geometry("Polygon", _RINGS),
    _geometry("MultiPolygon", {"type": "array", "minItems": 1, "maxItems": MAX_POLYGONS, "items": _RINGS}),
    {"type": "null"},
]}


def _position_problem(pos: Any) -> str | None:
    if not isinstance(pos, (list, tuple)) or len(pos) not in (2, 3):
        return "Each position is [longitude, latitude] (optionally with altitude)."
    if any(isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) for v in pos):
        return "Positions hold finite numbers."
    lon, lat = pos[0], pos[1]
    if not -180 <= lon <= 180 or not -90 <= lat <= 90:
        return "Positions are [longitude, latitude] within -180..180 and -90..90."
    return None


def _rings_problem(rings: Any, total: int) -> tuple[str | None, int]:
    """Check one polygon's rings; returns (problem, positions counted so far)."""
    if not isinstance(rings, list) or not rings or len(rings) > MAX_RINGS:
        return f"A Polygon holds 1 to {MAX_RINGS} linear rings.", total
    for ring in rings:
        if not isinstance(ring, list) or len(ring) < 4:
            return "Each ring needs at least four positions, the last equal to the first.", total
        total += len(ring)
        if total > MAX_POSITIONS:
            return f"The limit of work has more than {MAX_POSITIONS} positions; simplify it.", total
        for pos in ring:
            problem = _position_problem(pos)
            if problem:
                return problem, total
        if list(ring[0][:2]) != list(ring[-1][:2]):
            return "Each ring must be closed: its last position equal to its first.", total
    return None, total


def polygon_problem(value: Any) -> str | None:
    """None when `value` is a valid GeoJSON Polygon or MultiPolygon, else a sentence saying what is
    wrong. Strict: exactly the members "type" and "coordinates" (anything else would be stored and
    served back unchecked, at any depth), at most MAX_POLYGONS polygons, MAX_RINGS rings each and
    MAX_POSITIONS positions in all, every ring closed. The shape is walked level by level, never
    recursively, so no nesting can exhaust the stack."""
    if not isinstance(value, dict) or value.get("type") not in ("Polygon", "MultiPolygon"):
        return 'The limit of work must be a GeoJSON object with "type": "Polygon" or "MultiPolygon".'
    extra = sorted(set(value) - {"type", "coordinates"})
    if extra:
        return f'The limit of work holds only "type" and "coordinates", not {", ".join(map(repr, extra))}.'
    coordinates = value.get("coordinates")
    if value["type"] == "Polygon":
        problem, _ = _rings_problem(coordinates, 0)
    else:
        if not isinstance(coordinates, list) or not coordinates or len(coordinates) > MAX_POLYGONS:
            return f"A MultiPolygon holds 1 to {MAX_POLYGONS} polygons in `coordinates`."
        problem, total = None, 0
        for rings in coordinates:
            problem, total = _rings_problem(rings, total)
            if problem:
                break
    if problem:
        return problem
    try:
        geometry = shape(value)
    except Exception:  # shapely raises several types for malformed input
        return "The polygon could not be read."
    if not geometry.is_valid:
        return f"The polygon is not valid: {explain_validity(geometry)}."
    if geometry.is_empty or geometry.area == 0:
        return "The polygon has no area."
    return None
