"""Orders (R-O1); cost recovery and penalties have their own modules, the Deadlines view is the agenda's."""
from __future__ import annotations

from flask.views import MethodView

from ..http import Blueprint
from ..auth.permissions import current_user, login_required, roles_required
from .. import paging, renditions
from ..database import writes
from ..records import expected_version, versioned
from . import services
from .routes_costs import blp as cost_blp
from .routes_penalties import blp as penalty_blp
from .schemas import (OrderCreateSchema, OrderListArgs, OrderResponseSchema, OrderSchema, OrderStatusSchema,
                      OrderUpdateSchema)

blp = Blueprint("orders", __name__, url_prefix="/api/v1",
                description="Enforcement orders of bylaw Enforcement §B(1) (R-O1)")
PDF_RESPONSE = {"200": {"description": "The order as a PDF",
                        "content": {"application/pdf": {"schema": {"type": "string", "format": "binary"}}}}}


@blp.route("/orders")
class Orders(MethodView):
    @login_required
    @blp.arguments(OrderListArgs, location="query")
    @blp.response(200, OrderSchema(many=True), headers=paging.HEADERS)
    def get(self, args):
        """List the orders you may see (applicants: those on their own permits); filter by permit or status"""
        orders, total = services.list_orders(current_user, args)
        return orders, 200, paging.total_header(total)

    @roles_required("supervisor", "inspector")
    @blp.arguments(OrderCreateSchema)
    @blp.response(201, OrderSchema)
    @blp.alt_response(200, schema=OrderSchema, description="The same id and data again: the existing order")
    @blp.alt_response(409, description="`conflict`: the id belongs to other data")
    def post(self, body):
        """Issue an order with a number, requirements, the findings it rests on and a deadline (supervisor;
        an inspector assigned to the site where the Town allows its agents to: ORDERS_BY_AGENTS)"""
        order, created = services.create_order(current_user, body)
        return order, 201 if created else 200


@blp.route("/orders/<record:order_id>")
class OrderItem(MethodView):
    @login_required
    @blp.response(200, OrderSchema)
    def get(self, order_id):
        """One order"""
        return services.get_order(current_user, order_id)

    @roles_required("supervisor")
    @blp.arguments(OrderUpdateSchema)
    @blp.response(200, OrderSchema)
    @blp.alt_response(409, description="`version_conflict` (current order in errors.current) or `record_locked`")
    @versioned(blp, conflict=False)
    def patch(self, body, order_id):
        """Amend an order: deadline, service, requirements, notes (supervisor; If-Match or version)"""
        order = services.get_order(current_user, order_id)
        return services.update_order(current_user, order, body, expected_version(body))


@blp.route("/orders/<order_id>/status", methods=["POST"])
@roles_required("supervisor")
@blp.arguments(OrderStatusSchema)
@blp.response(200, OrderSchema)
@blp.alt_response(409, description="`invalid_transition`, e.g. town_performed before the deadline passed")
@versioned(blp, required=False, conflict=False)
def order_status(body, order_id):
    """Move an order to complied, town_performed or closed, with a note (supervisor)"""
    order = services.get_order(current_user, order_id)
    version = expected_version(body, required=False)
    return services.change_status(current_user, order, body["to"], body.get("note"), version)


@blp.route("/orders/<order_id>/responses", methods=["POST"])
@login_required
@blp.arguments(OrderResponseSchema)
@blp.response(201, OrderSchema)
@blp.alt_response(409, description="`too_many_responses`: the order already holds ORDER_RESPONSES_MAX answers")
def order_response(body, order_id):
    """Answer an order in writing (the permit's applicant; a supervisor may record a paper answer)"""
    order = services.get_order(current_user, order_id)
    return services.add_response(current_user, order, body["note"]), 201


@blp.route("/orders/<record:order_id>.pdf")
@login_required
@blp.doc(responses=PDF_RESPONSE)
@blp.alt_response(304, description="Not modified: the If-None-Match sent names the document as issued")
@writes
def order_document(order_id):
    """The order as a PDF to serve on the owner or violator: the document as issued (signed when the Town
    has a signing key), the same bytes every time and in every e-mailed copy; an amended order, its
    latest issue. The SHA-256 is the ETag."""
    order = services.get_order(current_user, order_id)
    return renditions.issued_response(services.issued_order(order), filename=f"{order.number}.pdf")


blueprints = [blp, cost_blp, penalty_blp]
