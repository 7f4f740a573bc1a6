"""Completion notices (R-F1) and certificates of completion (R-F3); final reports live in routes_reports."""
from __future__ import annotations

from flask.views import MethodView

from ..http import Blueprint
from ..auth.permissions import current_user, login_required, roles_required
from .. import paging, renditions
from ..database import writes
from ..records import expected_version, versioned
from . import certificates, services
from .routes_reports import blp as report_blp
from .schemas import (CloseoutReviewSchema, CompletionCertificateQuerySchema, CompletionCertificateRequestSchema,
                      CompletionCertificateSchema, CompletionNoticeCreateSchema, CompletionNoticeQuerySchema,
                      CompletionNoticeSchema, CompletionNoticeUpdateSchema)

blp = Blueprint("completion", __name__, url_prefix="/api/v1",
                description="Completion notices of administrative reviews (R-F1) and certificates of completion (R-F3)")
PDF_RESPONSE = {"200": {"description": "The certificate as a PDF",
                        "content": {"application/pdf": {"schema": {"type": "string", "format": "binary"}}}}}


@blp.route("/completion-notices")
class Notices(MethodView):
    @login_required
    @blp.arguments(CompletionNoticeQuerySchema, location="query")
    @blp.response(200, CompletionNoticeSchema(many=True), headers=paging.HEADERS)
    def get(self, args):
        """List the completion notices you may see (applicants: their own)"""
        notices, total = services.list_completion_notices(current_user, args)
        return notices, 200, paging.total_header(total)

    @login_required
    @blp.arguments(CompletionNoticeCreateSchema)
    @blp.response(201, CompletionNoticeSchema)
    @blp.alt_response(200, schema=CompletionNoticeSchema, description="The same id and data again: the existing notice")
    @blp.alt_response(409, description="`notice_exists`, `conflict`, `wrong_closeout_kind` or `permit_not_active`")
    def post(self, body):
        """File the completion notice of an administrative review: statement and at least one photo (R-F1)"""
        notice, created = services.create_completion_notice(current_user, body)
        return services.notice_view(notice), 201 if created else 200


@blp.route("/completion-notices/<notice_id>")
class NoticeItem(MethodView):
    @login_required
    @blp.response(200, CompletionNoticeSchema)
    def get(self, notice_id):
        """One completion notice"""
        return services.notice_view(services.get_completion_notice(current_user, notice_id))

    @login_required
    @blp.arguments(CompletionNoticeUpdateSchema)
    @blp.response(200, CompletionNoticeSchema)
    @blp.alt_response(409, description="`version_conflict` (current record in errors.current) or `record_locked`")
    @versioned(blp, conflict=False)
    def patch(self, body, notice_id):
        """Correct a submitted or returned notice (If-Match or version); a returned one is submitted again"""
        notice = services.get_completion_notice(current_user, notice_id)
        return services.notice_view(
            services.update_completion_notice(current_user, notice, body, expected_version(body)))


@blp.route("/completion-notices/<notice_id>/review", methods=["POST"])
@roles_required("supervisor")
@blp.arguments(CloseoutReviewSchema)
@blp.response(200, CompletionNoticeSchema)
@blp.alt_response(409, description="`invalid_transition`: only a submitted notice is reviewed; "
                                   "`photos_not_received`: accepted only once one of its photos has arrived (R-F1)")
def review_notice(body, notice_id):
    """Accept a completion notice, or return it with reasons (supervisor, R-F3)"""
    notice = services.get_completion_notice(current_user, notice_id)
    return services.notice_view(
        services.review_completion_notice(current_user, notice, body["decision"], body.get("reasons")))


@blp.route("/permits/<permit_id>/certificate")
class PermitCertificate(MethodView):
    @login_required
    @blp.response(200, CompletionCertificateSchema)
    def get(self, permit_id):
        """The certificate of completion of a permit (404 until issued)"""
        return certificates.certificate_view(certificates.get_permit_certificate(current_user, permit_id))

    @roles_required("supervisor")
    @blp.arguments(CompletionCertificateRequestSchema)
    @blp.response(201, CompletionCertificateSchema)
    @blp.alt_response(409, description="`permit_not_work_complete`, `completion_not_accepted` or `certificate_exists`")
    def post(self, body, permit_id):
        """Issue the numbered certificate of completion; closes the permit (supervisor, R-F3)"""
        return certificates.certificate_view(
            certificates.issue_certificate(current_user, permit_id, body.get("remarks")))


@blp.route("/certificates")
@login_required
@blp.arguments(CompletionCertificateQuerySchema, location="query")
@blp.response(200, CompletionCertificateSchema(many=True))
def list_certificates(args):
    """List the certificates of completion you may see"""
    return certificates.list_certificates(current_user, args.get("permit_id"))


@blp.route("/certificates/<record:certificate_id>.pdf")
@login_required
@blp.doc(responses=PDF_RESPONSE)
@blp.alt_response(304, description="Not modified: the If-None-Match sent names the document as issued")
@writes
def certificate_document(certificate_id):
    """The certificate of completion as a PDF: the document as issued (signed when the Town has a signing
    key), the same bytes every time and in the e-mailed copy; its SHA-256 is the ETag"""
    cert = certificates.get_certificate(current_user, certificate_id)
    return renditions.issued_response(certificates.issued_certificate(cert), filename=f"{cert.number}.pdf")


@blp.route("/certificates/<record:certificate_id>")
@login_required
@blp.response(200, CompletionCertificateSchema)
def certificate_item(certificate_id):
    """One certificate of completion"""
    return certificates.certificate_view(certificates.get_certificate(current_user, certificate_id))


blueprints = [blp, report_blp]
