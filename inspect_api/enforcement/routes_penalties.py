"""Violations, penalty exposure (R-P1), citations and the town's fine schedule (R-P2)."""
from __future__ import annotations

from flask.views import MethodView

from ..http import Blueprint
from ..auth.permissions import current_user, login_required, roles_required
from .. import paging, renditions
from ..database import writes
from ..records import expected_version, versioned
from . import penalties
from .schemas_penalties import (CitationCreateSchema, CitationListArgs, CitationSchema, CitationUpdateSchema,
                              FineScheduleSchema, PenaltyExposureArgs, PenaltyExposureSchema, ViolationCreateSchema,
                              ViolationListArgs, ViolationSchema, ViolationUpdateSchema)

blp = Blueprint("penalties", __name__, url_prefix="/api/v1",
                description="Violations, maximum penalty exposure and non-criminal citations (R-P1-R-P3)")


@blp.route("/violations")
class Violations(MethodView):
    @login_required
    @blp.arguments(ViolationListArgs, location="query")
    @blp.response(200, ViolationSchema(many=True), headers=paging.HEADERS)
    def get(self, args):
        """List the violations you may see (applicants: those on their own permits)"""
        violations, total = penalties.list_violations(current_user, args)
        return violations, 200, paging.total_header(total)

    @roles_required("supervisor")
    @blp.arguments(ViolationCreateSchema)
    @blp.response(201, ViolationSchema)
    @blp.alt_response(200, schema=ViolationSchema, description="The same id and data again: the existing record")
    def post(self, body):
        """Record a violation of a permit condition or a provision, its days and evidence (supervisor)"""
        record, created = penalties.create_violation(current_user, body)
        return record, 201 if created else 200


@blp.route("/violations/<violation_id>")
class ViolationItem(MethodView):
    @login_required
    @blp.response(200, ViolationSchema)
    def get(self, violation_id):
        """One violation"""
        return penalties.get_violation(current_user, violation_id)

    @roles_required("supervisor")
    @blp.arguments(ViolationUpdateSchema)
    @blp.response(200, ViolationSchema)
    @blp.alt_response(409, description="`version_conflict`")
    @versioned(blp, conflict=False)
    def patch(self, body, violation_id):
        """Extend or end the days, add evidence, note a referral for injunctive relief or a court case (supervisor)"""
        record = penalties.get_violation(current_user, violation_id)
        return penalties.update_violation(current_user, record, body, expected_version(body))


@blp.route("/permits/<permit_id>/penalty-exposure")
@login_required
@blp.arguments(PenaltyExposureArgs, location="query")
@blp.response(200, PenaltyExposureSchema)
def penalty_exposure(args, permit_id):
    """Maximum penalty exposure through a day: each day and each condition an offense, $300 each (R-P1)"""
    return penalties.penalty_exposure(current_user, permit_id, args.get("through"))


@blp.route("/fine-schedule")
class FineScheduleView(MethodView):
    @login_required
    @blp.response(200, FineScheduleSchema)
    def get(self):
        """The town's fine schedule for non-criminal citations (first, second, third and later offense)"""
        return penalties.fine_schedule()

    @roles_required("supervisor")
    @blp.arguments(FineScheduleSchema)
    @blp.response(200, FineScheduleSchema)
    def put(self, body):
        """Set the fine schedule; each fine at most $300 (MGL c.40 §21D; supervisor)"""
        return penalties.set_fine_schedule(current_user, body)


@blp.route("/citations")
class Citations(MethodView):
    @login_required
    @blp.arguments(CitationListArgs, location="query")
    @blp.response(200, CitationSchema(many=True), headers=paging.HEADERS)
    def get(self, args):
        """List the citations you may see (applicants: those on their own permits)"""
        citations, total = penalties.list_citations(current_user, args)
        return citations, 200, paging.total_header(total)

    @roles_required("supervisor")
    @blp.arguments(CitationCreateSchema)
    @blp.response(201, CitationSchema)
    @blp.alt_response(200, schema=CitationSchema, description="The same id and data again: the existing citation")
    @blp.alt_response(409, description="`duplicate_citation`: this violator, provision and day are already cited")
    def post(self, body):
        """Issue a non-criminal citation with the scheduled fine and the 21-day window (supervisor, R-P2)"""
        record, created = penalties.create_citation(current_user, body)
        return record, 201 if created else 200


@blp.route("/citations/<record:citation_id>")
class CitationItem(MethodView):
    @login_required
    @blp.response(200, CitationSchema)
    def get(self, citation_id):
        """One citation"""
        return penalties.get_citation(current_user, citation_id)

    @roles_required("supervisor")
    @blp.arguments(CitationUpdateSchema)
    @blp.response(200, CitationSchema)
    @versioned(blp)
    def patch(self, body, citation_id):
        """Record delivery (starting the 21 days), notes or a court case note (supervisor)"""
        record = penalties.get_citation(current_user, citation_id)
        return penalties.update_citation(current_user, record, body, expected_version(body))


@blp.route("/citations/<record:citation_id>.pdf")
@login_required
@blp.doc(responses={"200": {"description": "The citation as a ticket (PDF)",
                            "content": {"application/pdf": {"schema": {"type": "string", "format": "binary"}}}}})
@blp.alt_response(304, description="Not modified: the If-None-Match sent names the document as issued")
@writes
def citation_document(citation_id):
    """The §21D citation as a ticket: offence, date, location, fine, how to pay or contest within 21 days.
    The document as issued when the citation was written (signed when the Town has a signing key): the
    same bytes every time and in the e-mailed copy; its SHA-256 is the ETag."""
    record = penalties.get_citation(current_user, citation_id)
    return renditions.issued_response(penalties.issued_citation(record), filename=f"{record.number}.pdf")
