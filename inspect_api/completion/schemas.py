"""Shapes of completion notices, final reports, their documents and certificates (format only)."""
from __future__ import annotations

from marshmallow import Schema, fields, validate

from ..paging import PageArgs
from ..schemas import Boolean, EditSchema, Integer, RecordFieldsSchema
from .rules import CONTROL_KINDS, DECISIONS, DOCUMENT_KINDS, NOTICE_STATUSES, REPORT_STATUSES

_text = validate.Length(max=20_000)
_name = validate.Length(min=1, max=200)


class CloseoutReviewSchema(Schema):
    decision = fields.String(required=True, validate=validate.OneOf(DECISIONS),
                             metadata={"description": "`accept`, or `return` to the applicant with reasons"})
    reasons = fields.String(validate=_text, allow_none=True,
                            metadata={"description": "Required when returning"})


class CloseoutReviewOutSchema(Schema):
    decision = fields.String()
    reasons = fields.String(allow_none=True)
    reviewed_at = fields.DateTime()
    reviewed_by = fields.String()


class _CloseoutRecordOut(RecordFieldsSchema):
    permit_id = fields.String()
    status = fields.String()
    submitted_at = fields.DateTime(allow_none=True)
    review = fields.Nested(CloseoutReviewOutSchema, allow_none=True)


# -- completion notices (R-F1) -----------------------------------------------------------------------------
class CompletionNoticeUpdateSchema(EditSchema):
    statement = fields.String(validate=validate.Length(min=1, max=20_000))
    photo_ids = fields.List(fields.UUID(), validate=validate.Length(min=1, max=200),
                            metadata={"description": "Photos of the completed work (at least one); a photo not "
                                                     "uploaded yet is accepted and listed as pending"})
    completed_on = fields.Date(allow_none=True, metadata={"description": "When the work was completed"})
    version = Integer(metadata={"description": "The version edited (or send If-Match)"})


class CompletionNoticeCreateSchema(CompletionNoticeUpdateSchema):
    id = fields.UUID(metadata={"description": "Client-made UUID; posting it again with the same data is idempotent"})
    permit_id = fields.String(required=True, validate=validate.Length(min=1, max=36))
    statement = fields.String(required=True, validate=validate.Length(min=1, max=20_000))
    photo_ids = fields.List(fields.UUID(), required=True, validate=validate.Length(min=1, max=200))
    device_created_at = fields.AwareDateTime(metadata={"description": "The device's clock when it was made"})


class CompletionNoticePhotoSchema(Schema):
    id = fields.String()
    status = fields.String(metadata={"description": "`uploaded` or `pending` (referenced, bytes not received yet)"})


class CompletionNoticeSchema(_CloseoutRecordOut):
    statement = fields.String()
    photo_ids = fields.List(fields.String())
    photos = fields.List(fields.Nested(CompletionNoticePhotoSchema))
    completed_on = fields.Date(allow_none=True)


class CompletionNoticeQuerySchema(PageArgs):
    permit_id = fields.String(validate=validate.Length(max=64))
    status = fields.String(validate=validate.OneOf(NOTICE_STATUSES))


# -- final reports (R-F2) ----------------------------------------------------------------------------------
class FinalReportStampSchema(Schema):
    name = fields.String(required=True, validate=_name)
    license_number = fields.String(required=True, validate=validate.Length(min=1, max=40))
    stamp_date = fields.Date(required=True)


class FinalReportCertificationSchema(Schema):
    substantial_compliance = Boolean(load_default=False)
    permanent_erosion_controls = Boolean(load_default=False)
    stormwater_facilities = Boolean(load_default=False)
    statement = fields.String(validate=_text, allow_none=True)
    certified_by = fields.String(validate=validate.Length(max=200), allow_none=True)


class FinalReportDiscrepancySchema(Schema):
    description = fields.String(required=True, validate=validate.Length(min=1, max=5000))
    location = fields.String(validate=validate.Length(max=500), allow_none=True)
    resolution = fields.String(validate=validate.Length(max=5000), allow_none=True)


class FinalReportControlSchema(Schema):
    name = fields.String(required=True, validate=_name)
    kind = fields.String(required=True, validate=validate.OneOf(CONTROL_KINDS))
    description = fields.String(validate=validate.Length(max=5000), allow_none=True)
    location = fields.String(validate=validate.Length(max=500), allow_none=True)


