"""Permits anyone may look up, with no account (API.md "Public"; MS4 permit, 40 CFR 122.34(b)(4)(ii)).

The API (routes_lookup.py) and the public pages (pages.py) call the same three functions, so what
the public reads is decided once, here:

- `search(args: dict) -> tuple[list[dict], int, str | None]`
  `args` holds `q`, `street`, `status`, `near` (a `(lat, lon)` tuple or None), `limit`, `cursor`
  (each may be absent or None). Returns the page's items (plain dicts in the public shape below), the
  total matching the filters over all pages, and the cursor of the next page (None on the last).
  A `status` that is not public, or a cursor this search did not make, raises
  errors.ValidationFailed (422) naming the field; `limit` is held to 1..MAX_LIMIT.
- `get_by_number(number: str) -> dict`
  One item. An unknown number and a number that is not public raise the same errors.NotFound, so
  nobody learns that a record they may not read exists.
- `active_sites() -> list[dict]`
  For a map: the public permits whose work is approved, issued or under way, and the enforcement
  cases with an order open, that have a site point; items in the same shape, by number.

The public shape, and nothing else ever (no party's name or contact, no applicant, no document, no
photo, no finding's text, no id of a record or a user): `number, review_level, status, status_date,
address, site {lat, lon} | null, limit_of_work (GeoJSON) | null, applied_on, decided_on,
work_started_on, completed_on, certificate_issued, open_orders {count, kinds}`, plus `distance_m` when
the search is near a point (nearest first). Dates are ISO `YYYY-MM-DD` strings (the Town's calendar
day of a stored instant) or None.

What is public (README "The public"): an application once the Town has received it, whatever became
of it (submitted, under review, approved, issued, denied, active, work complete, closed), and an
enforcement case (status `unpermitted`) once its first order is issued, from then on. Never a draft,
never a withdrawn application, never a record without a number (an exemption claim gets none, so
there is nothing to look it up by).

Every list loads its page and what the page shows in a fixed number of queries (the rows with their
status day and certificate; the open orders of the whole page), whatever the page size.
"""
from __future__ import annotations

import base64
import binascii
import json
import math
from datetime import date, datetime, timezone
from typing import Any, Iterable, Sequence

import sqlalchemy as sa
from sqlalchemy import func, select

from .. import clock
from ..completion.models import Certificate
from ..enforcement.models import Order
from ..enforcement.rules import ORDER_KINDS
from ..errors import NotFound, ValidationFailed
from ..extensions import db
from ..permits.models import Permit, PermitEvent
from ..photos.rules import EARTH_RADIUS_M

APPLICATION_STATUSES = ("submitted", "under_review", "approved", "issued", "denied", "active", "work_complete",
                        "closed")
CASE_STATUS = "unpermitted"  # an enforcement case (R-O0): public once it has an order
PUBLIC_STATUSES = APPLICATION_STATUSES + (CASE_STATUS,)
ACTIVE_STATUSES = ("approved", "issued", "active")  # the map's sites: work approved, issued or under way
OPEN_ORDER = "open"  # stored status of an order in force; "overdue" is an open one past its deadline

DEFAULT_LIMIT = 20
MAX_LIMIT = 100
CURSOR_FORMAT = 1

NEAR_FIELD = "distance_m"

# The column that dates each status, where the record keeps one; otherwise the status event's day.
STATUS_DAY_COLUMNS = {"submitted": "submitted_at", "approved": "decided_at", "issued": "decided_at",
                      "denied": "decided_at", "active": "work_commenced_on", "work_complete": "work_completed_on",
                      "closed": "closed_at"}


# ---- what is public ------------------------------------------------------------------------------
def _has_order() -> sa.ColumnElement[bool]:
    return select(Order.id).where(Order.permit_id == Permit.id).exists()


def _has_open_order() -> sa.ColumnElement[bool]:
    return select(Order.id).where(Order.permit_id == Permit.id, Order.status == OPEN_ORDER).exists()


def public_permits() -> sa.ColumnElement[bool]:
    """The one condition every public read applies: a numbered application the Town received and
    that was not withdrawn, or an enforcement case that has reached an order."""
    return sa.and_(Permit.number.is_not(None),
                   sa.or_(Permit.status.in_(APPLICATION_STATUSES),
                          sa.and_(Permit.status == CASE_STATUS, Permit.applicant_id.is_(None), _has_order())))


# The row each item is made from: only the columns the public shape needs (never the parties, the
# owner or the applicant), with the latest move into the current status and whether a certificate of
# completion exists, as subqueries of the same statement.
_STATUS_EVENT_AT = (select(func.max(PermitEvent.at))
                    .where(PermitEvent.permit_id == Permit.id, PermitEvent.to_status == Permit.status)
                    .correlate(Permit).scalar_subquery())
