"""Final reports of land disturbance permits (R-F2) and their documents."""
from __future__ import annotations

from flask import request
from flask.views import MethodView

from ..http import Blueprint
from ..auth.permissions import current_user, login_required, roles_required
from .. import paging
from .. import documents as files
from ..errors import NotFound
from ..records import expected_version, versioned
from . import documents, reports
from .schemas import (CloseoutReviewSchema, FinalReportCreateSchema, FinalReportDocumentSchema,
                      FinalReportDocumentUploadQuerySchema, FinalReportPaperDocumentSchema, FinalReportQuerySchema,
                      FinalReportSchema, FinalReportUpdateSchema)

blp = Blueprint("final_reports", __name__, url_prefix="/api/v1",
                description="Final reports of land disturbance permits, due two years after completion (R-F2)")
UPLOAD_BODY, BYTES_RESPONSE = files.UPLOAD_BODY, files.BYTES_RESPONSE


@blp.route("/final-reports")
class Reports(MethodView):
    @login_required
    @blp.arguments(FinalReportQuerySchema, location="query")
    @blp.response(200, FinalReportSchema(many=True), headers=paging.HEADERS)
    def get(self, args):
        """List the final reports you may see (applicants: their own); filter by permit, status, overdue"""
        views, total = reports.list_final_reports(current_user, args)
        return views, 200, paging.total_header(total)

    @login_required
    @blp.arguments(FinalReportCreateSchema)
    @blp.response(201, FinalReportSchema)
    @blp.alt_response(200, schema=FinalReportSchema, description="The same id and data again: the existing report")
    @blp.alt_response(409, description="`report_exists`, `conflict`, `wrong_closeout_kind` or `permit_not_active`")
    def post(self, body):
        """Start the final report of a land disturbance permit (a draft until submitted)"""
        report, created = reports.create_final_report(current_user, body)
        return reports.report_view(report), 201 if created else 200


@blp.route("/final-reports/<report_id>")
class ReportItem(MethodView):
    @login_required
    @blp.response(200, FinalReportSchema)
    def get(self, report_id):
        """One final report, with its due date, overdue flag and what is still missing"""
        return reports.report_view(reports.get_final_report(current_user, report_id))

    @login_required
    @blp.arguments(FinalReportUpdateSchema)
    @blp.response(200, FinalReportSchema)
    @blp.alt_response(409, description="`version_conflict` or `record_locked` (submitted or accepted)")
    @versioned(blp, conflict=False)
    def patch(self, body, report_id):
        """Edit a draft or returned final report (If-Match or version)"""
        report = reports.get_final_report(current_user, report_id)
        return reports.report_view(reports.update_final_report(current_user, report, body, expected_version(body)))


@blp.route("/final-reports/<report_id>/submit", methods=["POST"])
@login_required
@blp.response(200, FinalReportSchema)
@blp.alt_response(422, description="Incomplete: `errors` lists what R-F2 still needs, by field")
@versioned(blp, required=False, body=False)
def submit_report(report_id):
    """Submit the final report for review; it must be complete (R-F2)"""
    report = reports.get_final_report(current_user, report_id)
    version = expected_version(request.get_json(silent=True) or {}, required=False)
    return reports.report_view(reports.submit_final_report(current_user, report, version))


@blp.route("/final-reports/<report_id>/review", methods=["POST"])
@roles_required("supervisor")
@blp.arguments(CloseoutReviewSchema)
@blp.response(200, FinalReportSchema)
def review_report(body, report_id):
    """Accept a submitted final report, or return it with reasons (supervisor, R-F3)"""
    report = reports.get_final_report(current_user, report_id)
    return reports.report_view(
        reports.review_final_report(current_user, report, body["decision"], body.get("reasons")))


@blp.route("/final-reports/<report_id>/documents")
class ReportDocuments(MethodView):
    @login_required
    @blp.response(200, FinalReportDocumentSchema(many=True))
    def get(self, report_id):
        """The documents of a final report"""
        return [reports.document_view(d) for d in reports.get_final_report(current_user, report_id).documents]

    @login_required
    @blp.arguments(FinalReportDocumentUploadQuerySchema, location="query")
    @blp.doc(requestBody=UPLOAD_BODY)
    @blp.response(201, FinalReportDocumentSchema)
    @blp.alt_response(200, schema=FinalReportDocumentSchema,
                      description="The same bytes and kind again: the existing document")
    @blp.alt_response(408, description="The body arrived slower than UPLOAD_MIN_BYTES_PER_SECOND or took longer "
                                       "than UPLOAD_MAX_SECONDS; nothing is stored")
    @blp.alt_response(413, description="Larger than MAX_DOCUMENT_BYTES")
    @blp.alt_response(415, description="Not a PDF or image")
    def post(self, args, report_id):
        """Upload a document (as-built plan, cover letter, O&M records ...) to a draft or returned report"""
        report = reports.get_final_report(current_user, report_id)
        doc, created = documents.add_document(
            current_user, report, request.stream, kind=args["kind"], filename=args.get("filename"),
            content_type=request.content_type, content_length=request.content_length,
            sha256=request.headers.get("X-Content-SHA256"))
        return reports.document_view(doc), 201 if created else 200


@blp.route("/final-reports/<report_id>/paper-documents", methods=["POST"])
@roles_required("supervisor")
@blp.arguments(FinalReportPaperDocumentSchema)
@blp.response(201, FinalReportDocumentSchema)
@blp.alt_response(200, schema=FinalReportDocumentSchema, description="The same kind and name again: the existing record")
def record_paper_document(body, report_id):
    """Record a document delivered to the Town on paper, by name (supervisor): it counts as on file (R-F2)"""
    report = reports.get_final_report(current_user, report_id)
    doc, created = documents.record_paper_document(current_user, report, kind=body["kind"], name=body["name"])
    return reports.document_view(doc), 201 if created else 200


@blp.route("/final-reports/<report_id>/documents/<document_id>")
class ReportDocumentItem(MethodView):
    @login_required
    @blp.doc(responses=BYTES_RESPONSE)
    def get(self, report_id, document_id):
        """The bytes of one document"""
        doc = documents.get_document(reports.get_final_report(current_user, report_id), document_id)
        if doc.storage_key is None:
            raise NotFound("This document was delivered on paper and recorded by name: the Town holds it, "
                           "not a file.")
        return files.file_response(doc.storage_key, filename=doc.filename, content_type=doc.content_type,
                                   sha256=doc.sha256)

    @login_required
    @blp.response(204)
    def delete(self, report_id, document_id):
        """Remove a document from a draft or returned report"""
        documents.remove_document(current_user, reports.get_final_report(current_user, report_id), document_id)
