"""Delivery evidence: every message the outbox holds, with what the mail server answered."""
from __future__ import annotations

from flask.views import MethodView
from flask_smorest import Blueprint

from .. import paging
from ..auth.permissions import current_user, login_required
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


# The user's own choice of optional messages (preference_routes.py) is served beside the evidence.
from .preference_routes import blp as preferences_blp  # noqa: E402

blueprints = [blp, preferences_blp]
