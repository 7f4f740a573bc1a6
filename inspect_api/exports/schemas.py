"""Query and answer shapes of the exports (format only)."""
from __future__ import annotations

from marshmallow import Schema, fields, validate

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
    received = fields.Integer(metadata={"description": "Applications submitted in the range"})
    received_by_level = fields.Dict(keys=fields.String(), values=fields.Integer())
    decided = fields.Integer(metadata={"description": "Approvals, issues and denials in the range"})
    decided_by_outcome = fields.Dict(keys=fields.String(), values=fields.Integer())


class InspectionCountsSchema(Schema):
    total = fields.Integer(metadata={"description": "Recorded inspections (submitted, approved or returned; no "
                                                    "drafts) started in the range"})
    by_kind = fields.Dict(keys=fields.String(), values=fields.Integer())


class EnforcementCountsSchema(Schema):
    total = fields.Integer(metadata={"description": "Orders plus citations"})
    orders = fields.Integer()
    orders_by_kind = fields.Dict(keys=fields.String(), values=fields.Integer(),
                                 metadata={"description": "An order of several kinds counts under each"})
    citations = fields.Integer()


class FindingCountsSchema(Schema):
    opened = fields.Integer()
    closed = fields.Integer()


class InspectionProgramCountSchema(Schema):
    kind = fields.String()
    month = fields.String(metadata={"description": "YYYY-MM of the day the inspection fell due (Town time)"})
    due = fields.Integer()
    on_time = fields.Integer()
    late = fields.Integer()
    not_done = fields.Integer(metadata={"description": "Past due and not done"})
    missed = fields.Integer(metadata={"description": "Of those not done, the ones that can no longer be done: a "
                                                     "pre-construction inspection once work has commenced, a "
                                                     "construction-phase one once work is complete"})


class Ms4ReportSchema(Schema):
    start = fields.Date(data_key="from")
    end = fields.Date(data_key="to")
    generated_at = fields.DateTime()
    site_plan_reviews = fields.Nested(SitePlanReviewCountsSchema)
    inspections = fields.Nested(InspectionCountsSchema)
    enforcement_actions = fields.Nested(EnforcementCountsSchema)
    findings = fields.Nested(FindingCountsSchema)
    certificates_of_completion = fields.Integer()
    inspection_program = fields.List(fields.Nested(InspectionProgramCountSchema))
