"""Violations, penalty exposure (R-P1), citations and the fine schedule (R-P2): load, check, change, flush.

Nothing here asserts a court's fine: exposure is the statutory maximum, and a citation carries the
town schedule's fine for non-criminal disposition, which a violator may contest in court.
"""
from __future__ import annotations

from datetime import date
from typing import Any

from sqlalchemy import Select, select
from flask import current_app

from .. import audit, clock, renditions, signals
from ..auth.permissions import current_device_id
from ..errors import Conflict, NotFound, ValidationFailed
from ..extensions import db
from ..inspections.models import Inspection
from ..permits.access import get_visible_permit, permit_visible
from ..permits.models import Permit, PermitCondition
from ..records import bump, check_version, existing_for_create
from . import rules
from .models import Citation, FineSchedule, Violation
from ..numbering import next_number
from ..paging import page_query
from ..photos.models import Photo
from .schemas_penalties import CitationSchema, FineScheduleSchema, ViolationSchema
from .services import missing_findings, require_supervisor
from ..auth.models import User
from .notices_pdf import citation_pdf

VIOLATION_FIELDS = ("provision_kind", "condition_id", "provision", "description", "first_observed_on",
                    "last_observed_on", "finding_ids", "photo_ids", "inspection_ids", "referral_note",
                    "court_case_note")


# --- violations ----------------------------------------------------------------------------------
def visible_violations(user) -> Select:
    return select(Violation).where(permit_visible(Violation.permit_id, user))


def list_violations(user, args: dict[str, Any]) -> tuple[list[Violation], int]:
    query = visible_violations(user)
    if args.get("permit_id"):
        query = query.where(Violation.permit_id == str(args["permit_id"]))
    return page_query(query.order_by(Violation.first_observed_on, Violation.id), args)


def get_violation(user, record_id: str) -> Violation:
    record = db.session.scalar(visible_violations(user).where(Violation.id == str(record_id)))
    if record is None:
        raise NotFound("No such violation.")
    return record


def dump_violation(record: Violation) -> dict[str, Any]:
    return ViolationSchema().dump(record)


def _values(data: dict[str, Any]) -> dict[str, Any]:
    values = {k: data[k] for k in VIOLATION_FIELDS if k in data}
    for key in ("finding_ids", "photo_ids", "inspection_ids"):
        if key in values:
            values[key] = [str(v) for v in values[key]]
    if values.get("condition_id") is not None:
        values["condition_id"] = str(values["condition_id"])
    return values


def _check_violation(permit_id: str, v: dict[str, Any]) -> None:
    errors: dict[str, list[str]] = {}
    # A condition named under any provision kind must be this permit's (R-C3): the exposure counts it
    # as that condition, and an id of no condition would otherwise reach the database as a broken key.
    condition = db.session.get(PermitCondition, v["condition_id"]) if v.get("condition_id") else None
    if v.get("condition_id") and (condition is None or condition.permit_id != permit_id):
        errors["condition_id"] = ["No such condition of this permit (R-C3)."]
    elif v["provision_kind"] == "permit_condition" and condition is None:
        errors["condition_id"] = ["Give a condition of this permit (R-C3)."]
    if v["provision_kind"] != "permit_condition" and not (v.get("provision") or "").strip():
        errors["provision"] = ["Name the bylaw section or the plan provision breached (R-C4)."]
    if v.get("last_observed_on") and v["last_observed_on"] < v["first_observed_on"]:
        errors["last_observed_on"] = ["Cannot be before the first day observed."]
    if v["first_observed_on"] > clock.today():
        errors["first_observed_on"] = ["Cannot be in the future."]
    missing = missing_findings(permit_id, v.get("finding_ids") or [])
    if missing:
        errors["finding_ids"] = [f"No finding {fid} on this permit." for fid in missing]
    missing = _missing_evidence(permit_id, v)
    for key, ids in missing.items():
        errors[key] = [f"No {key[:-4]} {i} on this permit." for i in ids]
    if errors:
        raise ValidationFailed(errors=errors)


def _missing_evidence(permit_id: str, v: dict[str, Any]) -> dict[str, list[str]]:
    """Inspections and photos must be this permit's. Photos may still be uploading from a device
    (API.md: a record may reference a photo not yet uploaded), so only a photo of another permit is refused."""
    missing: dict[str, list[str]] = {}
    ids = v.get("inspection_ids") or []
    query = select(Inspection.id).where(Inspection.id.in_(ids), Inspection.permit_id == permit_id)
    found = set(db.session.scalars(query)) if ids else set()
    if set(ids) - found:
        missing["inspection_ids"] = sorted(set(ids) - found)
    ids = v.get("photo_ids") or []
    other = set(db.session.scalars(select(Photo.id).where(Photo.id.in_(ids), Photo.permit_id != permit_id))) \
        if ids else set()
    if other:
        missing["photo_ids"] = sorted(other)
    return missing


