"""Sub-resources of a permit: exemption claims, conditions, phases, documents, inspector assignments."""
from __future__ import annotations

from flask import request
from flask.views import MethodView
from flask_jwt_extended import current_user

from ..http import Blueprint
from ..auth.permissions import login_required, roles_required
from .. import documents as files
from ..records import expected_version, versioned
from . import exemptions, parts, services
from .schemas import (AssignmentCreateSchema, AssignmentQuerySchema, PermitAssignmentSchema, ConditionCreateSchema,
                      PermitConditionSchema, ConditionUpdateSchema, PermitDocumentCreateSchema, PermitDocumentSchema,
                      PermitDocumentUploadQuerySchema,
                      ExemptionCreateSchema, ExemptionDecisionSchema, ExemptionSchema, ExemptionUpdateSchema,
                      PhaseCompletionSchema, PhaseCreateSchema, PermitPhaseSchema, PhaseUpdateSchema)

parts_blp = Blueprint("permit-parts", __name__, url_prefix="/api/v1/permits/<permit_id>",
                      description="A permit's exemption claims (R-B), conditions (R-C3), phases, documents and "
                                  "inspector assignments")
SAME_AGAIN = "The same id and data were sent before"


def _permit(permit_id, *, lock=False):
    return services.get_permit(current_user, permit_id, for_update=lock)


@parts_blp.route("/exemptions")
class Exemptions(MethodView):
    @login_required
    @parts_blp.response(200, ExemptionSchema(many=True))
    def get(self, permit_id):
        """Exemption claims of the permit, each with its evidence, decision and whether it stands today"""
        return exemptions.list_exemptions(_permit(permit_id))

    @login_required
    @parts_blp.arguments(ExemptionCreateSchema)
    @parts_blp.response(201, ExemptionSchema)
    @parts_blp.alt_response(200, schema=ExemptionSchema, description=SAME_AGAIN)
    def post(self, body, permit_id):
        """Claim an exemption B1..B6 with its evidence (applicant, or a supervisor for them)"""
        claim, created = exemptions.claim_exemption(current_user, _permit(permit_id, lock=True), body)
        return claim, 201 if created else 200


@parts_blp.route("/exemptions/<exemption_id>")
class ExemptionItem(MethodView):
    @login_required
    @parts_blp.response(200, ExemptionSchema)
    def get(self, permit_id, exemption_id):
        """One exemption claim"""
        return exemptions.get_exemption(_permit(permit_id), exemption_id)

    @login_required
    @parts_blp.arguments(ExemptionUpdateSchema)
    @parts_blp.response(200, ExemptionSchema)
    @versioned(parts_blp)
    def patch(self, body, permit_id, exemption_id):
        """Complete a claim's evidence before it is decided, e.g. attach the order of conditions (If-Match)"""
        permit = _permit(permit_id, lock=True)
        claim = exemptions.get_exemption(permit, exemption_id)
        return exemptions.update_exemption(current_user, permit, claim, body, expected_version(body))


@parts_blp.route("/exemptions/<exemption_id>/decision")
class ExemptionDecision(MethodView):
    @roles_required("supervisor")
    @parts_blp.arguments(ExemptionDecisionSchema)
    @parts_blp.response(200, ExemptionSchema)
    @parts_blp.alt_response(409, description="exemption_document_invalid: B5/B6 without a document valid today")
    def post(self, body, permit_id, exemption_id):
        """Accept or reject an exemption claim (supervisor, R-B1); the determination is recomputed"""
        permit = _permit(permit_id, lock=True)
        claim = exemptions.get_exemption(permit, exemption_id)
        return exemptions.decide_exemption(current_user, permit, claim, body["decision"], body.get("reason"))


@parts_blp.route("/conditions")
class Conditions(MethodView):
    @login_required
    @parts_blp.response(200, PermitConditionSchema(many=True))
    def get(self, permit_id):
        """The permit's numbered conditions (each separately violable, R-C3)"""
        return _permit(permit_id).conditions

    @roles_required("supervisor")
    @parts_blp.arguments(ConditionCreateSchema)
    @parts_blp.response(201, PermitConditionSchema)
    def post(self, body, permit_id):
        """Add a condition; it takes the next number (supervisor)"""
        return parts.add_condition(current_user, _permit(permit_id, lock=True), body["text"])


@parts_blp.route("/conditions/<condition_id>")
class ConditionItem(MethodView):
    @login_required
    @parts_blp.response(200, PermitConditionSchema)
    def get(self, permit_id, condition_id):
        """One condition"""
        return parts.get_condition(_permit(permit_id), condition_id)

    @roles_required("supervisor")
    @parts_blp.arguments(ConditionUpdateSchema)
    @parts_blp.response(200, PermitConditionSchema)
    @versioned(parts_blp)
    def patch(self, body, permit_id, condition_id):
        """Reword a condition; its number stays (supervisor, If-Match)"""
        permit = _permit(permit_id, lock=True)
        condition = parts.get_condition(permit, condition_id)
        return parts.update_condition(current_user, permit, condition, body["text"], expected_version(body))


@parts_blp.route("/phases")
class Phases(MethodView):
    @login_required
    @parts_blp.response(200, PermitPhaseSchema(many=True))
    def get(self, permit_id):
        """The permit's construction phases"""
        return _permit(permit_id).phases

    @login_required
    @parts_blp.arguments(PhaseCreateSchema)
    @parts_blp.response(201, PermitPhaseSchema)
    def post(self, body, permit_id):
        """Add a phase (the applicant in a draft; a supervisor until the permit is closed)"""
        return parts.add_phase(current_user, _permit(permit_id, lock=True), body)


