"""Inspection operations: load, check, change, flush (never commit).

Submission, review and the findings they raise live in workflow.py; findings' own operations in
finding_services.py. Both are re-exported here so every entity keeps the service convention
(create_/update_/get_/visible_/dump_) in one module.
"""
from __future__ import annotations

from typing import Any

from sqlalchemy import Select, bindparam, select
from sqlalchemy.orm import with_expression

from .. import clock
from .. import audit
from ..auth.permissions import current_device_id
from ..checklists.services import find_template
from ..entry.services import require_entry
from ..errors import Conflict, InvalidTransition, NotFound, ValidationFailed
from ..extensions import db
from ..paging import load_collections, named_filters, page_of
from ..permits.access import (APPLICANT_SCOPE, VIEWER, check_field_work, get_visible_permit, permit_scoped, scope_of,
                              scope_values)
from ..permits.models import Permit
from ..records import bump, check_version, existing_for_create, fields_equal
from ..schemas import gps_fix_columns
from . import rules
from .finding_services import (create_finding, dump_finding, get_finding, list_findings,  # noqa: F401
                               update_finding, visible_findings)
from .models import PERMIT_UNDER_ORDER, Finding, Inspection
from .schemas import dump_inspection
from .workflow import draft_findings, ensure_editable, review_inspection, submit_inspection  # noqa: F401

SIMPLE = ("kind", "started_at", "ended_at", "weather", "phase", "unsafe_areas", "notes", "disturbance_observed")


def visible_inspections(user) -> Select:
    return scoped_inspections(scope_of(user), user.id)


def scoped_inspections(scope: str, viewer: Any) -> Select:
    """Inspections a caller of `scope` whose id is `viewer` may see (`viewer` a value, or
    `bindparam(VIEWER)` for a statement built once for every such caller: paging.page_of).
    Applicants see their own permits' inspections once submitted: a draft is the inspector's working
    copy, not yet a statement of the Town, and a returned one is a working copy again until it is
    approved (rules.shown_to_applicant)."""
    query = select(Inspection).where(permit_scoped(Inspection.permit_id, scope, viewer), Inspection.deleted_at.is_(None))
    if scope == APPLICANT_SCOPE:
        query = query.where(Inspection.shown_to_applicant())
    return query


_FILTERS = ("permit_id", "status", "kind")  # each a column of the same name


def list_inspections(user, args: dict[str, Any]) -> tuple[list[Inspection], int]:
    """The review queue (status "submitted") comes oldest submission first; other lists newest visit first."""
    values = {**scope_values(user), **named_filters(args, _FILTERS)}
    shape = (scope_of(user), *(key in values for key in _FILTERS), values.get("status") == "submitted")
    records, total = page_of(_inspections_page, shape, values, args)
    load_collections(records, Inspection.findings)
    return records, total


def _inspections_page(scope: str, by_permit: bool, by_status: bool, by_kind: bool, queue: bool) -> Select:
    """The inspections list for any caller of `scope` (paging.page_of); `queue`: the review queue's order."""
    query = scoped_inspections(scope, bindparam(VIEWER)).options(
        with_expression(Inspection.permit_under_order, PERMIT_UNDER_ORDER))
    for key, named in zip(_FILTERS, (by_permit, by_status, by_kind)):
        if named:
            query = query.where(getattr(Inspection, key) == bindparam(key))
    order = (Inspection.submitted_at,) if queue else (Inspection.started_at.desc(),)
    return query.order_by(*order, Inspection.id)


def get_inspection(user, record_id: str) -> Inspection:
    record = db.session.scalar(visible_inspections(user).where(Inspection.id == str(record_id)))
    if record is None:
        raise NotFound("No such inspection.")
    return record


def _answer(item: dict[str, Any], carried_from_id: str | None) -> dict[str, Any]:
    """One answer in the stored form: every key present, ids as strings, so replays compare equal. The
    inspection the checklist started from is kept with each answer (the checklist has no other JSON to
    hold it; rules.carried_from reads it back)."""
    return {"key": item.get("key"), "answer": item.get("answer"), "note": item.get("note"),
            "photo_ids": [str(p) for p in item.get("photo_ids") or []],
            "needs_new_control": item.get("needs_new_control"), "severity": item.get("severity"),
            "carried_over": bool(item.get("carried_over")), "carried_from_id": carried_from_id}