class FinalReportUpdateSchema(Schema):
    pls_stamp = fields.Nested(FinalReportStampSchema, allow_none=True,
                              metadata={"description": "MA professional land surveyor's stamp on the as-built plan"})
    pe_stamp = fields.Nested(FinalReportStampSchema, allow_none=True,
                             metadata={"description": "MA registered professional engineer's stamp"})
    pe_applicable = Boolean(metadata={"description": "false when no PE stamp applies to this project"})
    certification = fields.Nested(FinalReportCertificationSchema)
    discrepancies = fields.List(fields.Nested(FinalReportDiscrepancySchema), allow_none=True,
                                validate=validate.Length(max=500),
                                metadata={"description": "Discrepancies from the approved plan; [] states none"})
    controls = fields.List(fields.Nested(FinalReportControlSchema), validate=validate.Length(max=500),
                           metadata={"description": "All structural and non-structural controls on site"})
    om_statement = fields.String(validate=_text, allow_none=True,
                                 metadata={"description": "How the system was operated and maintained "
                                                          "per the O&M plan"})
    version = Integer()


class FinalReportCreateSchema(FinalReportUpdateSchema):
    id = fields.UUID()
    permit_id = fields.String(required=True, validate=validate.Length(min=1, max=36))
    device_created_at = fields.AwareDateTime()


class FinalReportDocumentSchema(Schema):
    id = fields.String()
    kind = fields.String()
    filename = fields.String(metadata={"description": "The file's name, or the name a paper was recorded by"})
    content_type = fields.String(allow_none=True, metadata={"description": "null: delivered on paper"})
    sha256 = fields.String(allow_none=True)
    bytes = Integer(allow_none=True)
    uploaded_at = fields.DateTime()
    uploaded_by = fields.String(allow_none=True)
    on_paper = Boolean(metadata={"description": "Delivered to the Town on paper and recorded by name "
                                                       "(no file); it counts as on file (R-F2)"})
    url = fields.String(allow_none=True, metadata={"description": "Where the file's bytes are read; null on paper"})


class FinalReportSchema(_CloseoutRecordOut):
    pls_stamp = fields.Nested(FinalReportStampSchema, allow_none=True)
    pe_stamp = fields.Nested(FinalReportStampSchema, allow_none=True)
    pe_applicable = Boolean()
    certification = fields.Nested(FinalReportCertificationSchema)
    discrepancies = fields.List(fields.Nested(FinalReportDiscrepancySchema), allow_none=True)
    controls = fields.List(fields.Nested(FinalReportControlSchema))
    om_statement = fields.String(allow_none=True)
    documents = fields.List(fields.Nested(FinalReportDocumentSchema))
    work_completed_on = fields.Date(allow_none=True)
    due_on = fields.Date(allow_none=True, metadata={"description": "Completion of work + 2 years (29 Feb -> 28 Feb)"})
    overdue = Boolean(metadata={"description": "Due date passed and not submitted"})
    submitted_late = Boolean()
    missing = fields.Dict(metadata={"description": "What still stands in the way of submitting, by field"})


class FinalReportQuerySchema(PageArgs):
    permit_id = fields.String(validate=validate.Length(max=64))
    status = fields.String(validate=validate.OneOf(REPORT_STATUSES))
    overdue = fields.Boolean()


class FinalReportDocumentUploadQuerySchema(Schema):
    kind = fields.String(required=True, validate=validate.OneOf(DOCUMENT_KINDS))
    filename = fields.String(validate=validate.Length(min=1, max=200))


class FinalReportPaperDocumentSchema(Schema):
    kind = fields.String(required=True, validate=validate.OneOf(DOCUMENT_KINDS))
    name = fields.String(required=True, validate=validate.Length(min=1, max=200),
                         metadata={"description": "What the paper is, as the Town files it (e.g. "
                                                  "\"O&M log 2025-2026, delivered 3 March\")"})


# -- certificates (R-F3) -----------------------------------------------------------------------------------
class CompletionCertificateRequestSchema(Schema):
    remarks = fields.String(validate=validate.Length(max=2000), allow_none=True)


class CompletionCertificateSchema(Schema):
    id = fields.String()
    permit_id = fields.String()
    number = fields.String(metadata={"description": "COC-YYYY-NNNN, sequential per year"})
    issued_at = fields.DateTime()
    issued_on = fields.Date()
    issued_by = fields.String()
    basis_type = fields.String(metadata={"description": "`completion_notice` or `final_report`"})
    basis_id = fields.String()
    remarks = fields.String(allow_none=True)
    pdf_url = fields.String()


class CompletionCertificateQuerySchema(Schema):
    permit_id = fields.String(validate=validate.Length(max=64))
