"""Shapes of the inspection program's requests and answers (shape and format only)."""
from __future__ import annotations

from datetime import date

from marshmallow import Schema, ValidationError, fields, validate, validates

from ..schemas import Boolean, Integer, RecordFieldsSchema
from .models import REQUEST_KINDS
from .noaa import UNITS
from .rules import KINDS, storm_counts
from .services import settings


# What DayOrTime takes, published: a day or a time with its offset (never empty).
DAY_OR_TIME_SCHEMA = {
    "type": "string", "minLength": 10, "anyOf": [{"format": "date"}, {"format": "date-time"}],
    "pattern": r"^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2}))?$"}


class DayOrTime(fields.Field):
    """`YYYY-MM-DD` (the start of that Town day) or an RFC 3339 time with offset."""

    def _deserialize(self, value, attr, data, **kwargs):
        if not isinstance(value, str):
            raise ValidationError("A date (YYYY-MM-DD) or a time with offset (RFC 3339).")
        try:
            return date.fromisoformat(value) if len(value) == 10 else fields.AwareDateTime()._deserialize(
                value, attr, data)
        except (ValueError, ValidationError):
            raise ValidationError("A date (YYYY-MM-DD) or a time with offset (RFC 3339).") from None


class DueQuerySchema(Schema):
    assigned_to = fields.String(validate=validate.OneOf(("me",)), metadata={"description": "`me`: my assigned sites"})
    before = DayOrTime(metadata={"description": "Due strictly before this day (Town time) or time",
                                 **DAY_OR_TIME_SCHEMA})
    kind = fields.String(validate=validate.OneOf(KINDS))
    permit_id = fields.UUID(metadata={"description": "One site; a permit you may not see answers 404"})
    overdue = fields.Boolean(metadata={"description": "true: only overdue; false: only not yet overdue"})
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=500))
    offset = fields.Integer(load_default=0, validate=validate.Range(min=0))


class DueSiteLocationSchema(Schema):
    lat = fields.Float()
    lon = fields.Float()


class DueItemSchema(Schema):
    permit_id = fields.String()
    permit_number = fields.String(allow_none=True)
    site_address = fields.String()
    site_location = fields.Nested(DueSiteLocationSchema)
    kind = fields.String(metadata={"enum": list(KINDS)})
    reason = fields.String()
    due_at = fields.AwareDateTime()
    overdue = Boolean()
    binding = Boolean(metadata={"description": "false: due before work commences, with no deadline yet"})
    source = fields.String(metadata={"enum": ["program", "storm", "finding", "request"]})
    source_id = fields.String(allow_none=True, metadata={"description": "The storm event, finding or request"})
    rules = fields.List(fields.String())


class ProgramSettingsSchema(Schema):
    routine_days = Integer()
    storm_threshold_inches = fields.String()
    storm_window_hours = Integer()
    response_days = Integer()
    timezone = fields.String()


# ---- storm events -------------------------------------------------------------------------------------
class StormEventCreateSchema(Schema):
    id = fields.UUID(load_default=None)
    ended_at = fields.AwareDateTime(required=True)
    inches = fields.Decimal(required=True, as_string=True, metadata={
        "example": "0.25", "type": ["string", "number"], "format": "decimal",
        "pattern": r"^(?:100(?:\.0{1,2})?|\d{1,2}(?:\.\d{1,2})?)$", "minimum": 0, "maximum": 100,
        "description": "Inches of rain, 0 to 100, at most two decimals: decimal text (\"0.25\") or a JSON "
                       "number (0.25). Answers are always text with two decimals."})
    source = fields.String(required=True, validate=validate.Length(min=1, max=200))

    @validates("inches")
    def _two_places(self, value, **_kw):
        # A plain check, not validate.Range: the spec generator would print a Decimal range as text.
        if not value.is_finite() or not 0 <= value <= 100:
            raise ValidationError("Inches of rain from 0 to 100.")
        if value != value.quantize(type(value)("0.01")):
            raise ValidationError("Inches to two decimals at most.")


class StormEventSchema(RecordFieldsSchema):
    ended_at = fields.AwareDateTime()
    inches = fields.Decimal(as_string=True, places=2, metadata={"type": "string", "format": "decimal",
                                                                "pattern": r"^\d{1,3}\.\d{2}$"})
    source = fields.String()
    source_kind = fields.String()
    station = fields.String(allow_none=True)
    rain_day = fields.Date(allow_none=True)
    obliges = fields.Method("_obliges", metadata={"type": "boolean", "description": "At or over the storm "
                                                  "threshold: active sites owe a storm-event inspection"})

    def _obliges(self, record) -> bool:
        return storm_counts(record.inches, settings())


class StormListQuerySchema(Schema):
    since = fields.AwareDateTime(metadata={"description": "Storms that ended at or after this time"})
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=500))
    offset = fields.Integer(load_default=0, validate=validate.Range(min=0))


class StormImportQuerySchema(Schema):
    units = fields.String(load_default="standard", validate=validate.OneOf(UNITS), metadata={
        "description": "The units the NOAA CDO order was placed in: standard (PRCP in inches) or metric "
                       "(PRCP in millimetres, converted to inches)"})


class StormImportSchema(Schema):
    created = Integer()
    updated = Integer()
    unchanged = Integer()
    below_threshold = Integer(metadata={"description": "Days with rain under the threshold (not stored)"})
    days_read = Integer()
    events = fields.List(fields.Nested(StormEventSchema))


# ---- inspection requests ----------------------------------------------------------------------------
class InspectionRequestCreateSchema(Schema):
    id = fields.UUID(load_default=None)
    permit_id = fields.UUID(required=True)
    kind = fields.String(required=True, validate=validate.OneOf(REQUEST_KINDS))
    preferred_dates = fields.List(fields.Date(), load_default=list, validate=validate.Length(max=5))
    note = fields.String(load_default=None, allow_none=True, validate=validate.Length(max=2000))
    device_created_at = fields.AwareDateTime(load_default=None, allow_none=True,
                                             metadata={"description": "When the device made it (its own clock)"})


class InspectionRequestSchema(RecordFieldsSchema):
    permit_id = fields.String()
    kind = fields.String()
    inspection_kind = fields.String(metadata={"description": "The kind of inspection that meets it"})
    preferred_dates = fields.List(fields.String())
    note = fields.String(allow_none=True)
    due_at = fields.AwareDateTime()
    status = fields.String(metadata={"enum": ["open", "done"]})
    done_at = fields.AwareDateTime(allow_none=True, metadata={"description": "When the inspection that met it began"})
    inspection_id = fields.String(allow_none=True)


class RequestListQuerySchema(Schema):
    permit_id = fields.UUID()
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=500))
    offset = fields.Integer(load_default=0, validate=validate.Range(min=0))

