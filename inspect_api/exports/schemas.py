"""Query and answer shapes of the exports (format only)."""
from __future__ import annotations

from marshmallow import Schema, fields, validate

from ..schemas import Integer
from .rules import PERMIT_LAYERS


class ExportRangeSchema(Schema):
    start = fields.Date(data_key="from", metadata={"description": "First day included (YYYY-MM-DD, Fairhaven)"})
    end = fields.Date(data_key="to", metadata={"description": "Last day included"})


class PermitExportQuerySchema(Schema):
    layer = fields.String(validate=validate.OneOf(PERMIT_LAYERS),
                          metadata={"description": "Only site points or only limit-of-work polygons (one geometry "
                                                   "type per file, for tools that want one layer); default both"})
    status = fields.String(validate=validate.Length(max=20))


class FindingExportQuerySchema(ExportRangeSchema):
    status = fields.String(validate=validate.OneOf(("open", "closed")))


class PhotoExportQuerySchema(ExportRangeSchema):
    permit_id = fields.String(validate=validate.Length(max=36))


class Ms4QuerySchema(Schema):
    start = fields.Date(data_key="from", required=True, metadata={"description": "First day included"})
    end = fields.Date(data_key="to", required=True, metadata={"description": "Last day included"})


class SitePlanReviewCountsSchema(Schema):
    received = Integer(metadata={"description": "Applications submitted in the range"})
    received_by_level = fields.Dict(keys=fields.String(), values=Integer())
    decided = Integer(metadata={"description": "Approvals, issues and denials in the range"})
    decided_by_outcome = fields.Dict(keys=fields.String(), values=Integer())


class InspectionCountsSchema(Schema):
    total = Integer(metadata={"description": "Recorded inspections (submitted, approved or returned; no "
                                                    "drafts) started in the range"})
    by_kind = fields.Dict(keys=fields.String(), values=Integer())


class EnforcementCountsSchema(Schema):
    total = Integer(metadata={"description": "Orders plus citations"})
    orders = Integer()
    orders_by_kind = fields.Dict(keys=fields.String(), values=Integer(),
                                 metadata={"description": "An order of several kinds counts under each"})
    citations = Integer()


class FindingCountsSchema(Schema):
    opened = Integer()
    closed = Integer()


class InspectionProgramCountSchema(Schema):
    kind = fields.String()
    month = fields.String(metadata={"description": "YYYY-MM of the day the inspection fell due (Town time)"})
    due = Integer()
    on_time = Integer()
    late = Integer()
    not_done = Integer(metadata={"description": "Past due and not done"})
    missed = Integer(metadata={"description": "Of those not done, the ones that can no longer be done: a "
                                                     "pre-construction inspection once work has commenced, a "
                                                     "construction-phase one once work is complete"})


class PublicReportCountsSchema(Schema):
    received = Integer(metadata={"description": "Reports from the public received in the range"})
    triaged = Integer(metadata={"description": "Of those, triaged by now (linked, a case opened, or closed)"})
    led_to_inspection = Integer(metadata={"description": "Of those, with a complaint inspection recorded that met "
                                                         "the one the triage made due"})
    led_to_order = Integer(metadata={"description": "Of those, linked to a permit or case that had an order issued "
                                                    "on or after the day the report came in"})
    median_days_to_first_response = fields.Float(allow_none=True, metadata={
        "description": "Median days from receipt to the first response (triage), to one decimal; null without any"})


class Ms4ReportSchema(Schema):
    start = fields.Date(data_key="from")
    end = fields.Date(data_key="to")
    generated_at = fields.DateTime()
    site_plan_reviews = fields.Nested(SitePlanReviewCountsSchema)
    inspections = fields.Nested(InspectionCountsSchema)
    enforcement_actions = fields.Nested(EnforcementCountsSchema)
    findings = fields.Nested(FindingCountsSchema)
    certificates_of_completion = Integer()
    inspection_program = fields.List(fields.Nested(InspectionProgramCountSchema))
    public_reports = fields.Nested(PublicReportCountsSchema)
