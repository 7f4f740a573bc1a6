"""GET/PUT /api/v1/me/notification-preferences: the signed-in user's optional messages."""
from __future__ import annotations

from flask.views import MethodView
from marshmallow import Schema, fields, validate

from ..schemas import Boolean
from ..http import Blueprint
from ..auth.permissions import current_user, login_required
from . import catalogue, preferences

blp = Blueprint("notification_preferences", __name__, url_prefix="/api/v1",
                description="Which optional e-mail messages the signed-in user receives")


class PreferenceSchema(Schema):
    event = fields.String(required=True, metadata={"description": "e.g. inspection_approved, reminder_finding_due"})
    label = fields.String(required=True)
    enabled = Boolean(required=True)


class AlwaysSentSchema(Schema):
    event = fields.String(required=True)
    label = fields.String(required=True)
    required_by_bylaw = Boolean(required=True, metadata={
        "description": "true: a notice the bylaw requires; false: a security notice"})


class PreferencesSchema(Schema):
    preferences = fields.List(fields.Nested(PreferenceSchema), required=True, metadata={
        "description": "The messages this user may switch off; no choice recorded means on"})
    always_sent = fields.List(fields.Nested(AlwaysSentSchema), required=True, metadata={
        "description": "Messages sent whatever the user chooses"})


class PreferenceChangeSchema(Schema):
    # Every message name; which of them a user may switch off is their role's (422 otherwise).
    event = fields.String(required=True, validate=validate.OneOf(sorted(catalogue.EVENTS),
                                                                 error="Not a message you receive."), metadata={
        "description": "One of `preferences` as GET lists them for you; a notice always sent, or one your role "
                       "never receives, answers 422"})
    enabled = Boolean(required=True)


class PreferencesUpdateSchema(Schema):
    preferences = fields.List(fields.Nested(PreferenceChangeSchema), required=True,
                              validate=validate.Length(max=100),
                              metadata={"description": "The choices to change; others keep theirs"})


@blp.route("/me/notification-preferences")
class NotificationPreferences(MethodView):
    @login_required
    @blp.response(200, PreferencesSchema)
    def get(self):
        """Your optional messages and whether each is on, and the notices always sent"""
        return preferences.view(current_user)

    @login_required
    @blp.arguments(PreferencesUpdateSchema)
    @blp.response(200, PreferencesSchema)
    @blp.alt_response(422, description="A notice that is always sent, or one this role never receives")
    def put(self, body):
        """Switch optional messages on or off (notices the bylaw requires cannot be switched off)"""
        return preferences.update(current_user, body)
