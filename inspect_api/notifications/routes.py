"""Delivery evidence: every message the outbox holds, with what the mail server answered."""
from __future__ import annotations

from flask.views import MethodView

from ..http import Blueprint
from .. import paging
from ..auth.permissions import current_user, login_required, roles_required
from . import services
from .schemas import NotificationListArgs, NotificationSchema

blp = Blueprint("notifications", __name__, url_prefix="/api/v1",
                description="E-mail notices and their delivery: recipient, status, attempts, the SMTP reply")


@blp.route("/notifications")
class Notifications(MethodView):
    @login_required
    @blp.arguments(NotificationListArgs, location="query")
    @blp.response(200, NotificationSchema(many=True), headers=paging.HEADERS)
    def get(self, args):
        """List messages about a record or permit and whether each was sent (supervisors: all; others:
        those addressed to them)"""
        messages, total = services.list_notifications(current_user, args)
        return messages, 200, paging.total_header(total)


@blp.route("/notifications/<notification_id>/resend", methods=["POST"])
@roles_required("supervisor")
@blp.response(201, NotificationSchema)
@blp.alt_response(409, description="`invalid_transition` (only a failed message), `already_resent`, or "
                                   "`no_address` (the recipient still has no usable address)")
def resend(notification_id):
    """Send a failed message again, as a new message to the recipient's address as it is now (supervisor)"""
    return services.resend(current_user, services.get_notification(current_user, notification_id)), 201


# The user's own choice of optional messages (preference_routes.py) is served beside the evidence.
from .preference_routes import blp as preferences_blp  # noqa: E402

blueprints = [blp, preferences_blp]
