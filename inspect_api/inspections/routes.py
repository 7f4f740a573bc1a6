from __future__ import annotations

from flask.views import MethodView
from flask_jwt_extended import current_user

from ..http import Blueprint
from ..auth.permissions import login_required, roles_required
from .. import paging
from ..records import expected_version, versioned
from . import services
from .schemas import (FindingCreateSchema, FindingQuerySchema, FindingSchema, FindingUpdateSchema,
                      InspectionCreateSchema, InspectionQuerySchema, InspectionSchema, InspectionUpdateSchema,
                      InspectionReviewSchema, InspectionSubmitSchema)

blp = Blueprint("inspections", __name__, url_prefix="/api/v1",
                description="Inspections with checklists (R-I), submission and supervisor review")
findings_blp = Blueprint("findings", __name__, url_prefix="/api/v1",
                         description="Findings and corrective actions with due dates (R-I4)")
blueprints = [blp, findings_blp]

STAFF = ("inspector", "supervisor")


@blp.route("/inspections")
class Inspections(MethodView):
    @login_required
    @blp.arguments(InspectionQuerySchema, location="query")
    @blp.response(200, InspectionSchema(many=True), headers=paging.HEADERS)
    def get(self, query):
        """Inspections you may see; ?status=submitted is the review queue (oldest submission first)"""
        records, total = services.list_inspections(current_user, query)
        return records, 200, paging.total_header(total)

    @roles_required(*STAFF)
    @blp.arguments(InspectionCreateSchema)
    @blp.response(201, InspectionSchema)
    @blp.alt_response(200, schema=InspectionSchema, description="The same id with the same data was sent before")
    @blp.alt_response(409, description="entry_not_authorized (R-E2), or the id is taken by other data")
    def post(self, body):
        """Start an inspection (a draft); a site-entry authorization must cover it (R-E2)"""
        record, created = services.create_inspection(current_user, body)
        return record, 201 if created else 200


@blp.route("/inspections/<record:record_id>")
class InspectionItem(MethodView):
    @login_required
    @blp.response(200, InspectionSchema)
    def get(self, record_id):
        """One inspection with its findings"""
        return services.get_inspection(current_user, record_id)

    @roles_required(*STAFF)
    @blp.arguments(InspectionUpdateSchema)
    @blp.response(200, InspectionSchema)
    @blp.alt_response(409, description="version_conflict, record_locked (submitted or approved), entry_not_authorized")
    @versioned(blp, conflict=False)
    def patch(self, body, record_id):
        """Edit a draft or returned inspection (If-Match or version required)"""
        record = services.get_inspection(current_user, record_id)
        return services.update_inspection(current_user, record, body, expected_version(body))

    @roles_required(*STAFF)
    @blp.response(204)
    @versioned(blp, body=False)
    def delete(self, record_id):
        """Delete a draft inspection (If-Match required); devices receive a tombstone"""
        record = services.get_inspection(current_user, record_id)
        services.delete_inspection(current_user, record, expected_version(None))


@blp.route("/inspections/<record_id>/submit")
class InspectionSubmit(MethodView):
    @roles_required(*STAFF)
    @blp.arguments(InspectionSubmitSchema)
    @blp.response(200, InspectionSchema)
    @blp.alt_response(409, description="record_locked (approved) or invalid_transition (already submitted)")
    @versioned(blp, required=False, conflict=False)
    def post(self, body, record_id):
        """Submit for review; each deficient item becomes exactly one finding (R-I3, R-I4)"""
        record = services.get_inspection(current_user, record_id)
        return services.submit_inspection(current_user, record, expected_version(body, required=False))


@blp.route("/inspections/<record_id>/review")
class InspectionReview(MethodView):
    @roles_required("supervisor")
    @blp.arguments(InspectionReviewSchema)
    @blp.response(200, InspectionSchema)
    @blp.alt_response(409, description="Not submitted, or already approved (record_locked)")
    @versioned(blp, required=False, conflict=False)
    def post(self, body, record_id):
        """Approve, or return with comments (supervisor, R-I5); approval closes verified findings"""
        record = services.get_inspection(current_user, record_id)
        return services.review_inspection(current_user, record, body, expected_version(body, required=False))


@findings_blp.route("/findings")
class Findings(MethodView):
    @login_required
    @findings_blp.arguments(FindingQuerySchema, location="query")
    @findings_blp.response(200, FindingSchema(many=True), headers=paging.HEADERS)
    def get(self, query):
        """Findings you may see, across the town or per permit; ?status=open|overdue|closed"""
        records, total = services.list_findings(current_user, query)
        return records, 200, paging.total_header(total)

    @roles_required(*STAFF)
    @findings_blp.arguments(FindingCreateSchema)
    @findings_blp.response(201, FindingSchema)
    @findings_blp.alt_response(200, schema=FindingSchema, description="The same id with the same data was sent before")
    def post(self, body):
        """Enter a finding by hand (staff; client id allowed, idempotent on it)"""
        record, created = services.create_finding(current_user, body)
        return record, 201 if created else 200


@findings_blp.route("/findings/<record_id>")
class FindingItem(MethodView):
    @login_required
    @findings_blp.response(200, FindingSchema)
    def get(self, record_id):
        """One finding"""
        return services.get_finding(current_user, record_id)

    @roles_required("supervisor")
    @findings_blp.arguments(FindingUpdateSchema)
    @findings_blp.response(200, FindingSchema)
    @versioned(findings_blp)
    def patch(self, body, record_id):
        """Adjust severity, required action or due date (with a reason) (supervisor)"""
        record = services.get_finding(current_user, record_id)
        return services.update_finding(current_user, record, body, expected_version(body))