_CERTIFIED = select(Certificate.id).where(Certificate.permit_id == Permit.id).correlate(Permit).exists()
_COLUMNS = (Permit.id, Permit.number, Permit.status, Permit.review_level, Permit.site_address, Permit.site_lat,
            Permit.site_lon, Permit.limit_of_work, Permit.submitted_at, Permit.decided_at, Permit.work_commenced_on,
            Permit.work_completed_on, Permit.closed_at, Permit.created_at,
            _STATUS_EVENT_AT.label("status_event_at"), _CERTIFIED.label("certified"))


# ---- the three reads -----------------------------------------------------------------------------
def search(args: dict) -> tuple[list[dict], int, str | None]:
    near = _point(args.get("near"))
    limit = _limit(args.get("limit"))
    where = _filters(args)
    total = db.session.scalar(select(func.count()).select_from(Permit).where(*where))
    key, order = _sort_key(near)
    after = _decode_cursor(args.get("cursor"), near)
    if after is not None:
        where.append(_after(key, near, after))
    rows = db.session.execute(select(*_COLUMNS, key.label("sort_key")).where(*where)
                              .order_by(*order).limit(limit + 1)).all()
    more, rows = len(rows) > limit, rows[:limit]
    return _items(rows, near), total, _encode_cursor(rows[-1], near) if more else None


def get_by_number(number: str) -> dict:
    wanted = (number or "").strip().upper()
    row = db.session.execute(select(*_COLUMNS).where(public_permits(), Permit.number == wanted)).first() \
        if wanted else None
    if row is None:
        # The same answer for a number that does not exist and for one that is not public.
        raise NotFound("No such permit.")
    return _items([row], None)[0]


def active_sites() -> list[dict]:
    rows = db.session.execute(select(*_COLUMNS).where(
        public_permits(), Permit.site_lat.is_not(None), Permit.site_lon.is_not(None),
        sa.or_(Permit.status.in_(ACTIVE_STATUSES), sa.and_(Permit.status == CASE_STATUS, _has_open_order())))
        .order_by(Permit.number)).all()
    return _items(rows, None)


# ---- filters -------------------------------------------------------------------------------------
def _contains(text: str) -> str:
    return "%" + text.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def _filters(args: dict) -> list[sa.ColumnElement[bool]]:
    where = [public_permits()]
    q, street, status = (args.get(name) for name in ("q", "street", "status"))
    if q and q.strip():
        like = _contains(q.strip())
        where.append(sa.or_(func.lower(Permit.number).like(like, escape="\\"),
                            func.lower(Permit.site_address).like(like, escape="\\")))
    if street and street.strip():
        where.append(func.lower(Permit.site_address).like(_contains(street.strip()), escape="\\"))
    if status:
        if status not in PUBLIC_STATUSES:
            raise ValidationFailed(errors={"status": [f"Must be one of: {', '.join(PUBLIC_STATUSES)}."]})
        where.append(Permit.status == status)
    return where


def _limit(value: Any) -> int:
    if value in (None, ""):
        return DEFAULT_LIMIT
    try:
        return max(1, min(int(value), MAX_LIMIT))
    except (TypeError, ValueError):
        raise ValidationFailed(errors={"limit": [f"A whole number, 1 to {MAX_LIMIT}."]}) from None


def _point(near: Sequence[float] | None) -> tuple[float, float] | None:
    if near is None:
        return None
    lat, lon = (float(v) for v in near)
    if not (math.isfinite(lat) and math.isfinite(lon) and -90 <= lat <= 90 and -180 <= lon <= 180):
        raise ValidationFailed(errors={"near": ["Latitude -90..90 and longitude -180..180."]})
    return lat, lon


# ---- order and cursor ----------------------------------------------------------------------------
# Without a point: newest filing first (the day the Town received an application; the day a case was
# opened), the number breaking ties. Near a point: nearest first on the local plane (equirectangular,
# longitude scaled by the cosine of the point's latitude): plain arithmetic that SQLite and
# PostgreSQL both compute, and within a town's few kilometres it differs from the great circle by far
# less than a lot's width. The distance shown is the same measure, so the order and the figures agree.
def _sort_key(near: tuple[float, float] | None):
    if near is None:
        filed = func.coalesce(Permit.submitted_at, Permit.created_at)
        return filed, (filed.desc(), Permit.number.desc())
    lat, lon = near
    scale = math.cos(math.radians(lat))
    d_lat, d_lon = Permit.site_lat - lat, (Permit.site_lon - lon) * scale
    key = d_lat * d_lat + d_lon * d_lon
    return key, (key.asc(), Permit.number.asc())


