"""The inspection program over stored records: load each site's facts in a few queries, let rules.py
derive what it owes, and answer the due list, the overdue rows of the deadlines view and the MS4 counts.

Nothing here is stored: every answer is computed from permits (R-C2 dates), recorded inspections,
findings (R-I4), storm events and requests as they stand, so a late inspection, a changed setting or a
new storm shows at once.
"""
from __future__ import annotations

from collections import defaultdict
from datetime import date, datetime, time, timezone
from decimal import Decimal, InvalidOperation
from typing import Any

from flask import current_app
from sqlalchemy import Select, and_, or_, select

from .. import clock
from ..extensions import db
from ..paging import chunks
from ..inspections.models import Finding, Inspection
from ..permits.access import assigned_permit_ids, get_visible_permit, permit_visible
from ..permits.models import Permit, PermitEvent
from . import rules
from .models import InspectionRequest, StormEvent

_PERMITS_AT_ONCE = 900  # permit ids per IN (...) list
RECORDED = ("submitted", "approved", "returned")  # a draft is the inspector's working copy, not yet recorded


def settings() -> rules.Settings:
    """The Town's settings (README "Inspection program"); a bad value stops the request with a clear error."""
    cfg = current_app.config
    try:
        threshold = Decimal(str(cfg.get("STORM_THRESHOLD_INCHES", "0.25")))
    except InvalidOperation:
        raise RuntimeError("STORM_THRESHOLD_INCHES must be a number of inches, e.g. 0.25") from None
    values = rules.Settings(routine_days=int(cfg.get("INSPECTION_ROUTINE_DAYS", 14)),
                            storm_threshold_inches=threshold,
                            storm_window_hours=int(cfg.get("STORM_WINDOW_HOURS", 24)),
                            response_days=int(cfg.get("INSPECTION_RESPONSE_DAYS", 5)), tz=clock.town_zone())
    if values.routine_days < 1 or values.storm_window_hours < 1 or values.response_days < 0 or threshold <= 0:
        raise RuntimeError("INSPECTION_ROUTINE_DAYS and STORM_WINDOW_HOURS must be at least 1, "
                           "INSPECTION_RESPONSE_DAYS at least 0 and STORM_THRESHOLD_INCHES above 0")
    return values


def settings_dump(values: rules.Settings | None = None) -> dict[str, Any]:
    values = values or settings()
    return {"routine_days": values.routine_days, "storm_threshold_inches": f"{values.storm_threshold_inches:.2f}",
            "storm_window_hours": values.storm_window_hours, "response_days": values.response_days,
            "timezone": str(values.tz.key)}


# ---- loading a set of sites ------------------------------------------------------------------------
def _site(permit: Permit, decided: dict[str, datetime]) -> rules.Site:
    # A permit moved without its decision on record (imported, or set up by hand) counts from its creation.
    return rules.Site(permit.id, permit.status, permit.decided_at or decided.get(permit.id) or permit.created_at,
                      permit.work_commenced_on, permit.work_completed_on)


def _decisions(permit_ids: list[str]) -> dict[str, datetime]:
    """When each permit was approved or issued, for permits whose own decided_at is not set (moved by hand)."""
    rows = db.session.execute(select(PermitEvent.permit_id, PermitEvent.at).where(
        PermitEvent.permit_id.in_(permit_ids), PermitEvent.to_status.in_(("approved", "issued")))
        .order_by(PermitEvent.at))
    out: dict[str, datetime] = {}
    for permit_id, at in rows:
        out.setdefault(permit_id, at)
    return out


def _visits(permit_ids: list[str]) -> tuple[dict[str, list[rules.Visit]], dict[str, datetime]]:
    visits: dict[str, list[rules.Visit]] = defaultdict(list)
    started: dict[str, datetime] = {}
    for chunk in chunks(permit_ids, _PERMITS_AT_ONCE):
        for row in db.session.execute(select(
                Inspection.id, Inspection.permit_id, Inspection.kind, Inspection.started_at,
                Inspection.verifies_finding_ids, Inspection.status).where(
                Inspection.permit_id.in_(chunk), Inspection.deleted_at.is_(None))):
            started[row.id] = row.started_at
            if row.status in RECORDED:
                visits[row.permit_id].append(rules.Visit(row.id, row.kind, row.started_at,
                                                         tuple(str(i) for i in (row.verifies_finding_ids or []))))
    return visits, started


def _findings(permit_ids: list[str], started: dict[str, datetime]) -> dict[str, list[rules.FindingDue]]:
    out: dict[str, list[rules.FindingDue]] = defaultdict(list)
    for chunk in chunks(permit_ids, _PERMITS_AT_ONCE):
        for f in db.session.execute(select(Finding.id, Finding.permit_id, Finding.due_on, Finding.status,
                                           Finding.verified_by_inspection_id).where(
                Finding.permit_id.in_(chunk), Finding.deleted_at.is_(None))):
            by = f.verified_by_inspection_id
            out[f.permit_id].append(rules.FindingDue(f.id, f.due_on, f.status, started.get(by) if by else None, by))
    return out


def _requests(permit_ids: list[str]) -> dict[str, list[InspectionRequest]]:
    out: dict[str, list[InspectionRequest]] = defaultdict(list)
    for chunk in chunks(permit_ids, _PERMITS_AT_ONCE):
        for r in db.session.scalars(select(InspectionRequest).where(InspectionRequest.permit_id.in_(chunk))):
            out[r.permit_id].append(r)
    return out


