"""Shapes of inspections and findings (API.md "Record shapes"). Format only; the law is in rules.py."""
from __future__ import annotations

from typing import Any

from marshmallow import fields, validate

from ..schemas import Boolean, EditSchema, GpsFixSchema, Integer, Schema
from ..paging import PageArgs
from ..entry.schemas import FieldRecordSchema, UTCInstant
from .models import FINDING_KINDS, INSPECTION_KINDS, INSPECTION_STATUSES, SEVERITIES
from .rules import ANSWERS

_short = validate.Length(max=200)
_long = validate.Length(max=8000)


class WeatherSchema(Schema):
    conditions = fields.String(allow_none=True, validate=_short, metadata={"description": "e.g. overcast, light rain"})
    temperature_f = fields.Float(allow_none=True, validate=validate.Range(-60, 130))
    rainfall_in_24h = fields.Float(allow_none=True, validate=validate.Range(0, 40), metadata={
        "description": "Rain in the 24 hours before the visit; storm_event inspections follow >= 0.25 in (R-I1)."})


class ChecklistAnswerSchema(Schema):
    key = fields.String(required=True, validate=validate.Length(min=1, max=60))
    answer = fields.String(required=True, validate=validate.OneOf(ANSWERS))
    note = fields.String(allow_none=True, validate=validate.Length(max=4000))
    photo_ids = fields.List(fields.UUID(), load_default=list, validate=validate.Length(max=100),
                            metadata={"description": "Photos may be uploaded after this record."})
    needs_new_control = Boolean(allow_none=True, metadata={
        "description": "For a deficient item: a new or replaced control is needed (7 days) rather than "
                       "maintenance (next business day); the template's default when absent."})
    severity = fields.String(allow_none=True, validate=validate.OneOf(SEVERITIES))
    carried_over = Boolean(load_default=False, metadata={
        "description": "The answer and note were carried over from the inspection named in the checklist's "
                       "carried_from_id and not yet confirmed or changed on this visit. Allowed in a draft; "
                       "an inspection is not submitted while any answer is still carried over (422)."})


class ChecklistSchema(Schema):
    template = fields.String(required=True, validate=validate.Length(min=1, max=60))
    template_version = Integer(allow_none=True, validate=validate.Range(min=1), metadata={
        "description": "The version answered; the current version when absent."})
    items = fields.List(fields.Nested(ChecklistAnswerSchema), load_default=list, validate=validate.Length(max=500))
    carried_from_id = fields.UUID(allow_none=True, metadata={
        "description": "The earlier (submitted or reviewed) inspection of the same permit whose answers this "
                       "checklist started from; null for a blank start."})


class _InspectionFields(Schema):
    entry_authorization_id = fields.UUID(allow_none=True, metadata={
        "description": "The site-entry authorization relied on; when absent the server picks one that covers."})
    kind = fields.String(validate=validate.OneOf(INSPECTION_KINDS))
    started_at = fields.AwareDateTime()
    ended_at = fields.AwareDateTime(allow_none=True)
    location = fields.Nested(GpsFixSchema, allow_none=True)
    weather = fields.Nested(WeatherSchema, allow_none=True)
    phase = fields.String(allow_none=True, validate=_short)
    unsafe_areas = fields.List(fields.String(validate=validate.Length(min=1, max=500)), validate=validate.Length(max=50))
    notes = fields.String(allow_none=True, validate=_long)
    disturbance_observed = Boolean(metadata={
        "description": "Land disturbance seen at the site (R-A6: raises work_without_approval before approval)."})
    checklist = fields.Nested(ChecklistSchema, allow_none=True)
    verifies_finding_ids = fields.List(fields.UUID(), validate=validate.Length(max=200), metadata={
        "description": "follow_up inspections: findings this visit found fixed (closed when approved)."})
    status = fields.String(validate=validate.OneOf(("draft", "submitted")), metadata={
        "description": "\"submitted\" submits on save (offline devices); same as POST .../submit afterwards."})


class InspectionCreateSchema(_InspectionFields):
    id = fields.UUID(metadata={"description": "Client-made UUID; POSTing it again is idempotent."})
    permit_id = fields.UUID(required=True)
    kind = fields.String(required=True, validate=validate.OneOf(INSPECTION_KINDS))
    started_at = fields.AwareDateTime(required=True)
    supersedes_id = fields.UUID(allow_none=True, metadata={
        "description": "An approved inspection this one corrects (approved records are never edited)."})
    device_created_at = fields.AwareDateTime(allow_none=True)


class InspectionUpdateSchema(EditSchema, _InspectionFields):
    version = Integer(metadata={"description": "The version edited (or send If-Match)."})


class FindingSchema(FieldRecordSchema):
    permit_id = fields.String()
    inspection_id = fields.String(allow_none=True)
    sample_id = fields.String(allow_none=True)
    item_key = fields.String(allow_none=True)
    parameter = fields.String(allow_none=True)
    kind = fields.String(metadata={"enum": list(FINDING_KINDS)})
    severity = fields.String(metadata={"enum": list(SEVERITIES)})
    description = fields.String()
    required_action = fields.String(allow_none=True)
    needs_new_control = Boolean()
    observed_on = fields.Date()
    due_on = fields.Date()
    due_on_override_reason = fields.String(allow_none=True)
    status = fields.String(metadata={"enum": ["open", "closed"]})
    overdue = Boolean(metadata={"description": "Open and due before today (America/New_York)."})
    verified_fixed_on = fields.Date(allow_none=True)
    verified_by_inspection_id = fields.String(allow_none=True)
    closed_at = UTCInstant(allow_none=True)
    photo_ids = fields.List(fields.String())


