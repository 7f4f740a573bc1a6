"""Shapes of samples and action levels (API.md "Record shapes"). Format only; units and limits are
checked in rules.py so one message explains each refusal."""
from __future__ import annotations

from marshmallow import fields, validate

from ..schemas import Boolean, EditSchema, GpsFixSchema, Integer, Schema
from ..paging import PageArgs
from .models import ANALYSES, BASES, SAMPLE_TYPES

_name = validate.Length(min=1, max=200)
_container = validate.Length(min=1, max=100)


class ParameterInSchema(Schema):
    name = fields.String(required=True, validate=validate.Length(min=1, max=60), metadata={
        "description": "turbidity, tss, ph, temperature, dissolved_oxygen, conductivity, oil_and_grease; "
                       "any other name is kept free-form with its unit."})
    value = fields.Raw(required=True, allow_none=True, metadata={
        "description": "A finite number, as a JSON number or as decimal text (\"12.50\") to keep it exact; "
                       "null only on a lab sample while its result is awaited (the analysis is requested, "
                       "its holding time runs).",
        "oneOf": [{"type": "number"}, {"type": "string"}, {"type": "null"}]})
    unit = fields.String(required=True, validate=validate.Length(min=1, max=20), metadata={
        "description": "turbidity: NTU; tss, dissolved_oxygen, oil_and_grease: mg/L, g/L, ug/L; ph: SU; "
                       "temperature: C, F, K; conductivity: uS/cm, mS/cm."})
    method = fields.String(allow_none=True, validate=validate.Length(max=200),
                           metadata={"description": "Analytical method, e.g. EPA 180.1"})
    container = fields.String(allow_none=True, validate=_container, metadata={
        "description": "The bottle the analysis is sent in, as written on its label, e.g. \"1 L HDPE\"."})
    preservative = fields.String(allow_none=True, validate=_container, metadata={
        "description": "How it is preserved, as written, e.g. \"none\", \"ice \u2264 6 \u00b0C\", "
                       "\"H2SO4 to pH<2\" (free text)."})


class ParameterSchema(ParameterInSchema):
    normalized_value = fields.Float(allow_none=True, metadata={
        "description": "The value in the parameter's canonical unit; null while the lab's result is awaited."})
    normalized_unit = fields.String()


class CustodyTransferSchema(Schema):
    """One hand-over of the sample (R-S1): in time order, none before sampled_at."""

    from_name = fields.String(required=True, validate=_name, metadata={"description": "Relinquished by (a name)."})
    to_name = fields.String(required=True, validate=_name, metadata={"description": "Received by (a name)."})
    at = fields.AwareDateTime(required=True, metadata={"description": "When the sample changed hands."})
    signature_photo_id = fields.UUID(allow_none=True, metadata={
        "description": "The signature drawn on the device at the hand-over, uploaded as a photo of the sample "
                       "(as an entry authorization's)."})


class SampleWritable(Schema):
    """The fields a device may write, all optional (PATCH); the create schema marks the required ones."""

    entry_authorization_id = fields.UUID(allow_none=True, metadata={
        "description": "The authorization relied on; when omitted, one that covers sampling then is found."})
    sampled_at = fields.AwareDateTime()
    sampler = fields.String(validate=_name, metadata={"description": "Who took the sample (a name)."})
    location = fields.Nested(GpsFixSchema, allow_none=True)
    outfall_id = fields.String(allow_none=True, validate=validate.Length(min=1, max=60),
                               metadata={"description": "The discharge point, e.g. OF-1"})
    sample_type = fields.String(validate=validate.OneOf(SAMPLE_TYPES))
    analysis = fields.String(validate=validate.OneOf(ANALYSES))
    lab_name = fields.String(allow_none=True, validate=_name)
    parameters = fields.List(fields.Nested(ParameterInSchema), validate=validate.Length(max=50))
    chain_of_custody = fields.List(fields.Nested(CustodyTransferSchema), validate=validate.Length(max=50))
    received_by_lab_at = fields.AwareDateTime(allow_none=True, metadata={
        "description": "The lab's receipt: when it received the sample (after the last hand-over)."})
    lab_received_by = fields.String(allow_none=True, validate=_name, metadata={
        "description": "The lab's receipt: who at the lab received the sample."})
    lab_receipt_temperature_c = fields.Float(allow_none=True, validate=validate.Range(min=-5, max=60), metadata={
        "description": "The lab's receipt: the sample's temperature on arrival, in \u00b0C."})
    analyzed_at = fields.AwareDateTime(allow_none=True)
    notes = fields.String(allow_none=True, validate=validate.Length(max=4000))


