"""Shapes of violations, penalty exposure, citations and the fine schedule (R-P). Format only."""
from __future__ import annotations

from marshmallow import Schema, fields, validate

from ..paging import PageArgs
from . import rules
from ..schemas import Integer, RecordFieldsSchema
from ..schemas import Money
from .schemas import NOTE, SHORT_TEXT

_ids = fields.List(fields.UUID(), load_default=list, validate=validate.Length(max=200))


class ViolationCreateSchema(Schema):
    id = fields.UUID(metadata={"description": "Optional client-made UUID; POSTing it again is idempotent."})
    permit_id = fields.UUID(required=True)
    provision_kind = fields.String(required=True, validate=validate.OneOf(rules.PROVISION_KINDS),
                                   metadata={"description": "permit_condition (give condition_id), bylaw, esc_plan "
                                                            "or om_plan (give provision)."})
    condition_id = fields.UUID(allow_none=True, metadata={
        "description": "A condition of this permit (R-C3), whatever the provision kind; any other id is 422."})
    provision = fields.String(allow_none=True, validate=SHORT_TEXT)
    description = fields.String(allow_none=True, validate=NOTE)
    first_observed_on = fields.Date(required=True)
    last_observed_on = fields.Date(allow_none=True, metadata={"description": "Null while the violation is ongoing."})
    finding_ids = _ids
    photo_ids = fields.List(fields.UUID(), load_default=list, validate=validate.Length(max=200))
    inspection_ids = fields.List(fields.UUID(), load_default=list, validate=validate.Length(max=200))
    referral_note = fields.String(allow_none=True, validate=NOTE)
    court_case_note = fields.String(allow_none=True, validate=NOTE)


class ViolationUpdateSchema(Schema):
    version = Integer()
    description = fields.String(allow_none=True, validate=NOTE)
    first_observed_on = fields.Date()
    last_observed_on = fields.Date(allow_none=True)
    finding_ids = fields.List(fields.UUID(), validate=validate.Length(max=200))
    photo_ids = fields.List(fields.UUID(), validate=validate.Length(max=200))
    inspection_ids = fields.List(fields.UUID(), validate=validate.Length(max=200))
    referral_note = fields.String(allow_none=True, validate=NOTE)
    court_case_note = fields.String(allow_none=True, validate=NOTE)


class ViolationSchema(RecordFieldsSchema):
    permit_id = fields.String()
    provision_kind = fields.String()
    condition_id = fields.String(allow_none=True)
    provision = fields.String(allow_none=True)
    description = fields.String(allow_none=True)
    first_observed_on = fields.Date()
    last_observed_on = fields.Date(allow_none=True)
    ongoing = fields.Function(lambda v: v.last_observed_on is None, metadata={"type": "boolean"})
    finding_ids = fields.List(fields.String())
    photo_ids = fields.List(fields.String())
    inspection_ids = fields.List(fields.String())
    referral_note = fields.String(allow_none=True)
    court_case_note = fields.String(allow_none=True)


class ViolationListArgs(PageArgs):
    permit_id = fields.UUID()


class PenaltyExposureArgs(Schema):
    through = fields.Date(metadata={"description": "Count days through this day; default today."})


class PenaltyExposureViolationSchema(Schema):
    id = fields.String()
    provision_kind = fields.String()
    condition_id = fields.String(allow_none=True)
    condition_number = Integer(allow_none=True)
    provision = fields.String(allow_none=True)
    first_observed_on = fields.Date()
    last_observed_on = fields.Date(allow_none=True)
    days = Integer()
    offenses = Integer()
    max_penalty_usd = Money()


class PenaltyExposureSchema(Schema):
    permit_id = fields.String()
    through = fields.Date()
    violations = fields.List(fields.Nested(PenaltyExposureViolationSchema))
    offense_count = Integer()
    penalty_per_offense_usd = Money()
    max_penalty_usd = Money()
    note = fields.String()


class CitationViolatorSchema(Schema):
    name = fields.String(required=True, validate=validate.Length(min=1, max=200))
    address = fields.String(allow_none=True, validate=SHORT_TEXT)


class CitationDeliverySchema(Schema):
    method = fields.String(required=True, validate=validate.OneOf(rules.SERVICE_METHODS))
    delivered_on = fields.Date(required=True)


class CitationCreateSchema(Schema):
    id = fields.UUID(metadata={"description": "Optional client-made UUID; POSTing it again is idempotent."})
    violation_id = fields.UUID(required=True)
    violator = fields.Nested(CitationViolatorSchema, required=True)
    offense_on = fields.Date(required=True)
    bylaw_section = fields.String(required=True, validate=validate.Length(min=1, max=100))
    delivery = fields.Nested(CitationDeliverySchema, allow_none=True)
    notes = fields.String(allow_none=True, validate=NOTE)


class CitationUpdateSchema(Schema):
    version = Integer()
    delivery = fields.Nested(CitationDeliverySchema, allow_none=True)
    notes = fields.String(allow_none=True, validate=NOTE)
    court_case_note = fields.String(allow_none=True, validate=NOTE)


class CitationSchema(RecordFieldsSchema):
    number = fields.String()
    permit_id = fields.String()
    violation_id = fields.String()
    violator = fields.Function(lambda c: {"name": c.violator_name, "address": c.violator_address},
                               metadata={"type": "object"})
    offense_on = fields.Date()
    bylaw_section = fields.String()
    offense_number = Integer(metadata={"description": "Within 12 months, same violator and provision."})
    fine_usd = Money(attribute="fine_amount", metadata={"description": "From the town's fine schedule."})
    delivery = fields.Function(lambda c: {"method": c.delivery_method, "delivered_on": c.delivered_on.isoformat()}
                               if c.delivery_method else None, metadata={"type": ["object", "null"]})
    respond_by = fields.Function(lambda c: d.isoformat() if (d := rules.citation_respond_by(c.delivered_on)) else None,
                                 metadata={"type": ["string", "null"], "format": "date"})
    notes = fields.String(allow_none=True)
    court_case_note = fields.String(allow_none=True)
    disposition = fields.Constant(
        "Non-criminal disposition under MGL c.40 §21D: within 21 days of delivery, pay the scheduled fine or ask for "
        "a hearing; a contested citation is decided by the court.")


class CitationListArgs(PageArgs):
    permit_id = fields.UUID()
    violation_id = fields.UUID()


class FineScheduleSchema(Schema):
    first_offense = Money(required=True, minimum="0.01", maximum="300.00")
    second_offense = Money(required=True, minimum="0.01", maximum="300.00")
    third_and_subsequent = Money(required=True, minimum="0.01", maximum="300.00",
                                 metadata={"description": "MGL c.40 §21D caps each fine at $300."})
    version = Integer(dump_only=True)
    updated_at = fields.AwareDateTime(dump_only=True)