def create_violation(user, data: dict[str, Any]) -> tuple[Violation, bool]:
    require_supervisor(user, "record violations")
    permit = get_visible_permit(user, str(data["permit_id"]))
    values = _values(data)
    record_id = str(data["id"]) if data.get("id") else None
    existing = existing_for_create(Violation, record_id, lambda rec: rec.permit_id == permit.id and all(
        getattr(rec, k) == values.get(k) for k in ("provision_kind", "condition_id", "first_observed_on")))
    if existing is not None:
        return existing, False
    _check_violation(permit.id, values)
    record = Violation(id=record_id, permit_id=permit.id, created_by=user.id, device_id=current_device_id(), **values)
    db.session.add(record)
    db.session.flush()
    audit.record("violation.create", "violation", record.id, values, actor=user, permit_id=permit.id)
    return record, True


def update_violation(user, record: Violation, data: dict[str, Any], expected_version: int | None) -> Violation:
    """Extend or end the run of days, add evidence, note a referral or a court case (R-P3)."""
    require_supervisor(user, "change violations")
    check_version(record, expected_version, dump_violation)
    before = dump_violation(record)
    values = {**{k: getattr(record, k) for k in VIOLATION_FIELDS}, **_values(data)}
    _check_violation(record.permit_id, values)
    for key, value in _values(data).items():
        setattr(record, key, value)
    bump(record)
    db.session.flush()
    audit.record("violation.update", "violation", record.id, audit.diff(before, dump_violation(record)),
                 actor=user, permit_id=record.permit_id)
    return record


def _provision_key(v: Violation) -> str:
    if v.condition_id:
        return f"condition:{v.condition_id}"
    return f"{v.provision_kind}:{rules.normal_key(v.provision or '')}"


def penalty_exposure(user, permit_id: str, through: date | None = None) -> dict[str, Any]:
    """R-P1: days × conditions, at most $300 each; the maximum exposure, never a fine."""
    permit = get_visible_permit(user, permit_id)
    through = through or clock.today()
    violations = list(db.session.scalars(select(Violation).where(Violation.permit_id == permit.id)
                                         .order_by(Violation.first_observed_on, Violation.created_at, Violation.id)))
    spans = [rules.ViolationSpan(_provision_key(v), v.first_observed_on, v.last_observed_on) for v in violations]
    exposures = rules.penalty_exposure(spans, through)
    numbers = {c.id: c.number for c in permit.conditions} if hasattr(permit, "conditions") else {}
    rows = [{"id": v.id, "provision_kind": v.provision_kind, "condition_id": v.condition_id,
             "condition_number": numbers.get(v.condition_id), "provision": v.provision,
             "first_observed_on": v.first_observed_on, "last_observed_on": v.last_observed_on,
             "days": e.days, "offenses": e.offenses, "max_penalty_usd": e.max_penalty}
            for v, e in zip(violations, exposures)]
    offenses = sum(e.offenses for e in exposures)
    return {"permit_id": permit.id, "through": through, "violations": rows, "offense_count": offenses,
            "penalty_per_offense_usd": rules.MAX_PENALTY_PER_OFFENSE,
            "max_penalty_usd": rules.MAX_PENALTY_PER_OFFENSE * offenses, "note": rules.EXPOSURE_NOTE}


# --- fine schedule -------------------------------------------------------------------------------
def fine_schedule() -> FineSchedule:
    schedule = db.session.get(FineSchedule, "default")
    if schedule is None:
        raise NotFound("No fine schedule is configured.")
    return schedule


def set_fine_schedule(user, data: dict[str, Any]) -> FineSchedule:
    require_supervisor(user, "set the fine schedule")
    schedule = fine_schedule()
    before = FineScheduleSchema().dump(schedule)
    for key in ("first_offense", "second_offense", "third_and_subsequent"):
        setattr(schedule, key, data[key])
    schedule.version += 1
    schedule.updated_by = user.id
    db.session.flush()
    audit.record("fine_schedule.update", "fine_schedule", schedule.key,
                 audit.diff(before, FineScheduleSchema().dump(schedule)), actor=user)
    return schedule


# --- citations -----------------------------------------------------------------------------------
def visible_citations(user) -> Select:
    return select(Citation).where(permit_visible(Citation.permit_id, user))


def list_citations(user, args: dict[str, Any]) -> tuple[list[Citation], int]:
    query = visible_citations(user)
    for key in ("permit_id", "violation_id"):
        if args.get(key):
            query = query.where(getattr(Citation, key) == str(args[key]))
    return page_query(query.order_by(Citation.offense_on, Citation.number), args)


def get_citation(user, record_id: str) -> Citation:
    record = db.session.scalar(visible_citations(user).where(Citation.id == str(record_id)))
    if record is None:
        raise NotFound("No such citation.")
    return record