class SampleCreateSchema(SampleWritable):
    id = fields.UUID(metadata={"description": "Client-made UUID; POSTing it again is idempotent."})
    permit_id = fields.UUID(required=True)
    sampled_at = fields.AwareDateTime(required=True)
    sampler = fields.String(required=True, validate=_name)
    sample_type = fields.String(required=True, validate=validate.OneOf(SAMPLE_TYPES))
    analysis = fields.String(required=True, validate=validate.OneOf(ANALYSES))
    parameters = fields.List(fields.Nested(ParameterInSchema), load_default=list, validate=validate.Length(max=50))
    chain_of_custody = fields.List(fields.Nested(CustodyTransferSchema), load_default=list,
                                   validate=validate.Length(max=50))
    device_created_at = fields.AwareDateTime(allow_none=True)


class SampleUpdateSchema(EditSchema, SampleWritable):
    version = Integer(metadata={"description": "The version edited (or send If-Match)."})


class ActionLevelOutSchema(Schema):
    min = fields.Float(allow_none=True)
    max = fields.Float(allow_none=True)
    unit = fields.String()
    basis = fields.String()


class ExceedanceSchema(Schema):
    parameter = fields.String()
    value = fields.Float()
    unit = fields.String()
    action_level = fields.Nested(ActionLevelOutSchema)
    rule = fields.String()


class HoldingTimeSchema(Schema):
    parameter = fields.String()
    limit = fields.String(metadata={"description": "ISO 8601 duration (40 CFR 136.3 Table II)"})
    limit_seconds = Integer()
    elapsed = fields.String(allow_none=True, metadata={"description": "ISO 8601 duration; null if not judged"})
    elapsed_seconds = Integer(allow_none=True)
    analyzed = Boolean()
    deadline = fields.AwareDateTime(metadata={"description": "Analyse by: sampled_at + limit"})
    ok = Boolean(allow_none=True)
    status = fields.String(metadata={
        "enum": ["running", "within", "exceeded", "not_judged"],
        "description": "running: not analysed yet and within the limit; within: analysed within it; exceeded: "
                       "analysed after the limit, or not analysed and past it; not_judged: a field reading "
                       "without analyzed_at. Exactly at the limit is within; one second over is exceeded."})
    exceeded_by_seconds = Integer(allow_none=True, metadata={
        "description": "How far past the limit; null unless exceeded"})


class SampleSchema(Schema):
    id = fields.String()
    version = Integer()
    created_at = fields.AwareDateTime()
    updated_at = fields.AwareDateTime()
    created_by = fields.String(allow_none=True)
    device_id = fields.String(allow_none=True)
    device_created_at = fields.AwareDateTime(allow_none=True)
    permit_id = fields.String()
    entry_authorization_id = fields.String()
    sampled_at = fields.AwareDateTime()
    sampler = fields.String()
    location = fields.Nested(GpsFixSchema, allow_none=True)
    outfall_id = fields.String(allow_none=True)
    sample_type = fields.String()
    analysis = fields.String()
    lab_name = fields.String(allow_none=True)
    parameters = fields.List(fields.Nested(ParameterSchema))
    chain_of_custody = fields.List(fields.Nested(CustodyTransferSchema))
    received_by_lab_at = fields.AwareDateTime(allow_none=True)
    lab_received_by = fields.String(allow_none=True)
    lab_receipt_temperature_c = fields.Float(allow_none=True)
    analyzed_at = fields.AwareDateTime(allow_none=True)
    notes = fields.String(allow_none=True)
    exceedances = fields.List(fields.Nested(ExceedanceSchema))
    holding_time = fields.List(fields.Nested(HoldingTimeSchema))
    finding_ids = fields.List(fields.String())


class SampleQuerySchema(PageArgs):
    permit_id = fields.UUID()


class ActionLevelSchema(Schema):
    parameter = fields.String(required=True, validate=validate.Length(min=1, max=60))
    basis = fields.String(required=True, validate=validate.OneOf(BASES), metadata={
        "description": "per_sample: each result is judged; weekly_average: the average per discharge point "
                       "and town-calendar week (Monday to Sunday, America/New_York) is judged."})
    unit = fields.String(required=True, validate=validate.Length(min=1, max=20))
    min = fields.Raw(allow_none=True, load_default=None, metadata={"type": "number", "description": "Lowest allowed"})
    max = fields.Raw(allow_none=True, load_default=None, metadata={"type": "number", "description": "Highest allowed"})
    citation = fields.String(load_default="", validate=validate.Length(max=500))
    rule = fields.String(dump_only=True)
    updated_at = fields.AwareDateTime(dump_only=True)
    updated_by = fields.String(dump_only=True, allow_none=True)


class ActionLevelsSchema(Schema):
    levels = fields.List(fields.Nested(ActionLevelSchema), required=True, validate=validate.Length(max=100))


class WeeklyTurbiditySchema(Schema):
    outfall_id = fields.String()
    week_start = fields.Date(metadata={"description": "Monday of the week, America/New_York calendar"})
    samples = Integer()
    average_ntu = fields.Float()
    action_level_ntu = fields.Float(allow_none=True)
    exceeds = Boolean()
    finding_id = fields.String(allow_none=True)