def as_request(record: InspectionRequest) -> rules.Request:
    return rules.Request(record.id, record.kind, record.created_at, record.preferred_days, record.note)


def _storms(permits: list[Permit]) -> list[rules.Storm]:
    starts = [p.work_commenced_on for p in permits if p.work_commenced_on]
    if not starts:
        return []
    since = rules.start_of_day(min(starts), clock.town_zone())
    return [rules.Storm(s.id, s.ended_at, s.inches)
            for s in db.session.scalars(select(StormEvent).where(StormEvent.ended_at >= since))]


def program(permits: list[Permit], values: rules.Settings | None = None) -> list[tuple[Permit, list[rules.Obligation]]]:
    """Every obligation of each permit, met or not."""
    values = values or settings()
    permits = [p for p in permits if p.status in rules.COMPLAINT_SITES]  # the program's sites and complaints
    if not permits:
        return []
    ids = [p.id for p in permits]
    decided = _decisions([p.id for p in permits if p.decided_at is None])
    visits, started = _visits(ids)
    findings = _findings(ids, started)
    requests = _requests(ids)
    storms = _storms(permits)
    return [(p, rules.obligations(_site(p, decided), visits.get(p.id, []), storms, findings.get(p.id, []),
                                  [as_request(r) for r in requests.get(p.id, [])], values)) for p in permits]


# ---- the due list ------------------------------------------------------------------------------------
def _item(permit: Permit, obligation: rules.Obligation, now: datetime) -> dict[str, Any]:
    return {"permit_id": permit.id, "permit_number": permit.number, "site_address": permit.site_address,
            "site_location": {"lat": permit.site_lat, "lon": permit.site_lon}, "kind": obligation.kind,
            "reason": obligation.reason, "due_at": obligation.due_at, "overdue": obligation.overdue(now),
            "binding": obligation.binding, "source": obligation.source, "source_id": obligation.source_id,
            "rules": list(obligation.rules)}


def _before(value: date | datetime | None) -> datetime | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=clock.town_zone())
    return datetime.combine(value, time(0, 0), tzinfo=clock.town_zone()).astimezone(timezone.utc)


def listed_sites():
    """The permits whose due inspections are listed: those in the program, and any other on record a
    complaint from the public was made due at (rules.COMPLAINT_SITES)."""
    complained = select(InspectionRequest.permit_id).where(InspectionRequest.kind == "complaint")
    return or_(Permit.status.in_(rules.LISTED),
               and_(Permit.status.in_(rules.COMPLAINT_SITES), Permit.id.in_(complained)))


def _site_query(user, args: dict[str, Any]) -> Select:
    query = select(Permit).where(permit_visible(Permit.id, user), listed_sites())
    if args.get("assigned_to") == "me":
        query = query.where(Permit.id.in_(assigned_permit_ids(user)))
    if args.get("permit_id"):
        # A permit the caller may not see answers 404, like every id a request names.
        query = query.where(Permit.id == get_visible_permit(user, args["permit_id"]).id)
    return query


def list_due(user, args: dict[str, Any]) -> tuple[list[dict[str, Any]], int]:
    """What is due and not yet done at the sites the caller may see, soonest first (R-I1)."""
    now = clock.now()
    before = _before(args.get("before"))
    items = []
    for permit, obligations in program(list(db.session.scalars(_site_query(user, args)))):
        for obligation in rules.due(obligations, permit.status, now):
            if args.get("kind") and obligation.kind != args["kind"]:
                continue
            if before is not None and obligation.due_at >= before:
                continue
            if args.get("overdue") is not None and obligation.overdue(now) != args["overdue"]:
                continue
            items.append(_item(permit, obligation, now))
    items.sort(key=lambda i: (i["due_at"], rules.KINDS.index(i["kind"]), i["permit_number"] or "", i["permit_id"],
                              i["source_id"] or ""))
    offset, limit = args.get("offset", 0), args.get("limit", 50)
    return items[offset:offset + limit], len(items)


def overdue_inspections(before: date, today: date) -> list[dict[str, Any]]:
    """Rows for the supervisors' deadlines view: every overdue inspection at a site still in the program."""
    now = clock.now()
    permits = list(db.session.scalars(select(Permit).where(listed_sites())))
    rows = []
    tz = clock.town_zone()
    for permit, obligations in program(permits):
        for o in rules.due(obligations, permit.status, now):
            day = rules.local_day(o.due_at, tz)
            # A finding's follow-up falls due with the finding itself, which the view already lists.
            if o.overdue(now) and day < before and o.source != "finding":
                rows.append({"due_on": day, "permit_id": permit.id, "kind": o.kind, "reason": o.reason,
                             "record_type": o.source if o.source in ("finding", "storm", "request") else "permit",
                             "record_id": o.source_id or permit.id})
    return rows


def month_counts(permit_query: Select, start: date, end: date) -> list[dict[str, Any]]:
    """MS4 annual report: inspections due, on time, late, not done and missed, per kind and month
    (rules.month_counts)."""
    now = clock.now()
    obligations = [o for _p, found in program(list(db.session.scalars(permit_query))) for o in found]
    return [vars(row) for row in rules.month_counts(obligations, start, end, now, clock.town_zone())]
