"""Conditions (R-C3), phases (R-D1/R-D2) and document metadata (R-C1) of a permit.

- Conditions are numbered 1, 2, 3 ... in the order added and never renumbered or deleted: each is
  separately violable and violations refer to its number (R-P1). Supervisors add and reword them
  until the permit is closed; every change is audited.
- Phases: the applicant lists them in a draft; a supervisor adds or edits them until the permit is
  closed and records each phase's completion (date, in compliance or not) once work is under way;
  bond release per phase (R-D2) reads `completed_in_compliance`.
- Documents: the ESC plan, O&M plan and others, each an uploaded file (PDF or image, stored by
  SHA-256 like a final report's documents) or, in older records, a name with a photo (`file_id`);
  the applicant adds them until the decision, a supervisor at any time.
A change to any of these is a change of the permit record (its JSON holds them): its version grows.
"""
from __future__ import annotations

from typing import IO, Any

from sqlalchemy import func, select

from .. import audit
from .. import documents as files
from ..auth.models import User
from ..auth.permissions import current_device_id
from ..db import new_id
from ..errors import Conflict, Forbidden, NotFound, ValidationFailed
from ..extensions import db
from ..questions import Question
from ..records import bump, check_version, existing_for_create
from ..clock import today as local_today
from .models import Permit, PermitCondition, PermitDocument, PermitPhase
from .schemas import PermitConditionSchema, PermitDocumentSchema, PermitPhaseSchema

FINISHED = ("denied", "withdrawn", "closed")


def _is_owner(user: User, permit: Permit) -> bool:
    return user.role == "applicant" and permit.applicant_id == user.id


def _check_open(permit: Permit) -> None:
    if permit.status in FINISHED:
        raise Conflict(f"The permit is {permit.status}; it can no longer change.", error="permit_locked")


def _changed(user: User, permit: Permit, action: str, record_type: str, record_id: str, changes: dict) -> None:
    bump(permit)
    db.session.flush()
    audit.record(action, record_type, record_id, changes, actor=user, permit_id=permit.id)


def _next_number(model, permit: Permit) -> int:
    return (db.session.scalar(select(func.max(model.number)).where(model.permit_id == permit.id)) or 0) + 1


def _child(model, permit: Permit, child_id: str, label: str):
    record = db.session.get(model, child_id)
    if record is None or record.permit_id != permit.id:
        raise NotFound(f"No such {label} on this permit.")
    return record


# ---- conditions ---------------------------------------------------------------------------------
def add_condition(user: User, permit: Permit, text: str) -> PermitCondition:
    if user.role != "supervisor":
        raise Forbidden("Only a supervisor sets permit conditions.")
    _check_open(permit)
    condition = PermitCondition(id=new_id(), permit_id=permit.id, number=_next_number(PermitCondition, permit), text=text.strip(),
                                created_by=user.id, device_id=current_device_id())
    permit.conditions.append(condition)
    _changed(user, permit, "condition.create", "condition", condition.id, {"number": condition.number, "text": text})
    return condition


def update_condition(user: User, permit: Permit, condition: PermitCondition, text: str,
                     expected_version: int | None) -> PermitCondition:
    if user.role != "supervisor":
        raise Forbidden("Only a supervisor changes permit conditions.")
    _check_open(permit)
    check_version(condition, expected_version, PermitConditionSchema().dump)
    if condition.text != text.strip():
        changes = {"text": [condition.text, text.strip()]}
        condition.text = text.strip()
        bump(condition)
        _changed(user, permit, "condition.update", "condition", condition.id, changes)
    return condition


def get_condition(permit: Permit, condition_id: str) -> PermitCondition:
    return _child(PermitCondition, permit, condition_id, "condition")


# ---- phases -------------------------------------------------------------------------------------
def _check_phase_editor(user: User, permit: Permit) -> None:
    if _is_owner(user, permit) and permit.status == "draft":
        return
    if _is_owner(user, permit):
        raise Conflict("The application was submitted; ask the Stormwater Authority to change its phases.",
                       error="permit_locked")
    if user.role != "supervisor":
        raise Forbidden("Only the applicant (in a draft) or a supervisor sets phases.")
    _check_open(permit)


def add_phase(user: User, permit: Permit, data: dict[str, Any]) -> PermitPhase:
    _check_phase_editor(user, permit)
    phase = PermitPhase(id=new_id(), permit_id=permit.id, number=_next_number(PermitPhase, permit), name=data["name"].strip(),
                        description=data.get("description"), bond_amount=data.get("bond_amount"),
                        status="pending", completed_in_compliance=False, created_by=user.id,
                        device_id=current_device_id())
    permit.phases.append(phase)
    _changed(user, permit, "phase.create", "phase", phase.id, {"number": phase.number, **data})
    return phase


def update_phase(user: User, permit: Permit, phase: PermitPhase, data: dict[str, Any],
                 expected_version: int | None) -> PermitPhase:
    _check_phase_editor(user, permit)
    check_version(phase, expected_version, PermitPhaseSchema().dump)
    changes = {key: data[key] for key in ("name", "description", "bond_amount") if key in data}
    diff = audit.diff({key: getattr(phase, key) for key in changes}, changes)
    if diff:
        for key, value in changes.items():
            setattr(phase, key, value)
        bump(phase)
        _changed(user, permit, "phase.update", "phase", phase.id, diff)
    return phase