def _values(data: dict[str, Any]) -> dict[str, Any]:
    """Column values from a loaded body; only what the body holds, so PATCH touches only those."""
    values = {key: data[key] for key in SIMPLE if key in data}
    if values.get("unsafe_areas") is None and "unsafe_areas" in values:
        values["unsafe_areas"] = []
    if data.get("entry_authorization_id"):
        values["entry_authorization_id"] = str(data["entry_authorization_id"])
    if "verifies_finding_ids" in data:
        values["verifies_finding_ids"] = [str(f) for f in data["verifies_finding_ids"] or []]
    if "location" in data:
        values.update(gps_fix_columns(data["location"]))
    if "checklist" in data:
        checklist = data["checklist"]
        values["checklist_template"] = checklist["template"] if checklist else None
        source = str(checklist["carried_from_id"]) if checklist and checklist.get("carried_from_id") else None
        values["checklist_items"] = [_answer(item, source) for item in checklist.get("items") or []] if checklist else []
        if not checklist or checklist.get("template_version") is not None:
            values["checklist_template_version"] = checklist.get("template_version") if checklist else None
    return values


def _resolve_checklist(values: dict[str, Any]) -> None:
    """Pin the template version answered (the current one when the device sent none) and check every
    answer against that version, not the newest (R-I3)."""
    key = values.get("checklist_template")
    if key is None:
        values["checklist_template_version"] = None
        return
    template = find_template(key, values.get("checklist_template_version"))
    if template is None:
        field = "template_version" if values.get("checklist_template_version") else "template"
        raise ValidationFailed(errors={"checklist": {field: ["No such checklist template version."]}})
    values["checklist_template_version"] = template.version
    errors = rules.checklist_errors(template.items, values["checklist_items"])
    if errors:
        raise ValidationFailed("Some checklist answers do not fit the template version they answer.",
                               errors={"checklist": {"items": errors}})


def _check_content(permit: Permit, state: dict[str, Any], record_id: str | None = None) -> None:
    errors: dict[str, list[str]] = {}
    if state.get("ended_at") and state["ended_at"] < state["started_at"]:
        errors["ended_at"] = ["Must not be before started_at."]
    verifies = state.get("verifies_finding_ids") or []
    if verifies and state["kind"] != "follow_up":
        errors["verifies_finding_ids"] = ["Only a follow_up inspection verifies findings fixed."]
    elif verifies:
        found = set(db.session.scalars(select(Finding.id).where(
            Finding.id.in_(verifies), Finding.permit_id == permit.id, Finding.deleted_at.is_(None))))
        if len(set(verifies)) != len(verifies) or found != set(verifies):
            errors["verifies_finding_ids"] = ["Each id must be a finding of this permit, listed once."]
    supersedes = state.get("supersedes_id")
    if supersedes:
        prior = db.session.get(Inspection, supersedes)
        if prior is None or prior.permit_id != permit.id or prior.status != "approved" or prior.id == record_id:
            errors["supersedes_id"] = ["Must be an approved inspection of this permit."]
    if errors:
        raise ValidationFailed(errors=errors)


def _check_carried_from(user, permit: Permit, checklist: dict[str, Any] | None, record_id: str | None = None) -> None:
    """A checklist started from an earlier inspection names it: one of this permit's, submitted or
    reviewed, that the user may see (an unknown id and another permit's are refused alike). Answers
    marked carried over need that source; the source needs the answers it gave."""
    if not checklist:
        return
    source = checklist.get("carried_from_id")
    items = checklist.get("items") or []
    errors: dict[str, list[str]] = {}
    if source is None:
        if any(item.get("carried_over") for item in items):
            errors["carried_from_id"] = ["Name the inspection the carried-over answers come from."]
    else:
        found = db.session.scalar(visible_inspections(user).where(
            Inspection.id == str(source), Inspection.permit_id == permit.id))
        if found is None or found.id == record_id or found.status == "draft":
            errors["carried_from_id"] = ["Must be a submitted or reviewed inspection of this permit that you may see."]
        elif not items:
            errors["carried_from_id"] = ["Send the answers carried from it with it."]
    if errors:
        raise ValidationFailed(errors={"checklist": errors})