def _after(key, near, after: tuple[Any, str]) -> sa.ColumnElement[bool]:
    value, number = after
    if near is None:
        return sa.or_(key < value, sa.and_(key == value, Permit.number < number))
    return sa.or_(key > value, sa.and_(key == value, Permit.number > number))


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def _encode_cursor(row, near: tuple[float, float] | None) -> str:
    """Where the next page starts: the last item's sort key and number (nothing that is not public),
    and the point the order was measured from."""
    key = row.sort_key.astimezone(timezone.utc).isoformat() if near is None else float(row.sort_key)
    body = {"v": CURSOR_FORMAT, "k": key, "n": row.number, "p": list(near) if near else None}
    return _b64(json.dumps(body, separators=(",", ":")).encode("utf-8"))


def _decode_cursor(token: str | None, near: tuple[float, float] | None) -> tuple[Any, str] | None:
    if not token:
        return None
    try:
        body = json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
        if body["v"] != CURSOR_FORMAT or not isinstance(body["n"], str):
            raise ValueError("format")
        point = tuple(float(v) for v in body["p"]) if body["p"] is not None else None
        if near is None:
            moment = datetime.fromisoformat(body["k"])
            key: Any = moment if moment.tzinfo is not None else None
        else:
            key = float(body["k"]) if not isinstance(body["k"], bool) else None
        if key is None or (isinstance(key, float) and not math.isfinite(key)):
            raise ValueError("key")
    except (ValueError, KeyError, TypeError, binascii.Error, UnicodeError):
        raise ValidationFailed("This cursor was not made by this search.",
                               errors={"cursor": ["Not a cursor this search made; start again without it."]}) from None
    if point != near:
        raise ValidationFailed("This cursor belongs to a search near another point.",
                               errors={"cursor": ["Made for another `near`; start again without it."]})
    return key, body["n"]


# ---- the public shape ----------------------------------------------------------------------------
def _day(value: date | datetime | None) -> date | None:
    if value is None:
        return None
    return clock.local_date(value) if isinstance(value, datetime) else value


def _iso(value: date | datetime | None) -> str | None:
    day = _day(value)
    return day.isoformat() if day else None


def _status_day(row) -> date | None:
    own = getattr(row, STATUS_DAY_COLUMNS[row.status]) if row.status in STATUS_DAY_COLUMNS else None
    return _day(own) or _day(row.status_event_at) or _day(row.created_at)


def _geometry(value: Any) -> dict | None:
    """The limit of work as GeoJSON geometry: its type and coordinates only, whatever else was kept."""
    if not isinstance(value, dict) or "type" not in value or "coordinates" not in value:
        return None
    return {"type": value["type"], "coordinates": value["coordinates"]}


def _open_orders(permit_ids: Iterable[str]) -> dict[str, list[list[str]]]:
    """The kinds of each open order on these permits, in one query."""
    ids = sorted(set(permit_ids))
    found: dict[str, list[list[str]]] = {}
    if not ids:
        return found
    for permit_id, kinds in db.session.execute(select(Order.permit_id, Order.kinds).where(
            Order.permit_id.in_(ids), Order.status == OPEN_ORDER)):
        found.setdefault(permit_id, []).append(list(kinds or []))
    return found


def _distance_m(row, near: tuple[float, float]) -> float:
    lat, lon = near
    d_lat = math.radians(row.site_lat - lat)
    d_lon = math.radians(row.site_lon - lon) * math.cos(math.radians(lat))
    return round(EARTH_RADIUS_M * math.hypot(d_lat, d_lon), 1)


def _items(rows: Sequence, near: tuple[float, float] | None) -> list[dict]:
    orders = _open_orders(row.id for row in rows)
    items = []
    for row in rows:
        open_orders = orders.get(row.id, [])
        kinds = {kind for order in open_orders for kind in order}
        has_point = row.site_lat is not None and row.site_lon is not None
        item = {
            "number": row.number, "review_level": row.review_level, "status": row.status,
            "status_date": _iso(_status_day(row)), "address": row.site_address,
            "site": {"lat": row.site_lat, "lon": row.site_lon} if has_point else None,
            "limit_of_work": _geometry(row.limit_of_work),
            "applied_on": _iso(row.submitted_at), "decided_on": _iso(row.decided_at),
            "work_started_on": _iso(row.work_commenced_on), "completed_on": _iso(row.work_completed_on),
            "certificate_issued": bool(row.certified),
            "open_orders": {"count": len(open_orders),
                            "kinds": [k for k in ORDER_KINDS if k in kinds] + sorted(kinds - set(ORDER_KINDS))},
        }
        if near is not None:
            item[NEAR_FIELD] = _distance_m(row, near) if has_point else None
        items.append(item)
    return items
