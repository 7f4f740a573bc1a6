"""Finding operations under the service convention (create_/update_/get_/visible_/dump_finding).

Most findings are raised by the system (deficient items, exceedances, R-A6); staff may also enter one
by hand. Supervisors adjust severity, the required action and the due date (with a reason).
"""
from __future__ import annotations

from typing import Any

from sqlalchemy import Select, bindparam

from .. import audit, clock
from ..auth.permissions import current_device_id
from ..errors import Forbidden, NotFound, ValidationFailed
from ..extensions import db
from ..paging import named_filters, page_of
from ..permits.access import VIEWER, check_field_work, get_visible_permit, scope_of, scope_values
from ..records import bump, check_version, existing_for_create
from . import findings
from .models import Finding, Inspection
from .schemas import FindingSchema

_dump_schema = FindingSchema()
CREATE_FIELDS = ("kind", "item_key", "severity", "description", "required_action", "needs_new_control",
                 "observed_on")


def visible_findings(user) -> Select:
    return findings.open_findings_query(user)


def list_findings(user, args: dict[str, Any]) -> tuple[list[Finding], int]:
    values = {**scope_values(user), **named_filters(args, ("permit_id", "inspection_id")), "on": clock.today()}
    shape = (scope_of(user), "permit_id" in values, args.get("status"), "inspection_id" in values)
    return page_of(_findings_page, shape, values, args)


def _findings_page(scope: str, by_permit: bool, status: str | None, by_inspection: bool) -> Select:
    """The findings list for any caller of `scope` (paging.page_of)."""
    query = findings.scoped_findings(scope, bindparam(VIEWER), permit=bindparam("permit_id") if by_permit else None,
                                     status=status, due_before=bindparam("on"))
    if by_inspection:
        query = query.where(Finding.inspection_id == bindparam("inspection_id"))
    return query


def get_finding(user, record_id: str) -> Finding:
    record = db.session.scalar(visible_findings(user).where(Finding.id == str(record_id)))
    if record is None:
        raise NotFound("No such finding.")
    return record


def dump_finding(record: Finding) -> dict[str, Any]:
    return _dump_schema.dump(record)


def _same(record: Finding, permit_id: str, data: dict[str, Any]) -> bool:
    photos = [str(p) for p in data.get("photo_ids") or []]
    inspection_id = str(data["inspection_id"]) if data.get("inspection_id") else None
    return (record.permit_id == permit_id and record.deleted_at is None and record.inspection_id == inspection_id
            and record.photo_ids == photos
            and all(getattr(record, k) == data.get(k) for k in CREATE_FIELDS if k in data))


def create_finding(user, data: dict[str, Any]) -> tuple[Finding, bool]:
    """A finding entered by staff (client id allowed, idempotent on it)."""
    permit = get_visible_permit(user, str(data["permit_id"]))
    check_field_work(user, permit)
    record_id = str(data["id"]) if data.get("id") else None
    existing = existing_for_create(Finding, record_id, lambda rec: _same(rec, permit.id, data))
    if existing is not None:
        return existing, False
    inspection_id = str(data["inspection_id"]) if data.get("inspection_id") else None
    if inspection_id:
        inspection = db.session.get(Inspection, inspection_id)
        if inspection is None or inspection.permit_id != permit.id or inspection.deleted_at is not None:
            raise ValidationFailed(errors={"inspection_id": ["Must be an inspection of this permit."]})
    record = findings.create_finding(
        permit, kind=data.get("kind", "other"), description=data["description"], observed_on=data["observed_on"],
        needs_new_control=data.get("needs_new_control", False), severity=data.get("severity", "moderate"),
        inspection_id=inspection_id, item_key=data.get("item_key"), required_action=data.get("required_action"),
        photo_ids=data.get("photo_ids") or (), actor=user, record_id=record_id,
        device_id=current_device_id(), device_created_at=data.get("device_created_at"))
    return record, True


def update_finding(user, record: Finding, data: dict[str, Any], expected_version: int | None) -> Finding:
    """Supervisor's adjustments (R-I5 review of findings): severity, required action, due date with reason."""
    if not user.is_supervisor:
        raise Forbidden("Only supervisors adjust findings.")
    db.session.refresh(record, with_for_update=True)
    check_version(record, expected_version, dump_finding)
    if "due_on" in data and not (data.get("due_on_reason") or "").strip():
        raise ValidationFailed(errors={"due_on_reason": ["Say why the due date differs from the rule (R-I4)."]})
    if "due_on" in data and data["due_on"] < record.observed_on:
        raise ValidationFailed(errors={"due_on": ["Must not be before the day the finding was observed."]})
    before = dump_finding(record)
    for key in ("severity", "required_action", "due_on"):
        if key in data:
            setattr(record, key, data[key])
    if "due_on" in data:
        record.due_on_override_reason = data["due_on_reason"].strip()
    bump(record)
    db.session.flush()
    findings.touch_inspection(record)
    audit.record("finding.update", "finding", record.id, audit.diff(before, dump_finding(record)),
                 actor=user, permit_id=record.permit_id)
    return record
