"""Applicants' inspection requests: post-installation (controls are in), final (work is done) or a
re-inspection after a correction, with preferred days and a note. A request is a due item for the
assigned inspector until an inspection of its kind is recorded after it; the applicant then sees when.

Who may ask (decisions, README "Inspection program"): the permit's applicant, or a supervisor on their
behalf; post-installation while the permit is approved, issued or active; final and re-inspection while
work is active or reported complete. Preferred days lie from today to a year ahead (Town days).

A complaint inspection is never asked for this way: a supervisor makes one due by linking a report from
the public to a site, or opening an enforcement case from it (`request_complaint_inspection`, called by
the public domain's triage), at any site the Town has on record (rules.COMPLAINT_SITES).
"""
from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import Select, func, select

from .. import audit, clock
from ..auth.permissions import current_device_id
from ..errors import Conflict, Forbidden, ValidationFailed, NotFound
from ..extensions import db
from ..permits.access import get_visible_permit, permit_visible
from ..permits.models import Permit
from ..records import existing_for_create
from . import rules
from .models import InspectionRequest
from .schemas import InspectionRequestSchema
from .services import as_request, program, settings

ALLOWED_STATUSES = {"post_installation": ("approved", "issued", "active"),
                    "final": ("active", "work_complete"), "re_inspection": ("active", "work_complete")}
MAX_DAYS_AHEAD = 365
_schema = InspectionRequestSchema()


def visible_inspection_requests(user) -> Select:
    return select(InspectionRequest).where(permit_visible(InspectionRequest.permit_id, user))


def _status(records: list[InspectionRequest]) -> dict[str, rules.Obligation]:
    """The obligation each request became, met or not, keyed by request id."""
    permit_ids = {r.permit_id for r in records}
    if not permit_ids:
        return {}
    permits = list(db.session.scalars(select(Permit).where(Permit.id.in_(permit_ids))))
    return {o.source_id: o for _p, found in program(permits) for o in found if o.source == "request"}


def _annotate(record: InspectionRequest, obligation: rules.Obligation | None) -> InspectionRequest:
    """Attach what the request became (computed, never stored): its due time and when it was done."""
    if obligation is None:  # the permit left the program (withdrawn, denied): the request is owed nothing more
        obligation = rules.Obligation(record.permit_id, rules.REQUEST_KINDS[record.kind], "",
                                      rules.request_due_at(as_request(record), settings()))
    record.inspection_kind = rules.REQUEST_KINDS[record.kind]
    record.due_at = obligation.due_at
    record.status = "done" if obligation.done else "open"
    record.done_at = obligation.done_at
    record.inspection_id = obligation.inspection_id
    return record


def annotated(records: list[InspectionRequest]) -> list[InspectionRequest]:
    status = _status(records)
    return [_annotate(r, status.get(r.id)) for r in records]


def dump_inspection_request(record: InspectionRequest) -> dict[str, Any]:
    return _schema.dump(annotated([record])[0])


def _check(user, permit: Permit, data: dict[str, Any]) -> list[str]:
    if data["kind"] == "complaint":
        raise ValidationFailed(errors={"kind": [
            "A complaint inspection is made due by a supervisor triaging a report from the public."]})
    if user.role == "applicant" and permit.applicant_id != user.id:
        raise Forbidden("Only the permit's applicant may ask for its inspections.")
    if user.role not in ("applicant", "supervisor"):
        raise Forbidden("Applicants ask for inspections (supervisors may file one on their behalf).")
    allowed = ALLOWED_STATUSES[data["kind"]]
    if permit.status not in allowed:
        raise Conflict(f"A {data['kind'].replace('_', '-')} inspection can be requested while the permit is "
                       f"{' or '.join(s.replace('_', ' ') for s in allowed)}; this one is "
                       f"{permit.status.replace('_', ' ')}.", error="invalid_transition")
    today = clock.today()
    late = today + timedelta(days=MAX_DAYS_AHEAD)
    bad = [d.isoformat() for d in data["preferred_dates"] if not today <= d <= late]
    if bad:
        raise ValidationFailed(errors={"preferred_dates": [
            f"Preferred days run from today ({today.isoformat()}) to a year ahead; not {', '.join(bad)}."]})
    return sorted({d.isoformat() for d in data["preferred_dates"]})


def create_inspection_request(user, data: dict[str, Any]) -> tuple[InspectionRequest, bool]:
    permit = get_visible_permit(user, str(data["permit_id"]), for_update=True)
    record_id = str(data["id"]) if data.get("id") else None
    existing = existing_for_create(InspectionRequest, record_id, lambda r: (
        r.permit_id == permit.id and r.kind == data["kind"] and (r.note or None) == (data.get("note") or None)))
    if existing is not None:
        return existing, False
    days = _check(user, permit, data)
    # The Town's clock (not the database's default): the request's time is when the obligation opens.
    record = InspectionRequest(permit_id=permit.id, kind=data["kind"], preferred_dates=days,
                               note=data.get("note") or None, created_by=user.id, device_id=current_device_id(),
                               device_created_at=data.get("device_created_at"), created_at=clock.now())
    if record_id:
        record.id = record_id
    db.session.add(record)
    db.session.flush()
    audit.record("inspection_request.create", "inspection_request", record.id,
                 {"kind": record.kind, "preferred_dates": days, "note": record.note}, actor=user, permit_id=permit.id)
    return record, True


def request_complaint_inspection(user, permit: Permit, note: str | None) -> InspectionRequest:
    """Make a complaint inspection due at `permit`'s site (R-I1): owed `response_days` after today, met
    only by a complaint inspection started after now. Supervisors only; the site must be one the Town
    has on record (not a draft or a withdrawn application)."""
    if user.role != "supervisor":
        raise Forbidden("Only supervisors make a complaint inspection due.")
    if permit.status not in rules.COMPLAINT_SITES:
        raise Conflict(f"A complaint inspection cannot be made due at a {permit.status.replace('_', ' ')} "
                       "application; open an enforcement case for the site instead.", error="invalid_transition")
    record = InspectionRequest(permit_id=permit.id, kind="complaint", preferred_dates=[], note=note or None,
                               created_by=user.id, device_id=current_device_id(), created_at=clock.now())
    db.session.add(record)
    db.session.flush()
    audit.record("inspection_request.create", "inspection_request", record.id,
                 {"kind": record.kind, "preferred_dates": [], "note": record.note}, actor=user, permit_id=permit.id)
    return record


def get_inspection_request(user, record_id: str) -> InspectionRequest:
    record = db.session.scalar(visible_inspection_requests(user).where(InspectionRequest.id == str(record_id)))
    if record is None:
        raise NotFound("No such inspection request.")
    return record


def list_inspection_requests(user, args: dict[str, Any]) -> tuple[list[InspectionRequest], int]:
    query = visible_inspection_requests(user)
    if args.get("permit_id"):
        query = query.where(InspectionRequest.permit_id == get_visible_permit(user, str(args["permit_id"])).id)
    total = db.session.scalar(select(func.count()).select_from(query.subquery()))
    page = query.order_by(InspectionRequest.created_at.desc(), InspectionRequest.id).limit(args["limit"]).offset(
        args["offset"])
    return list(db.session.scalars(page)), total