class ChecklistResponseSchema(Schema):
    template = fields.String()
    template_version = Integer()
    carried_from_id = fields.String(allow_none=True, metadata={
        "description": "The inspection the answers were carried from; null for a blank start."})
    items = fields.List(fields.Dict())


def _reviews_shown(record) -> list[dict[str, Any]]:
    """R-I5: the review history as every viewer of the inspection may read it. A return's comment is
    the supervisor's word to the inspector (`review_comment` while returned); in the history it is
    left out, so an applicant reading the approved inspection never sees it. The audit log keeps it."""
    return [{**entry, "comment": None} if entry.get("decision") == "returned" else entry
            for entry in record.reviews or []]


class InspectionSchema(FieldRecordSchema):
    permit_id = fields.String()
    entry_authorization_id = fields.String()
    inspector_id = fields.String(attribute="created_by", metadata={"description": "Who made the inspection."})
    kind = fields.String(metadata={"enum": list(INSPECTION_KINDS)})
    started_at = UTCInstant()
    ended_at = UTCInstant(allow_none=True)
    location = fields.Nested(GpsFixSchema, allow_none=True)
    weather = fields.Nested(WeatherSchema, allow_none=True)
    phase = fields.String(allow_none=True)
    unsafe_areas = fields.List(fields.String())
    notes = fields.String(allow_none=True)
    disturbance_observed = Boolean()
    checklist = fields.Nested(ChecklistResponseSchema, allow_none=True)
    verifies_finding_ids = fields.List(fields.String())
    supersedes_id = fields.String(allow_none=True)
    status = fields.String(metadata={"enum": list(INSPECTION_STATUSES)})
    submitted_at = UTCInstant(allow_none=True)
    submitted_by = fields.String(allow_none=True)
    reviewed_at = UTCInstant(allow_none=True)
    reviewed_by = fields.String(allow_none=True)
    review_comment = fields.String(allow_none=True)
    reviews = fields.Function(_reviews_shown, metadata={
        "type": "array", "items": {"type": "object"},
        "description": "Decisions, by whom and when; a return's comment is only in review_comment while returned"})
    findings = fields.List(fields.Nested(FindingSchema), metadata={"description": "Read-only."})
    warnings = fields.List(fields.String(), metadata={"description": "e.g. a cease-and-desist order is open."})


class InspectionQuerySchema(PageArgs):
    permit_id = fields.UUID()
    status = fields.String(validate=validate.OneOf(INSPECTION_STATUSES),
                           metadata={"description": "status=submitted is the supervisor's review queue."})
    kind = fields.String(validate=validate.OneOf(INSPECTION_KINDS))


class InspectionSubmitSchema(Schema):
    version = Integer(metadata={"description": "The version acted on (or send If-Match); optional."})


class InspectionReviewSchema(InspectionSubmitSchema):
    decision = fields.String(required=True, validate=validate.OneOf(("approved", "returned")))
    comment = fields.String(allow_none=True, validate=_long, metadata={"description": "Required when returned."})


class FindingCreateSchema(Schema):
    id = fields.UUID()
    permit_id = fields.UUID(required=True)
    inspection_id = fields.UUID(allow_none=True)
    kind = fields.String(load_default="other", validate=validate.OneOf(("deficiency", "work_without_approval", "other")))
    item_key = fields.String(allow_none=True, validate=validate.Length(max=60))
    severity = fields.String(load_default="moderate", validate=validate.OneOf(SEVERITIES))
    description = fields.String(required=True, validate=validate.Length(min=1, max=8000))
    required_action = fields.String(allow_none=True, validate=_long)
    needs_new_control = Boolean(load_default=False)
    observed_on = fields.Date(required=True)
    photo_ids = fields.List(fields.UUID(), load_default=list, validate=validate.Length(max=100))
    device_created_at = fields.AwareDateTime(allow_none=True)


class FindingUpdateSchema(EditSchema):
    version = Integer()
    severity = fields.String(validate=validate.OneOf(SEVERITIES))
    required_action = fields.String(allow_none=True, validate=_long)
    due_on = fields.Date(metadata={"description": "Override of the R-I4 due date; needs due_on_reason."})
    due_on_reason = fields.String(validate=validate.Length(min=1, max=4000))


class FindingQuerySchema(PageArgs):
    permit_id = fields.UUID()
    inspection_id = fields.UUID()
    status = fields.String(validate=validate.OneOf(("open", "overdue", "closed")),
                           metadata={"description": "overdue = open and due before today in America/New_York"})


_inspection = InspectionSchema()


def dump_inspection(record) -> dict[str, Any]:
    """An inspection as GET, pull and conflicts answer it."""
    return _inspection.dump(record)
