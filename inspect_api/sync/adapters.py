"""Every entity sync carries, declared in this one place: its name, model, scope, the domain's dump,
visible, get, create, update and delete functions and its create/update schemas. Nothing is found by
name or guessed from a signature; registry.load checks each declaration when the app starts (create_app hands it these) and stops
the start with an error naming what is missing or uncallable.

A pushed mutation is loaded with the declared schema and applied with the declared function, with the
arguments sync passes (registry.CALLS); pull reads with `visible` and `dump` (API.md, "Sync (offline devices)").
"""
from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy import Select, select

from ..bonds import schemas as bond_schemas, services as bonds
from ..bonds.models import Bond
from ..completion import schemas as completion_schemas, services as completion
from ..completion.models import CompletionNotice
from ..enforcement import schemas as enforcement_schemas, services as enforcement
from ..enforcement.models import Order
from ..entry import schemas as entry_schemas, services as entry
from ..entry.models import EntryAuthorization
from ..errors import NotFound
from ..extensions import db
from ..inspections import finding_services as findings, schemas as inspection_schemas
from ..inspections import services as inspections
from ..inspections.models import Finding, Inspection
from ..permits import access, schemas as permit_schemas, services as permits
from ..permits.models import Assignment, Permit
from ..photos import annotations as photo_annotations, schemas as photo_schemas, services as photos
from ..photos.models import Photo, PhotoAnnotation
from ..program import inspection_requests, schemas as program_schemas, storm_events
from ..program.models import InspectionRequest, StormEvent
from ..program.storm_events import visible_storm_events
from ..sampling import schemas as sample_schemas, services as samples
from ..sampling.models import Sample
from .registry import ASSIGNMENT, FIELD, GLOBAL, PERMIT, EntityAdapter

NOT_PUSHED = {
    "photo": "Photos are uploaded with PUT /photos/{id}; push the records that reference them.",
    "assignment": "Assignments are made by supervisors, not pushed by devices.",
    "storm_event": "Storm events come from the rain gauge feed or a supervisor, not from devices.",
}


# --- assignments: the one entity sync serves itself (an inspector's device reads its sites) --------

def _visible_assignments(user) -> Select:
    query = select(Assignment)
    if user.role == "supervisor":
        return query
    if user.role == "inspector":
        return query.where(Assignment.inspector_id == user.id)
    return query.where(sa.false())


def _get_assignment(user, record_id: str):
    record = db.session.scalar(_visible_assignments(user).where(Assignment.id == str(record_id)))
    if record is None:
        raise NotFound("No such assignment.")
    return record


def _dump_assignment(record) -> dict[str, Any]:
    return {"id": record.id, "permit_id": record.permit_id, "inspector_id": record.inspector_id,
            "version": record.version, "assigned_at": _iso(record.assigned_at),
            "assigned_by": record.assigned_by, "removed_at": _iso(record.removed_at)}


def _get_storm_event(user, record_id: str):
    record = db.session.scalar(visible_storm_events(user).where(StormEvent.id == str(record_id)))
    if record is None:
        raise NotFound("No such storm event.")
    return record


def _iso(value) -> str | None:
    return value.isoformat() if value is not None else None


