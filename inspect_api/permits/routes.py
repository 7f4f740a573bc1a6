"""Permit endpoints: determination calculator, applications, status flow and events.

Sub-resources (exemptions, conditions, phases, documents, assignments) are in routes_parts.py,
the audit log and the API reference page in routes_audit.py.
"""
from __future__ import annotations

from flask.views import MethodView
from flask_jwt_extended import current_user

from ..http import Blueprint
from .. import paging
from ..auth.permissions import login_required
from ..records import expected_version, versioned
from . import rules, services, workflow
from .routes_audit import audit_blp, docs_blp
from .routes_cases import cases_blp
from .routes_parts import parts_blp
from .schemas import (DeterminationRequestSchema, DeterminationSchema, PermitEventSchema, PermitCreateSchema,
                      PermitListQuerySchema, PermitSchema, PermitUpdateSchema, TransitionSchema)

blp = Blueprint("permits", __name__, url_prefix="/api/v1",
                description="Permit applications (R-C), the review the bylaw requires (R-A, R-B) and the status flow")
blueprints = [blp, parts_blp, cases_blp, audit_blp, docs_blp]

@blp.route("/determinations")
class Determinations(MethodView):
    @login_required
    @blp.arguments(DeterminationRequestSchema)
    @blp.response(200, DeterminationSchema)
    def post(self, body):
        """Which review the bylaw requires for these facts (R-A1..R-A4, R-B2)"""
        claims = [rules.ExemptionClaim(c["kind"], c["document_valid"]) for c in body["exemptions"]]
        return rules.determine(body["disturbed_area_sqft"], body["drains_to_ms4"], body["drains_to_waters"],
                               body.get("luhppl_kind"), claims, body.get("luhppl_description")).as_dict()


@blp.route("/permits")
class Permits(MethodView):
    @login_required
    @blp.arguments(PermitListQuerySchema, location="query")
    @blp.response(200, PermitSchema(many=True), headers=paging.HEADERS)
    def get(self, args):
        """List permits: an applicant's own, or all for staff; newest first, paged by limit/offset"""
        permits, total = services.list_permits(current_user, args)
        return services.shown_all(permits, current_user), 200, paging.total_header(total)

    @login_required
    @blp.arguments(PermitCreateSchema)
    @blp.response(201, PermitSchema)
    @blp.alt_response(200, schema=PermitSchema, description="The same id and data were sent before")
    def post(self, body):
        """File an application as a draft (applicants for themselves, supervisors for an applicant)"""
        permit, created = services.create_permit(current_user, body)
        return services.shown(permit, current_user), 201 if created else 200


@blp.route("/permits/<permit_id>")
class PermitItem(MethodView):
    @login_required
    @blp.response(200, PermitSchema)
    def get(self, permit_id):
        """One permit with its determination, conditions, phases, documents and exemptions"""
        return services.shown(services.get_permit(current_user, permit_id), current_user)

    @login_required
    @blp.arguments(PermitUpdateSchema)
    @blp.response(200, PermitSchema)
    @blp.alt_response(409, description="version_conflict (current record in errors.current) or permit_locked")
    @versioned(blp, conflict=False)
    def patch(self, body, permit_id):
        """Edit an application (If-Match: version); inputs changed recompute the determination (R-A5)"""
        permit = services.get_permit(current_user, permit_id, for_update=True)
        return services.shown(services.update_permit(current_user, permit, body, expected_version(body)),
                             current_user)


@blp.route("/permits/<permit_id>/transitions")
class PermitTransitions(MethodView):
    @login_required
    @blp.arguments(TransitionSchema)
    @blp.response(200, PermitSchema)
    @blp.alt_response(403, description="forbidden: the move exists but not for your role")
    @blp.alt_response(409, description="invalid_transition: R-C2 has no such move from the current status; "
                                       "plans_missing: an approval or permit is decided on its plans (R-C1), "
                                       "`errors.documents` names the kinds not on file; cease_and_desist, "
                                       "approval_lapsed, security_required: work may not commence yet")
    @blp.alt_response(422, description="before_approval (`errors.on`): work is not recorded as commenced on a "
                                       "day before the approval or permit (R-A6)")
    @versioned(blp, required=False, conflict=False)
    def post(self, body, permit_id):
        """Move the permit along the status flow of R-C2 (submit, review, decide, commence, complete)"""
        permit = services.get_permit(current_user, permit_id, for_update=True)
        return services.shown(workflow.transition(current_user, permit, body["to"], body.get("reason"),
                                                  on=body.get("on"),
                                                  expected_version=expected_version(body, required=False)),
                              current_user)


@blp.route("/permits/<permit_id>/events")
class PermitEvents(MethodView):
    @login_required
    @blp.response(200, PermitEventSchema(many=True))
    def get(self, permit_id):
        """The permit's status moves, oldest first (who, when, from, to, why)"""
        return workflow.list_events(services.get_permit(current_user, permit_id))
