"""The supervisors' Deadlines view over the agenda (GET /deadlines)."""
from __future__ import annotations

from ..auth.permissions import roles_required
from ..http import Blueprint
from .. import clock
from . import rules, services
from .schemas import DeadlineArgs, DeadlineSchema

blp = Blueprint("agenda", __name__, url_prefix="/api/v1",
                description="The agenda: what is due and by when, across findings, orders, final reports, "
                            "cost notices and bonds (the Deadlines view)")


@blp.route("/deadlines")
@roles_required("supervisor")
@blp.arguments(DeadlineArgs, location="query")
@blp.response(200, DeadlineSchema(many=True))
def deadlines_view(args):
    """Everything due before a day, soonest first: findings, orders, final reports, cost notices,
    protest windows, bond phases awaiting release (supervisor)"""
    return services.deadlines(args.get("before") or rules.default_before(clock.today()))
