"""Bonds and releases (R-D): supervisors record and release; applicants read their own."""
from __future__ import annotations

from flask.views import MethodView

from ..http import Blueprint
from ..auth.permissions import current_user, login_required, roles_required
from .. import paging
from ..records import expected_version, versioned
from . import services
from .schemas import BondCreateSchema, BondQuerySchema, BondSchema, BondUpdateSchema, BondReleaseCreateSchema

blp = Blueprint("bonds", __name__, url_prefix="/api/v1",
                description="Surety bonds, letters of credit, cash and other security, split by phase (R-D). "
                            "Money is a decimal string in answers and a string or number in requests.")


@blp.route("/bonds")
class Bonds(MethodView):
    @login_required
    @blp.arguments(BondQuerySchema, location="query")
    @blp.response(200, BondSchema(many=True), headers=paging.HEADERS)
    def get(self, args):
        """List the bonds you may see (applicants: those of their own permits)"""
        views, total = services.list_bonds(current_user, args)
        return views, 200, paging.total_header(total)

    @roles_required("supervisor")
    @blp.arguments(BondCreateSchema)
    @blp.response(201, BondSchema)
    @blp.alt_response(200, schema=BondSchema, description="The same id and data again: the existing bond")
    def post(self, body):
        """Record the security posted for a permit, optionally split by phase (supervisor, R-D1)"""
        bond, created = services.create_bond(current_user, body)
        return services.bond_view(bond), 201 if created else 200


@blp.route("/bonds/<bond_id>")
class BondItem(MethodView):
    @login_required
    @blp.response(200, BondSchema)
    def get(self, bond_id):
        """One bond with its phases and releases"""
        return services.bond_view(services.get_bond(current_user, bond_id))

    @roles_required("supervisor")
    @blp.arguments(BondUpdateSchema)
    @blp.response(200, BondSchema)
    @blp.alt_response(409, description="`version_conflict`, `amount_below_released`, `release_reaches_amount` "
                                       "(down to what was released, before R-D3 holds) or `phase_already_released`")
    @versioned(blp, conflict=False)
    def patch(self, body, bond_id):
        """Correct a bond (If-Match or version); never below what was released (supervisor)"""
        bond = services.get_bond(current_user, bond_id)
        return services.bond_view(services.update_bond(current_user, bond, body, expected_version(body)))


@blp.route("/bonds/<bond_id>/releases", methods=["POST"])
@roles_required("supervisor")
@blp.arguments(BondReleaseCreateSchema)
@blp.response(201, BondSchema, description="The bond, with the new release in `releases`")
@blp.alt_response(200, schema=BondSchema, description="The same release id again: the bond, unchanged")
@blp.alt_response(409, description="`phase_not_complete`, `phase_already_released`, `exceeds_bond_amount`, "
                                   "`release_reaches_amount` (a phase release reaching the amount before R-D3 "
                                   "holds: the rest is released with the certificate), `certificate_required` "
                                   "or `already_released`")
def release(body, bond_id):
    """Release a phase's share (partial, R-D2) or the rest after the certificate of completion (full, R-D3)"""
    made, created = services.release_bond(current_user, bond_id, body)
    return services.bond_view(made.bond), 201 if created else 200