def create_inspection(user, data: dict[str, Any]) -> tuple[Inspection, bool]:
    permit = get_visible_permit(user, str(data["permit_id"]))
    check_field_work(user, permit)
    values = _values(data)
    supersedes = str(data["supersedes_id"]) if data.get("supersedes_id") else None
    record_id = str(data["id"]) if data.get("id") else None
    existing = existing_for_create(Inspection, record_id, lambda rec: (
        rec.permit_id == permit.id and rec.deleted_at is None and rec.supersedes_id == supersedes
        and fields_equal(rec, values, list(values))))
    if existing is not None:
        return existing, False
    values.setdefault("checklist_template", None)
    values.setdefault("checklist_items", [])
    _resolve_checklist(values)
    _check_content(permit, {**values, "supersedes_id": supersedes})
    _check_carried_from(user, permit, data.get("checklist"))
    auth = require_entry(user, permit, values.get("entry_authorization_id"), "examination", values["started_at"])
    values["entry_authorization_id"] = auth.id
    record = Inspection(id=record_id, permit_id=permit.id, supersedes_id=supersedes, status="draft",
                        created_by=user.id, device_id=current_device_id(),
                        device_created_at=data.get("device_created_at"), **values)
    db.session.add(record)
    db.session.flush()
    audit.record("inspection.create", "inspection", record.id,
                 {"kind": record.kind, "started_at": record.started_at, "entry_authorization_id": auth.id,
                  "supersedes_id": supersedes}, actor=user, permit_id=permit.id)
    if data.get("status") not in (None, "draft"):
        _requested_status(record, data)  # only "submitted" passes
        submit_inspection(user, record)
    else:
        draft_findings(user, record)
    return record, True


def update_inspection(user, record: Inspection, data: dict[str, Any], expected_version: int | None) -> Inspection:
    """Edit a draft or returned inspection. `status: "submitted"` in the data submits it after the edit
    (how an offline device's "save and submit" arrives); reviews only go through review_inspection."""
    permit = db.session.get(Permit, record.permit_id)
    check_field_work(user, permit)
    db.session.refresh(record, with_for_update=True)  # no lost update between two editors
    ensure_editable(record)
    check_version(record, expected_version, dump_inspection)
    status = _requested_status(record, data)
    values = _values(data)
    if "checklist" in data:
        _check_carried_from(user, permit, data["checklist"], record.id)
    if values:
        _apply_edits(user, record, permit, values)
    if status == "submitted":
        submit_inspection(user, record)
    elif values:
        draft_findings(user, record)
    return record


def _requested_status(record: Inspection, data: dict[str, Any]) -> str | None:
    status = data.get("status")
    if status in (None, record.status) or (status == "draft" and record.status == "returned"):
        return None
    if status != "submitted":
        raise InvalidTransition("Inspections are approved or returned through their review, not by an edit.")
    return status


def _apply_edits(user, record: Inspection, permit: Permit, values: dict[str, Any]) -> None:
    if values.get("checklist_template") is not None and "checklist_template_version" not in values \
            and values["checklist_template"] == record.checklist_template:
        # An edit keeps answering the version the inspection started on, even if a newer one exists.
        values["checklist_template_version"] = record.checklist_template_version
    if "checklist_template" in values:
        _resolve_checklist(values)
    state = {key: getattr(record, key) for key in ("kind", "started_at", "ended_at", "verifies_finding_ids")}
    state.update({k: v for k, v in values.items() if k in state})
    _check_content(permit, state, record.id)
    if "started_at" in values or "entry_authorization_id" in values:
        auth = require_entry(user, permit, values.get("entry_authorization_id", record.entry_authorization_id),
                             "examination", state["started_at"])
        values["entry_authorization_id"] = auth.id
    before = dump_inspection(record)
    for key, value in values.items():
        setattr(record, key, value)
    bump(record)
    db.session.flush()
    audit.record("inspection.update", "inspection", record.id, audit.diff(before, dump_inspection(record)),
                 actor=user, permit_id=record.permit_id)


def delete_inspection(user, record: Inspection, expected_version: int | None) -> Inspection:
    """Soft delete (a tombstone for devices); only a draft, which no one has yet relied on."""
    check_field_work(user, db.session.get(Permit, record.permit_id))
    db.session.refresh(record, with_for_update=True)
    if record.status == "approved":
        raise Conflict("An approved inspection is locked and is never deleted.", error="record_locked")
    if record.status != "draft":
        raise InvalidTransition("Only a draft inspection can be deleted; a submitted one stays on record.")
    check_version(record, expected_version, dump_inspection)
    record.deleted_at = clock.now()
    bump(record)
    db.session.flush()
    audit.record("inspection.delete", "inspection", record.id, {"deleted_at": record.deleted_at},
                 actor=user, permit_id=record.permit_id)
    draft_findings(user, record)  # the observation goes with the draft
    return record
