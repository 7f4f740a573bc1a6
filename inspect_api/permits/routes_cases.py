"""Parties of a permit or enforcement case (R-O0), linking applications into one project (R-A7) and
the security required before the start (R-D1)."""
from __future__ import annotations

from flask.views import MethodView
from flask_jwt_extended import current_user

from ..http import Blueprint
from ..auth.permissions import login_required, roles_required
from ..records import expected_version, versioned
from . import cases, commencement, services, views
from .schemas import (PartyInSchema, PartySchema, PartyUpdateSchema, PermitSchema, ProjectLinkSchema,
                      SecurityRequirementSchema)

cases_blp = Blueprint("permit-cases", __name__, url_prefix="/api/v1/permits/<permit_id>",
                      description="Parties of a permit or enforcement case (R-O0), one project's applications "
                                  "(R-A7), security before the start (R-D1)")


@cases_blp.route("/parties")
class Parties(MethodView):
    @login_required
    @cases_blp.response(200, PartySchema(many=True))
    def get(self, permit_id):
        """The parties the permit or case names: owner, violators, applicant, contractor"""
        return views.parties_as_seen(services.get_permit(current_user, permit_id), current_user)

    @roles_required("supervisor")
    @cases_blp.arguments(PartyInSchema)
    @cases_blp.response(201, PartySchema)
    def post(self, body, permit_id):
        """Name a party: a violator, a contractor, another owner (supervisor)"""
        return cases.create_party(current_user, services.get_permit(current_user, permit_id, for_update=True), body)


@cases_blp.route("/parties/<party_id>")
class PartyItem(MethodView):
    @roles_required("supervisor")
    @cases_blp.arguments(PartyUpdateSchema)
    @cases_blp.response(200, PartySchema)
    @versioned(cases_blp, required=False)
    def patch(self, body, permit_id, party_id):
        """Correct a party's name, mailing address or e-mail (supervisor; If-Match: version)"""
        permit = services.get_permit(current_user, permit_id, for_update=True)
        party = cases.get_party(permit, party_id)
        return cases.update_party(current_user, permit, party, body, expected_version(body, required=False))


@cases_blp.route("/project", methods=["POST"])
@roles_required("supervisor")
@cases_blp.arguments(ProjectLinkSchema)
@cases_blp.response(200, PermitSchema)
def project(body, permit_id):
    """Link the application with another part of the same project, or confirm it separate (R-A7)"""
    permit = services.get_permit(current_user, permit_id, for_update=True)
    return services.shown(cases.link_project(current_user, permit, body.get("link_to"), bool(body.get("separate"))),
                          current_user)


@cases_blp.route("/security-requirement", methods=["PUT"])
@roles_required("supervisor")
@cases_blp.arguments(SecurityRequirementSchema)
@cases_blp.response(200, PermitSchema)
def security_requirement(body, permit_id):
    """Require security posted before land disturbance starts, in an amount the SA sets (R-D1)"""
    permit = services.get_permit(current_user, permit_id, for_update=True)
    return services.shown(commencement.set_security_requirement(current_user, permit, body["amount"]), current_user)
