"""Export formats as pure functions: GeoJSON features (RFC 7946) and CSV cells. No database, no Flask."""
from __future__ import annotations

import csv
import io
import unicodedata
from datetime import date, datetime
from decimal import Decimal
from typing import Any, Iterable, Sequence

# A spreadsheet treats a cell starting with one of these as a formula (OWASP "CSV injection").
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
# Spreadsheets skip these before deciding a cell is a formula, so they cannot shield one (OWASP "CSV
# injection": leading whitespace and line breaks, no-break and zero-width spaces, other invisible format
# characters, and the pipe of a DDE call): white space (Zs, Zl, Zp), control (Cc) and format (Cf) characters.
_SKIPPED_CATEGORIES = ("Zs", "Zl", "Zp", "Cc", "Cf")
_SKIPPED_CHARS = ("|",)
PERMIT_LAYERS = ("site", "limit_of_work")


def safe_cell(value: Any) -> Any:
    """A CSV cell that a spreadsheet shows as text: text that could be read as a formula (`reads_as_formula`)
    gets a leading apostrophe. Numbers, dates and booleans are written as they are: we made them, and a
    negative longitude must stay a number."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, Decimal)):
        return value
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    text = str(value)
    return "'" + text if reads_as_formula(text) else text


def reads_as_formula(text: str) -> bool:
    """Whether a spreadsheet could read the text as a formula: it starts with = + - @ (or a tab or carriage
    return), or with one of them behind characters a spreadsheet skips, or with a full-width or other
    compatibility form of one (＝ ＋ － ＠, which East Asian input methods type and spreadsheets accept)."""
    if text.startswith(FORMULA_STARTS):
        return True
    for char in text:
        if char in _SKIPPED_CHARS or char.isspace() or unicodedata.category(char) in _SKIPPED_CATEGORIES:
            continue
        return unicodedata.normalize("NFKC", char)[:1] in FORMULA_STARTS
    return False


def csv_text(columns: Sequence[str], rows: Iterable[dict[str, Any]]) -> str:
    """RFC 4180 CSV (CRLF line ends, fields quoted where needed) with a header row."""
    out = io.StringIO()
    writer = csv.writer(out, quoting=csv.QUOTE_MINIMAL, lineterminator="\r\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([safe_cell(row.get(column)) for column in columns])
    return out.getvalue()


def point(lon: float | None, lat: float | None) -> dict[str, Any] | None:
    """A GeoJSON Point; RFC 7946 positions are [longitude, latitude] in WGS 84."""
    if lon is None or lat is None:
        return None
    return {"type": "Point", "coordinates": [float(lon), float(lat)]}


def polygon(value: Any) -> dict[str, Any] | None:
    """The stored limit of work as a Polygon geometry (a stored Feature is unwrapped)."""
    if isinstance(value, dict) and value.get("type") == "Feature":
        value = value.get("geometry")
    if isinstance(value, dict) and value.get("type") in ("Polygon", "MultiPolygon") and value.get("coordinates"):
        return {"type": value["type"], "coordinates": value["coordinates"]}
    return None


def feature(feature_id: str, geometry: dict[str, Any], properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "Feature", "id": feature_id, "geometry": geometry, "properties": _plain(properties)}


def collection(name: str, features: list[dict[str, Any]]) -> dict[str, Any]:
    # "name" is not part of RFC 7946 but GDAL/QGIS use it as the layer name; readers ignore unknown members.
    return {"type": "FeatureCollection", "name": name, "features": features}


def permit_features(permit_id: str, site: dict[str, Any] | None, limit_of_work: Any, properties: dict[str, Any],
                    layers: Sequence[str] = PERMIT_LAYERS) -> list[dict[str, Any]]:
    """One Feature per geometry, so each feature has one simple geometry type that every GIS reads: the site
    point (`feature: "site"`, id = permit id) and, where drawn, the limit-of-work polygon
    (`feature: "limit_of_work"`, id = "<permit id>/limit_of_work"). Both carry the same permit properties."""
    out = []
    if "site" in layers and site is not None:
        out.append(feature(permit_id, site, {**properties, "feature": "site"}))
    area = polygon(limit_of_work)
    if "limit_of_work" in layers and area is not None:
        out.append(feature(f"{permit_id}/limit_of_work", area, {**properties, "feature": "limit_of_work"}))
    return out


def count_by(values: Iterable[str], keys: Sequence[str] = ()) -> dict[str, int]:
    """Counts per key, listing every known key (with 0) first, then any others seen."""
    counts = {key: 0 for key in keys}
    for value in values:
        counts[value] = counts.get(value, 0) + 1
    return counts


def range_problem(start: date, end: date) -> str | None:
    if end < start:
        return "`to` must be on or after `from`."
    return None


def _plain(value: Any) -> Any:
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value
