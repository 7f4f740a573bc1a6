"""Town-performed abatement and cost recovery (R-O2, R-O3). Money is a two-decimal string."""
from __future__ import annotations

from flask.views import MethodView

from ..http import Blueprint
from ..auth.permissions import current_user, login_required, roles_required
from .. import paging, renditions
from ..database import writes
from ..records import expected_version, versioned
from . import costs
from .schemas import (CostPaymentSchema, CostProtestSchema, CostRecoveryCreateSchema, CostRecoveryListArgs,
                      CostRecoverySchema, CostRecoveryUpdateSchema, CostStatementArgs, CostStatementSchema,
                      ProtestDecisionSchema)

blp = Blueprint("cost_recovery", __name__, url_prefix="/api/v1",
                description="Town-performed work and recovery of its costs, with interest (R-O2, R-O3)")


@blp.route("/cost-recoveries")
class CostRecoveries(MethodView):
    @login_required
    @blp.arguments(CostRecoveryListArgs, location="query")
    @blp.response(200, CostRecoverySchema(many=True), headers=paging.HEADERS)
    def get(self, args):
        """List the cost recovery records you may see (applicants: those on their own permits)"""
        records, total = costs.list_cost_recoveries(current_user, args)
        return costs.cost_recovery_views(records), 200, paging.total_header(total)

    @roles_required("supervisor")
    @blp.arguments(CostRecoveryCreateSchema)
    @blp.response(201, CostRecoverySchema)
    @blp.alt_response(200, schema=CostRecoverySchema, description="The same id and data again: the existing record")
    @blp.alt_response(409, description="`invalid_transition`: the order cannot become town_performed")
    def post(self, body):
        """Record abatement the Town performed after an order's deadline passed, with itemised costs (supervisor)"""
        record, created = costs.create_cost_recovery(current_user, body)
        return costs.cost_recovery_view(record), 201 if created else 200


@blp.route("/cost-recoveries/<record_id>")
class CostRecoveryItem(MethodView):
    @login_required
    @blp.response(200, CostRecoverySchema)
    def get(self, record_id):
        """One cost recovery record"""
        return costs.cost_recovery_view(costs.get_cost_recovery(current_user, record_id))

    @roles_required("supervisor")
    @blp.arguments(CostRecoveryUpdateSchema)
    @blp.response(200, CostRecoverySchema)
    @blp.alt_response(409, description="`version_conflict` or `notice_already_sent` (costs are fixed once notified)")
    @versioned(blp, conflict=False)
    def patch(self, body, record_id):
        """Record the notice (sent, received), a final court decision, notes; costs until notified (supervisor)"""
        record = costs.get_cost_recovery(current_user, record_id)
        return costs.cost_recovery_view(costs.update_cost_recovery(current_user, record, body, expected_version(body)))


@blp.route("/cost-recoveries/<record_id>/protest", methods=["POST"])
@login_required
@blp.arguments(CostProtestSchema)
@blp.response(201, CostRecoverySchema)
@blp.alt_response(409, description="`protest_window_closed` (after day 30), `protest_exists` or `notice_not_sent`")
def protest(body, record_id):
    """Protest the costs in writing within 30 days of receiving the notice (the permit's applicant)"""
    record = costs.get_cost_recovery(current_user, record_id)
    return costs.cost_recovery_view(costs.file_protest(current_user, record, body)), 201


@blp.route("/cost-recoveries/<record_id>/decision", methods=["POST"])
@roles_required("supervisor")
@blp.arguments(ProtestDecisionSchema)
@blp.response(200, CostRecoverySchema)
@blp.alt_response(409, description="`invalid_transition`: no protest, or already decided")
def decision(body, record_id):
    """Decide a protest: affirm, reduce to an amount, or void the costs (supervisor)"""
    record = costs.get_cost_recovery(current_user, record_id)
    return costs.cost_recovery_view(costs.decide_protest(current_user, record, body))


@blp.route("/cost-recoveries/<record_id>/payments", methods=["POST"])
@roles_required("supervisor")
@blp.arguments(CostPaymentSchema)
@blp.response(201, CostRecoverySchema)
def payment(body, record_id):
    """Record a payment; it lowers the unpaid principal from its date on (supervisor)"""
    record = costs.get_cost_recovery(current_user, record_id)
    return costs.cost_recovery_view(costs.add_payment(current_user, record, body)), 201


@blp.route("/cost-recoveries/<record_id>/statement")
@login_required
@blp.arguments(CostStatementArgs, location="query")
@blp.response(200, CostStatementSchema)
def cost_statement(args, record_id):
    """Statement of the amount due on a day: principal, payments, 14% interest after day 30, lien date"""
    record = costs.get_cost_recovery(current_user, record_id)
    return costs.statement(record, args.get("on"))


_PDF = {"200": {"description": "The lien certificate (PDF)",
                "content": {"application/pdf": {"schema": {"type": "string", "format": "binary"}}}}}


def _pdf(record, cert):
    return renditions.issued_response(costs.issued_lien_certificate(record, cert),
                                      filename=f"lien-{cert.cost_recovery_id}-{cert.lien_on.isoformat()}.pdf")


@blp.route("/cost-recoveries/<record_id>/lien-certificate.pdf")
@roles_required("supervisor")
@blp.doc(responses=_PDF)
@blp.alt_response(304, description="Not modified: the If-None-Match sent names the certificate as issued")
@blp.alt_response(409, description="`no_lien`: the costs have not become a lien (yet)")
@writes
def lien_certificate(record_id):
    """The notice of special assessment to the Collector, once unpaid costs became a lien (supervisor, R-O3).

    Produced once for the lien date that stands and kept: asked again, the same certificate is answered.
    When the lien date moves, the one produced is kept, marked superseded in `lien_certificates`, and a
    new one states the new date."""
    record = costs.get_cost_recovery(current_user, record_id)
    return _pdf(record, costs.lien_certificate(current_user, record))


@blp.route("/cost-recoveries/<record_id>/lien-certificates/<certificate_id>.pdf")
@roles_required("supervisor")
@blp.doc(responses=_PDF)
@blp.alt_response(304, description="Not modified: the If-None-Match sent names the certificate as issued")
@writes
def kept_lien_certificate(record_id, certificate_id):
    """A lien certificate as it was produced, superseded or not (supervisor, R-O3)"""
    record = costs.get_cost_recovery(current_user, record_id)
    return _pdf(record, costs.get_lien_certificate(record, certificate_id))


@blp.route("/cost-recoveries/<record_id>/notices/<notice_id>.pdf")
@login_required
@blp.doc(responses={"200": {"description": "The notice of costs to one recipient (PDF)",
                            "content": {"application/pdf": {"schema": {"type": "string", "format": "binary"}}}}})
@blp.alt_response(304, description="Not modified: the If-None-Match sent names the notice as issued")
@blp.alt_response(409, description="`notice_not_sent`: the recipient's notice is not recorded as sent")
@writes
def cost_notice_document(record_id, notice_id):
    """The notice of costs to one recipient as issued when it was recorded as sent (R-O3): the bytes that
    recipient was e-mailed, signed when the Town has a signing key; its SHA-256 is the ETag"""
    record = costs.get_cost_recovery(current_user, record_id)
    notice = costs.get_cost_notice(record, notice_id)
    return renditions.issued_response(costs.issued_cost_notice(record, notice),
                                      filename=f"notice-of-costs-{record.order.number}-{notice.role}.pdf")