def complete_phase(user: User, permit: Permit, phase: PermitPhase, data: dict[str, Any]) -> PermitPhase:
    """Record a phase complete, in compliance or not (R-D2 reads this for partial bond release)."""
    if user.role != "supervisor":
        raise Forbidden("Only a supervisor records a phase complete.")
    if permit.status not in ("active", "work_complete"):
        raise Conflict("Phases are completed once work has commenced (the permit is "
                       f"{permit.status.replace('_', ' ')}).", error="invalid_state")
    if phase.status == "complete":
        raise Conflict(f"Phase {phase.number} was recorded complete on {phase.completed_on}.", error="phase_complete")
    if data["completed_on"] > local_today():
        raise ValidationFailed(errors={"completed_on": ["The day cannot be in the future."]})
    if permit.work_commenced_on and data["completed_on"] < permit.work_commenced_on:
        raise ValidationFailed(errors={"completed_on": [f"Work commenced on {permit.work_commenced_on}."]})
    phase.status, phase.completed_on = "complete", data["completed_on"]
    phase.completed_in_compliance, phase.completion_notes = data["in_compliance"], data.get("notes")
    phase.completed_by = user.id
    bump(phase)
    _changed(user, permit, "phase.complete", "phase", phase.id,
             {"completed_on": phase.completed_on, "completed_in_compliance": phase.completed_in_compliance})
    return phase


def get_phase(permit: Permit, phase_id: str) -> PermitPhase:
    return _child(PermitPhase, permit, phase_id, "phase")


# ---- documents ----------------------------------------------------------------------------------
def _check_may_add_document(user: User, permit: Permit) -> None:
    if _is_owner(user, permit):
        if permit.status not in ("draft", "submitted", "under_review"):
            raise Conflict("Documents are added to an application before its decision.", error="permit_locked")
    elif user.role != "supervisor":
        raise Forbidden("Only the applicant or a supervisor adds documents.")
    _check_open(permit)


PHOTO_SEEN_ON_PERMIT = Question("photo_seen_on_permit", """R-C1: is `photo_id` a photo of `permit_id` that
`user` may see (as GET /photos/{id} would show it)? Photos answers.""")


def add_document(user: User, permit: Permit, data: dict[str, Any]) -> tuple[PermitDocument, bool]:
    _check_may_add_document(user, permit)
    fields = {key: data.get(key) for key in ("kind", "filename", "title", "file_id")}
    doc_id = str(data["id"]) if data.get("id") else None
    existing = existing_for_create(PermitDocument, doc_id, lambda d: d.permit_id == permit.id and all(
        getattr(d, k) == v for k, v in fields.items()))
    if existing is not None:
        return existing, False
    # A document shows its photo to everyone who sees the permit: it must be one of this permit's photos
    # that the caller sees. A photo of a permit they cannot see answers exactly like an unknown id.
    if fields["file_id"] and not PHOTO_SEEN_ON_PERMIT(user, permit.id, str(fields["file_id"])):
        raise ValidationFailed("No such photo on this permit.",
                               errors={"file_id": ["No such photo on this permit; upload it first."]})
    document = PermitDocument(id=doc_id or new_id(), permit_id=permit.id, created_by=user.id, device_id=current_device_id(),
                              **fields)
    permit.documents.append(document)
    _changed(user, permit, "document.create", "document", document.id, fields)
    return document, True


def upload_document(user: User, permit: Permit, stream: IO[bytes], args: dict[str, Any], *, content_type: str | None,
                    content_length: int | None, sha256: str | None) -> tuple[PermitDocument, bool]:
    """R-C1: the ESC plan, O&M plan or another document as a file (PDF or image), received, checked and
    stored exactly as a final report's documents are (`inspect_api/documents.py`). Who may add one is
    checked before a byte of the body is read; a refused file leaves nothing stored. The same bytes of
    the same kind again answer the existing document (an upload retried after a lost response).
    The body arrives with no transaction open; the permit is then locked and checked again, since
    it may have been decided or closed meanwhile."""
    _check_may_add_document(user, permit)
    kind = args["kind"]
    doc_id = str(args["id"]) if args.get("id") else None
    with files.received_document(stream, content_type=content_type, content_length=content_length,
                                 sha256=sha256) as (received, sniffed):
        db.session.refresh(permit, with_for_update=True)
        _check_may_add_document(user, permit)
        same = lambda d: d.permit_id == permit.id and d.kind == kind and d.sha256 == received.sha256  # noqa: E731
        existing = existing_for_create(PermitDocument, doc_id, same)
        if existing is None and doc_id is None:
            existing = next((d for d in permit.documents if same(d)), None)
        if existing is not None:
            return existing, False
        key = files.store(received, sniffed)
        document = PermitDocument(
            id=doc_id or new_id(), permit_id=permit.id, created_by=user.id, device_id=current_device_id(), kind=kind,
            filename=files.safe_filename(args.get("filename"), kind, sniffed), title=args.get("title") or None,
            content_type=sniffed, sha256=received.sha256, size=received.size, storage_key=key)
    permit.documents.append(document)
    _changed(user, permit, "document.upload", "document", document.id,
             {"kind": kind, "filename": document.filename, "sha256": document.sha256, "bytes": document.size})
    return document, True


def get_document_file(permit: Permit, document_id: str) -> PermitDocument:
    """A document with an uploaded file; 404 for one recorded by name only."""
    document = get_document(permit, document_id)
    if not document.storage_key:
        raise NotFound("This document was recorded by name; no file was uploaded for it.")
    return document


def get_document(permit: Permit, document_id: str) -> PermitDocument:
    return _child(PermitDocument, permit, document_id, "document")


def dump_document(document: PermitDocument) -> dict:
    return PermitDocumentSchema().dump(document)
