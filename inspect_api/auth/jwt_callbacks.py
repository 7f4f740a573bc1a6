"""flask-jwt-extended hooks: user loading, server-side revocation, and the API.md error shape."""
from __future__ import annotations

from flask import g

from ..errors import error_response
from ..extensions import db, jwt
from .models import User
from .permissions import ACCOUNT_GONE, SESSION_ENDED
from .services import live_session_user

# flask-jwt-extended asks whether the token is revoked, then for its user: the first answer reads
# the login session with its account in one query and keeps the account for the second.
_SESSION_USER = "inspect_api.auth.session_user"


@jwt.token_in_blocklist_loader
def _revoked(_header, payload) -> bool:
    user = live_session_user(payload.get("sid"), payload.get("sub"))
    setattr(g, _SESSION_USER, user)
    return user is None


@jwt.user_lookup_loader
def _load_user(_header, payload):
    user = g.pop(_SESSION_USER, None)
    if user is None or user.id != payload["sub"]:
        user = db.session.get(User, payload["sub"])
    return user if user is not None and user.active else None


@jwt.user_lookup_error_loader
def _no_user(_header, _payload):
    return error_response(401, *ACCOUNT_GONE)


@jwt.unauthorized_loader
def _missing(reason: str):
    return error_response(401, "Sign in first: " + reason, "unauthorized")


@jwt.invalid_token_loader
def _invalid(reason: str):
    return error_response(401, "The token is not valid: " + reason, "invalid_token")


@jwt.expired_token_loader
def _expired(_header, _payload):
    return error_response(401, "The token has expired; refresh or sign in again.", "token_expired")


@jwt.revoked_token_loader
def _revoked_answer(_header, _payload):
    return error_response(401, *SESSION_ENDED)


@jwt.needs_fresh_token_loader
def _not_fresh(_header, _payload):
    return error_response(401, "Sign in again to do this.", "fresh_token_required")


@jwt.token_verification_failed_loader
def _failed(_header, _payload):
    return error_response(401, "The token is not valid.", "invalid_token")