@parts_blp.route("/phases/<phase_id>")
class PhaseItem(MethodView):
    @login_required
    @parts_blp.response(200, PermitPhaseSchema)
    def get(self, permit_id, phase_id):
        """One phase"""
        return parts.get_phase(_permit(permit_id), phase_id)

    @login_required
    @parts_blp.arguments(PhaseUpdateSchema)
    @parts_blp.response(200, PermitPhaseSchema)
    @versioned(parts_blp)
    def patch(self, body, permit_id, phase_id):
        """Rename a phase or change its bond amount (If-Match)"""
        permit = _permit(permit_id, lock=True)
        return parts.update_phase(current_user, permit, parts.get_phase(permit, phase_id), body, expected_version(body))


@parts_blp.route("/phases/<phase_id>/completion")
class PhaseCompletion(MethodView):
    @roles_required("supervisor")
    @parts_blp.arguments(PhaseCompletionSchema)
    @parts_blp.response(200, PermitPhaseSchema)
    def post(self, body, permit_id, phase_id):
        """Record a phase complete, in compliance or not (supervisor; R-D2 bond release reads it)"""
        permit = _permit(permit_id, lock=True)
        return parts.complete_phase(current_user, permit, parts.get_phase(permit, phase_id), body)


@parts_blp.route("/documents")
class Documents(MethodView):
    @login_required
    @parts_blp.response(200, PermitDocumentSchema(many=True))
    def get(self, permit_id):
        """Documents of the application (ESC plan, O&M plan, other)"""
        return _permit(permit_id).documents

    @login_required
    @parts_blp.arguments(PermitDocumentCreateSchema)
    @parts_blp.response(201, PermitDocumentSchema)
    @parts_blp.alt_response(200, schema=PermitDocumentSchema, description=SAME_AGAIN)
    def post(self, body, permit_id):
        """Add a document's metadata (applicant before the decision, or a supervisor)"""
        document, created = parts.add_document(current_user, _permit(permit_id, lock=True), body)
        return document, 201 if created else 200


@parts_blp.route("/documents/<document_id>")
class DocumentItem(MethodView):
    @login_required
    @parts_blp.response(200, PermitDocumentSchema)
    def get(self, permit_id, document_id):
        """One document's metadata"""
        return parts.get_document(_permit(permit_id), document_id)


@parts_blp.route("/document-files", methods=["POST"])
@login_required
@parts_blp.arguments(PermitDocumentUploadQuerySchema, location="query")
@parts_blp.doc(requestBody=files.UPLOAD_BODY)
@parts_blp.response(201, PermitDocumentSchema)
@parts_blp.alt_response(200, schema=PermitDocumentSchema, description="The same bytes and kind again: the document")
@parts_blp.alt_response(408, description="The body arrived slower than UPLOAD_MIN_BYTES_PER_SECOND or took longer "
                                          "than UPLOAD_MAX_SECONDS; nothing is stored")
@parts_blp.alt_response(413, description="Larger than MAX_DOCUMENT_BYTES")
@parts_blp.alt_response(415, description="Not a PDF or image")
def upload_document(args, permit_id):
    """Attach a document as a file: the ESC plan, O&M plan or another, a PDF or image (applicant before the
    decision, or a supervisor; R-C1)"""
    # Not locked yet: the body arrives with no transaction open, and parts locks the permit after.
    document, created = parts.upload_document(
        current_user, _permit(permit_id), request.stream, args, content_type=request.content_type,
        content_length=request.content_length, sha256=request.headers.get("X-Content-SHA256"))
    return document, 201 if created else 200


@parts_blp.route("/documents/<document_id>/file")
@login_required
@parts_blp.doc(responses=files.BYTES_RESPONSE)
def document_file(permit_id, document_id):
    """The uploaded file of an application document (whoever may see the permit: its applicant, staff)"""
    document = parts.get_document_file(_permit(permit_id), document_id)
    return files.file_response(document.storage_key, filename=document.filename, content_type=document.content_type,
                               sha256=document.sha256)


@parts_blp.route("/assignments")
class Assignments(MethodView):
    @login_required
    @parts_blp.arguments(AssignmentQuerySchema, location="query")
    @parts_blp.response(200, PermitAssignmentSchema(many=True))
    def get(self, args, permit_id):
        """Inspectors assigned to the site (include_removed=true for the history)"""
        permit = _permit(permit_id)
        return [a for a in permit.assignments if args["include_removed"] or a.removed_at is None]

    @roles_required("supervisor")
    @parts_blp.arguments(AssignmentCreateSchema)
    @parts_blp.response(201, PermitAssignmentSchema)
    @parts_blp.alt_response(200, schema=PermitAssignmentSchema, description="The inspector was already assigned")
    def post(self, body, permit_id):
        """Assign an inspector to the site (supervisor)"""
        permit = _permit(permit_id, lock=True)
        already = services.active_assignment(permit, body["inspector_id"]) is not None
        return services.assign_inspector(permit, body["inspector_id"], current_user), 200 if already else 201


@parts_blp.route("/assignments/<inspector_id>")
class AssignmentItem(MethodView):
    @roles_required("supervisor")
    @parts_blp.response(204)
    def delete(self, permit_id, inspector_id):
        """End an inspector's assignment; their devices drop the site on the next pull (supervisor)"""
        services.unassign_inspector(_permit(permit_id, lock=True), inspector_id, current_user)
