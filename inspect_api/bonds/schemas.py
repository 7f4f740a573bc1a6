"""Shapes of bonds and releases (format only). Money goes out as a decimal string ("25000.00") and comes
in as a string or a JSON number with at most two decimal places; nothing is rounded silently."""
from __future__ import annotations

from decimal import Decimal

from marshmallow import Schema, ValidationError, fields, validate

from ..paging import PageArgs
from ..schemas import RecordFieldsSchema
from .rules import CENT, FORMS, RELEASE_KINDS

MAX_MONEY = Decimal("999999999999.99")


class Money(fields.Decimal):
    """US dollars and cents. In: "25000", "25000.50" or 25000.5; out: "25000.50"."""

    def __init__(self, **kwargs) -> None:
        metadata = {"type": "string", "format": "decimal", "example": "25000.00",
                    "description": "US dollars as a decimal string (\"25000.00\"); requests may also send a JSON "
                                   "number. At most two decimal places; nothing is rounded.",
                    **kwargs.pop("metadata", {})}
        super().__init__(as_string=True, allow_nan=False, metadata=metadata, **kwargs)

    def _validated(self, value) -> Decimal:
        number = super()._validated(value)
        if number.as_tuple().exponent < -2 and number != number.quantize(CENT):
            raise ValidationError("At most two decimal places (whole cents).")
        if number <= 0:
            raise ValidationError("Must be more than zero.")
        if number > MAX_MONEY:
            raise ValidationError("Too large.")
        return number.quantize(CENT)

    def _serialize(self, value, attr, obj, **kwargs):
        if value is None:
            return None
        return str(Decimal(value).quantize(CENT))


class BondPhaseShareInSchema(Schema):
    phase_id = fields.String(required=True, validate=validate.Length(min=1, max=36),
                             metadata={"description": "A phase of the bond's permit"})
    amount = Money(required=True)


class BondUpdateSchema(Schema):
    form = fields.String(validate=validate.OneOf(FORMS))
    form_description = fields.String(validate=validate.Length(max=200), allow_none=True,
                                     metadata={"description": "What the security is when the form is `other`"})
    amount = Money()
    issuer = fields.String(validate=validate.Length(max=200), allow_none=True)
    reference = fields.String(validate=validate.Length(max=100), allow_none=True,
                              metadata={"description": "Bond, letter of credit or receipt number"})
    received_on = fields.Date(allow_none=True)
    phases = fields.List(fields.Nested(BondPhaseShareInSchema), validate=validate.Length(max=100),
                         metadata={"description": "The bond split by permit phase; the shares add up to at most "
                                                  "the amount (replaces the whole list)"})
    notes = fields.String(validate=validate.Length(max=5000), allow_none=True)
    version = fields.Integer()


class BondCreateSchema(BondUpdateSchema):
    id = fields.UUID(metadata={"description": "Client-made UUID; posting it again with the same data is idempotent"})
    permit_id = fields.String(required=True, validate=validate.Length(min=1, max=36))
    form = fields.String(required=True, validate=validate.OneOf(FORMS))
    amount = Money(required=True)
    device_created_at = fields.AwareDateTime()


class BondPhaseShareSchema(Schema):
    phase_id = fields.String()
    phase_number = fields.Integer(allow_none=True)
    phase_name = fields.String(allow_none=True)
    amount = Money()
    completed_on = fields.Date(allow_none=True)
    completed_in_compliance = fields.Boolean()
    released = fields.Boolean()


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
    amount = Money(metadata={"description": "Default: the phase's share (partial) or the remainder (full)"})
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