def issued_citation(record: Citation) -> renditions.IssuedDocument:
    """R-P2: the citation as a ticket to hand the violator, as issued when it was written (signed when
    the Town has a key); a citation written before documents were stored here is issued on first request.
    Delivery recorded later is kept on the citation, not restated on the ticket handed over."""
    def render(note: str) -> bytes:
        permit = db.session.get(Permit, record.permit_id)
        violation = db.session.get(Violation, record.violation_id)
        issuer = db.session.get(User, record.created_by) if record.created_by else None
        return citation_pdf(record, permit, violation, issuer, current_app.config["CITATION_PAY_TO"],
                            current_app.config["CITATION_COURT"], note=note)
    return renditions.issued("citation", record.id, render, permit_id=record.permit_id)


def citation_document(record: Citation) -> bytes:
    """The bytes of the citation as issued: the download and the e-mailed copy."""
    return renditions.issued_bytes(issued_citation(record))


def dump_citation(record: Citation) -> dict[str, Any]:
    return CitationSchema().dump(record)


def create_citation(user, data: dict[str, Any]) -> tuple[Citation, bool]:
    """R-P2: a non-criminal citation; its offense number counts the same violator's citations for the
    same provision within the 12 months before, and its fine comes from the schedule."""
    require_supervisor(user, "issue citations")
    violation = get_violation(user, str(data["violation_id"]))
    violator_key, provision_key = rules.normal_key(data["violator"]["name"]), _provision_key(violation)
    record_id = str(data["id"]) if data.get("id") else None
    existing = existing_for_create(Citation, record_id, lambda rec: (
        rec.violation_id == violation.id and rec.violator_key == violator_key and rec.offense_on == data["offense_on"]))
    if existing is not None:
        return existing, False
    _check_offense_day(violation, data["offense_on"], data.get("delivery"))
    prior = list(db.session.scalars(select(Citation.offense_on).where(
        Citation.violator_key == violator_key, Citation.provision_key == provision_key,
        Citation.offense_on >= rules.twelve_months_before(data["offense_on"]),
        Citation.offense_on <= data["offense_on"])))
    if data["offense_on"] in prior:
        raise Conflict("This violator already has a citation for this provision on that day (one offense a day).",
                       error="duplicate_citation")
    number = rules.offense_number(prior, data["offense_on"])
    schedule = fine_schedule()
    delivery = data.get("delivery") or {}
    record = Citation(
        id=record_id, permit_id=violation.permit_id, violation_id=violation.id,
        number=next_number("CIT", data["offense_on"].year), violator_name=data["violator"]["name"].strip(),
        violator_key=violator_key, violator_address=data["violator"].get("address"), provision_key=provision_key,
        offense_on=data["offense_on"], bylaw_section=data["bylaw_section"].strip(), offense_number=number,
        fine_amount=rules.scheduled_fine(number, schedule.first_offense, schedule.second_offense,
                                         schedule.third_and_subsequent),
        delivery_method=delivery.get("method"), delivered_on=delivery.get("delivered_on"), notes=data.get("notes"),
        created_by=user.id, device_id=current_device_id())
    db.session.add(record)
    db.session.flush()
    audit.record("citation.create", "citation", record.id, dump_citation(record), actor=user,
                 permit_id=record.permit_id)
    issued_citation(record)
    signals.citation_created.send(record, actor=user)  # R-P2: the cited person is sent the citation
    return record, True


def _check_offense_day(violation: Violation, offense_on: date, delivery: dict | None) -> None:
    last = violation.last_observed_on or clock.today()
    if not violation.first_observed_on <= offense_on <= last:
        raise ValidationFailed(errors={"offense_on": [
            f"Must be a day of the violation ({violation.first_observed_on.isoformat()} to {last.isoformat()})."]})
    _check_delivery(offense_on, delivery)


def _check_delivery(offense_on: date, delivery: dict | None) -> None:
    if delivery and delivery.get("delivered_on") and delivery["delivered_on"] < offense_on:
        raise ValidationFailed(errors={"delivery": ["Cannot be delivered before the offense."]})


def update_citation(user, record: Citation, data: dict[str, Any], expected_version: int | None) -> Citation:
    """Record delivery (which starts the 21 days), notes and a court case note."""
    require_supervisor(user, "change citations")
    check_version(record, expected_version, dump_citation)
    before = dump_citation(record)
    if "delivery" in data:
        delivery = data["delivery"] or {}
        _check_delivery(record.offense_on, delivery)
        record.delivery_method, record.delivered_on = delivery.get("method"), delivery.get("delivered_on")
    for key in ("notes", "court_case_note"):
        if key in data:
            setattr(record, key, data[key])
    bump(record)
    db.session.flush()
    audit.record("citation.update", "citation", record.id, audit.diff(before, dump_citation(record)),
                 actor=user, permit_id=record.permit_id)
    return record
