"""Shapes of bonds and releases (format only). Money goes out as a decimal string ("25000.00") and comes
in as a string or a JSON number with at most two decimal places; nothing is rounded silently."""
from __future__ import annotations

from marshmallow import Schema, fields, validate

from ..schemas import Boolean, EditSchema, Integer, Money, RecordFieldsSchema
from .rules import FORMS, RELEASE_KINDS
from ..paging import PageArgs

POSITIVE = "0.01"  # a bond, a share or a release of nothing means nothing

class BondPhaseShareInSchema(Schema):
    phase_id = fields.String(required=True, validate=validate.Length(min=1, max=36),
                             metadata={"description": "A phase of the bond's permit"})
    amount = Money(required=True, minimum=POSITIVE)


class BondUpdateSchema(EditSchema):
    form = fields.String(validate=validate.OneOf(FORMS))
    form_description = fields.String(validate=validate.Length(max=200), allow_none=True,
                                     metadata={"description": "What the security is when the form is `other`"})
    amount = Money(minimum=POSITIVE)
    issuer = fields.String(validate=validate.Length(max=200), allow_none=True)
    reference = fields.String(validate=validate.Length(max=100), allow_none=True,
                              metadata={"description": "Bond, letter of credit or receipt number"})
    received_on = fields.Date(allow_none=True)
    phases = fields.List(fields.Nested(BondPhaseShareInSchema), validate=validate.Length(max=100),
                         metadata={"description": "The bond split by permit phase; the shares add up to at most "
                                                  "the amount (replaces the whole list)"})
    notes = fields.String(validate=validate.Length(max=5000), allow_none=True)
    version = Integer()


class BondCreateSchema(BondUpdateSchema):
    id = fields.UUID(metadata={"description": "Client-made UUID; posting it again with the same data is idempotent"})
    permit_id = fields.String(required=True, validate=validate.Length(min=1, max=36))
    form = fields.String(required=True, validate=validate.OneOf(FORMS))
    amount = Money(required=True, minimum=POSITIVE)
    device_created_at = fields.AwareDateTime()


class BondPhaseShareSchema(Schema):
    phase_id = fields.String()
    phase_number = Integer(allow_none=True)
    phase_name = fields.String(allow_none=True)
    amount = Money()
    completed_on = fields.Date(allow_none=True)
    completed_in_compliance = Boolean()
    released = Boolean()


class BondReleaseSchema(Schema):
    id = fields.String()
    kind = fields.String()
    phase_id = fields.String(allow_none=True)
    amount = Money()
    released_on = fields.Date()
    by = fields.String()
    note = fields.String(allow_none=True)
    created_at = fields.DateTime()


class BondReleaseCreateSchema(Schema):
    id = fields.UUID(metadata={"description": "Client-made UUID; the same id and data again answer 200"})
    kind = fields.String(required=True, validate=validate.OneOf(RELEASE_KINDS),
                         metadata={"description": "`partial`: one phase's share, once that phase is complete in "
                                                  "compliance; `full`: the rest, after the certificate of completion"})
    phase_id = fields.String(validate=validate.Length(min=1, max=36), metadata={"description": "Required for partial"})
    amount = Money(minimum=POSITIVE, metadata={"description": "Default: the phase's share (partial) or the remainder (full)"})
    released_on = fields.Date(metadata={"description": "Default: today (Fairhaven); never in the future"})
    note = fields.String(validate=validate.Length(max=5000), allow_none=True)


class BondSchema(RecordFieldsSchema):
    permit_id = fields.String()
    form = fields.String()
    form_description = fields.String(allow_none=True)
    amount = Money()
    released_amount = Money(metadata={"description": "Sum of all releases"})
    remaining_amount = Money(metadata={"description": "amount - released_amount"})
    status = fields.String(metadata={"description": "`held`, `partially_released` or `released`"})
    issuer = fields.String(allow_none=True)
    reference = fields.String(allow_none=True)
    received_on = fields.Date(allow_none=True)
    notes = fields.String(allow_none=True)
    phases = fields.List(fields.Nested(BondPhaseShareSchema))
    releases = fields.List(fields.Nested(BondReleaseSchema))


class BondQuerySchema(PageArgs):
    permit_id = fields.String(validate=validate.Length(max=64))
    status = fields.String(validate=validate.OneOf(("held", "partially_released", "released")))