def declarations() -> list[EntityAdapter]:
    """The declarations, in the order pull lists entities."""
    return [
        EntityAdapter(entity="permit", model=Permit, scope=PERMIT, dump=permits.dump_permit,
                      visible=access.visible_permits, get=permits.get_permit,
                      create=permits.create_permit, update=permits.update_permit,
                      create_schema=permit_schemas.PermitCreateSchema(),
                      update_schema=permit_schemas.PermitUpdateSchema(),
                      # R-A5, R-B2, R-A6, R-O1a, R-D1: as the permit stands today
                      clock_fields=("review_level", "determination", "exemptions.stands", "approval_lapsed",
                                    "commencement_blocked")),
        EntityAdapter(entity="assignment", model=Assignment, scope=ASSIGNMENT, dump=_dump_assignment,
                      visible=_visible_assignments, get=_get_assignment, not_pushed=NOT_PUSHED["assignment"]),
        EntityAdapter(entity="entry_authorization", model=EntryAuthorization, scope=FIELD,
                      dump=entry.dump_entry_authorization, visible=entry.visible_entry_authorizations,
                      get=entry.get_entry_authorization, create=entry.create_entry_authorization,
                      update=entry.update_entry_authorization,
                      create_schema=entry_schemas.EntryAuthorizationCreateSchema(),
                      update_schema=entry_schemas.EntryAuthorizationUpdateSchema()),
        EntityAdapter(entity="inspection", model=Inspection, scope=FIELD, dump=inspections.dump_inspection,
                      visible=inspections.visible_inspections, get=inspections.get_inspection,
                      create=inspections.create_inspection, update=inspections.update_inspection,
                      delete=inspections.delete_inspection,
                      create_schema=inspection_schemas.InspectionCreateSchema(),
                      update_schema=inspection_schemas.InspectionUpdateSchema(),
                      clock_fields=("findings.overdue",)),
        EntityAdapter(entity="finding", model=Finding, scope=FIELD, dump=findings.dump_finding,
                      visible=findings.visible_findings, get=findings.get_finding,
                      create=findings.create_finding, update=findings.update_finding,
                      create_schema=inspection_schemas.FindingCreateSchema(),
                      update_schema=inspection_schemas.FindingUpdateSchema(),
                      clock_fields=("overdue",)),  # R-I4: open and due before today
        EntityAdapter(entity="sample", model=Sample, scope=FIELD, dump=samples.dump_sample,
                      visible=samples.visible_samples, get=samples.get_sample,
                      create=samples.create_sample, update=samples.update_sample,
                      create_schema=sample_schemas.SampleCreateSchema(),
                      update_schema=sample_schemas.SampleUpdateSchema(),
                      clock_fields=("holding_time",)),  # R-S1: hours since sampling, now
        EntityAdapter(entity="photo", model=Photo, scope=FIELD, dump=photos.dump_photo,
                      visible=photos.visible_photos, get=photos.get_photo, not_pushed=NOT_PUSHED["photo"]),
        # Markup over a photo: seen by whoever sees the photo; drawn, changed and deleted on devices.
        EntityAdapter(entity="photo_annotation", model=PhotoAnnotation, scope=FIELD,
                      dump=photo_annotations.dump_annotation, visible=photo_annotations.visible_annotations,
                      get=photo_annotations.get_annotation, create=photo_annotations.create_annotation,
                      update=photo_annotations.update_annotation, delete=photo_annotations.delete_annotation,
                      create_schema=photo_schemas.PhotoAnnotationCreateSchema(),
                      update_schema=photo_schemas.PhotoAnnotationUpdateSchema()),
        EntityAdapter(entity="completion_notice", model=CompletionNotice, scope=FIELD,
                      dump=completion.dump_completion_notice, visible=completion.visible_completion_notices,
                      get=completion.get_completion_notice, create=completion.create_completion_notice,
                      update=completion.update_completion_notice,
                      create_schema=completion_schemas.CompletionNoticeCreateSchema(),
                      update_schema=completion_schemas.CompletionNoticeUpdateSchema()),
        EntityAdapter(entity="bond", model=Bond, scope=FIELD, dump=bonds.dump_bond, visible=bonds.visible_bonds,
                      get=bonds.get_bond, create=bonds.create_bond, update=bonds.update_bond,
                      create_schema=bond_schemas.BondCreateSchema(), update_schema=bond_schemas.BondUpdateSchema()),
        EntityAdapter(entity="order", model=Order, scope=FIELD, dump=enforcement.dump_order,
                      visible=enforcement.visible_orders, get=enforcement.get_order,
                      create=enforcement.create_order, update=enforcement.update_order,
                      create_schema=enforcement_schemas.OrderCreateSchema(),
                      update_schema=enforcement_schemas.OrderUpdateSchema(),
                      clock_fields=("status", "overdue")),  # R-O1, R-O2: open past its deadline
        # A request is made on the device and then handled by the office: devices create, never edit.
        EntityAdapter(entity="inspection_request", model=InspectionRequest, scope=FIELD,
                      dump=inspection_requests.dump_inspection_request,
                      visible=inspection_requests.visible_inspection_requests,
                      get=inspection_requests.get_inspection_request,
                      create=inspection_requests.create_inspection_request,
                      create_schema=program_schemas.InspectionRequestCreateSchema()),
        EntityAdapter(entity="storm_event", model=StormEvent, scope=GLOBAL, dump=storm_events.dump_storm_event,
                      visible=storm_events.visible_storm_events, get=_get_storm_event,
                      not_pushed=NOT_PUSHED["storm_event"]),
    ]
