from __future__ import annotations

from flask import current_app
from flask.views import MethodView
from flask_jwt_extended import current_user, get_jwt, jwt_required

from ..http import Blueprint
from .. import paging
from ..errors import Unauthorized, ValidationFailed
from ..extensions import limiter
from ..paging import PageArgs
from . import services, throttle
from .permissions import login_required, roles_required
from .schemas import (AccessTokenSchema, ChangePasswordSchema, ConfirmPasswordSchema, CreateUserSchema, LoginSchema,
                      RegisterSchema, SessionSchema, TokenPairSchema, UpdateUserSchema, UserSchema)

blp = Blueprint("auth", __name__, url_prefix="/api/v1", description="Accounts, sign-in and sessions")


def _login_limit() -> str:
    return current_app.config["LOGIN_RATE_LIMIT"]


@blp.route("/auth/login", methods=["POST"])
@blp.arguments(LoginSchema)
@blp.doc(security=[])
@blp.response(200, TokenPairSchema)
@blp.alt_response(401, description="Wrong e-mail or password")
@blp.alt_response(429, description=(
    "Refused for now, with `Retry-After` (seconds): this client reached `LOGIN_RATE_LIMIT` failed attempts "
    "(from its address, or on this account from its address; other clients are not affected), or the "
    "account is slowed after 20 consecutive failures from anywhere (each attempt waits its turn, from 1 s "
    "doubling to one a minute; the account is never locked and a success ends the slowing)"))
def login(body):
    """Sign in; returns a short-lived access token and a refresh token for this device"""
    account = services.normalise_email(body["email"])
    refused = throttle.admit_login(account)
    if refused is not None:
        return refused
    try:
        user = services.authenticate(body["email"], body["password"])
    except Unauthorized:
        throttle.login_failed(account)
        raise
    throttle.login_succeeded(account)
    return services.start_session(user, body.get("device_name"), body.get("device_id"))


@blp.route("/auth/register", methods=["POST"])
@limiter.limit(_login_limit, key_func=lambda: "register-address:" + throttle.client_address())
@blp.arguments(RegisterSchema)
@blp.doc(security=[])
@blp.response(201, UserSchema)
@blp.alt_response(409, description="email_taken: an account with this e-mail already exists")
@blp.alt_response(429, description="Too many sign-ups from this address; wait `Retry-After` seconds")
def register(body):
    """Sign up as an applicant (other roles are created by an admin)"""
    return services.create_user(body["email"], body["password"], body["name"], "applicant")


@blp.route("/auth/refresh", methods=["POST"])
@jwt_required(refresh=True)
@blp.doc(security=[{"refreshToken": []}])
@blp.response(200, AccessTokenSchema)
def refresh():
    """Trade the refresh token (as Bearer) for a new access token"""
    return {"access_token": services.refresh_access(current_user, get_jwt())}


@blp.route("/auth/logout", methods=["POST"])
@jwt_required(verify_type=False)
@blp.response(204)
def logout():
    """End this device's session: its refresh token and access tokens stop working"""
    services.revoke_session(get_jwt().get("sid"))


@blp.route("/me", methods=["GET"])
@login_required
@blp.response(200, UserSchema)
def me():
    """The signed-in user"""
    return current_user


@blp.route("/me/password", methods=["POST"])
@login_required
@limiter.limit(_login_limit, key_func=lambda: "password-change:" + str(current_user.id),
               deduct_when=lambda response: response.status_code == 422)
@blp.arguments(ChangePasswordSchema)
@blp.response(204)
@blp.alt_response(422, description="Wrong current password (invalid_credentials) or a weak new one")
def change_password(body):
    """Change your own password; every other session of your account is signed out"""
    services.change_own_password(current_user, body["current_password"], body["new_password"], get_jwt().get("sid"))


@blp.route("/users")
class Users(MethodView):
    @roles_required("admin")
    @blp.arguments(PageArgs, location="query")
    @blp.response(200, UserSchema(many=True), headers=paging.HEADERS)
    def get(self, args):
        """List users (admin), by email"""
        users, total = services.list_users(args)
        return users, 200, paging.total_header(total)

    @roles_required("admin")
    @blp.arguments(CreateUserSchema)
    @blp.response(201, UserSchema)
    @blp.alt_response(409, description="email_taken: an account with this e-mail already exists")
    def post(self, body):
        """Create a user of any role (admin)"""
        return services.create_user(body["email"], body["password"], body["name"], body["role"], actor=current_user)


def _confirmed(user, body: dict, password: str | None):
    """None when the change may go ahead, else the 429 to answer; raises 403/422 when another admin's
    role, password or status changes without the acting admin's own password."""
    if not services.needs_confirmation(user, body, current_user):
        return None
    refused = throttle.admit_confirmation(current_user, user)
    if refused is not None:
        return refused
    try:
        services.confirm_own_password(current_user, password)
    except ValidationFailed:
        throttle.confirmation_failed(current_user)
        raise
    return None


@blp.route("/users/<user_id>")
class UserItem(MethodView):
    @roles_required("admin")
    @blp.response(200, UserSchema)
    def get(self, user_id):
        """One user (admin)"""
        return services.get_user(user_id)

    @roles_required("admin")
    @blp.arguments(UpdateUserSchema)
    @blp.response(200, UserSchema)
    @blp.alt_response(403, description="Another admin's role, password or status without your own password "
                                       "(confirmation_required)")
    @blp.alt_response(409, description="An admin cannot demote or deactivate themselves (own_account), nor the "
                                       "last active admin be demoted or deactivated (last_admin)")
    @blp.alt_response(429, description="Too many wrong `current_password`s; wait `Retry-After` seconds")
    def patch(self, body, user_id):
        """Change a user's name, role, password or deactivate them; a new password, a role change or a
        deactivation ends their sessions. Admins cannot demote or deactivate themselves, and the last
        active admin stays one (409 own_account / last_admin). Changing another admin's role, password or
        status needs your own password as `current_password` (admin)"""
        user = services.get_user(user_id)
        refused = _confirmed(user, body, body.pop("current_password", None))
        if refused is not None:
            return refused
        return services.update_user(user, body, current_user,
                                    keep_session=get_jwt().get("sid") if user_id == current_user.id else None)

    @roles_required("admin")
    @blp.arguments(ConfirmPasswordSchema, required=False)
    @blp.response(204)
    @blp.alt_response(403, description="Another admin without your own password (confirmation_required)")
    @blp.alt_response(409, description="An admin cannot deactivate their own account (own_account), nor the last active admin (last_admin)")
    @blp.alt_response(429, description="Too many wrong `current_password`s; wait `Retry-After` seconds")
    def delete(self, body, user_id):
        """Deactivate a user and end their sessions; the account stays for the records it made. Deactivating
        another admin needs your own password as `current_password` in the body (admin)"""
        user = services.get_user(user_id)
        refused = _confirmed(user, {"active": False}, (body or {}).get("current_password"))
        if refused is not None:
            return refused
        services.deactivate_user(user, current_user)


@blp.route("/users/<user_id>/sessions")
class UserSessions(MethodView):
    @roles_required("admin")
    @blp.response(200, SessionSchema(many=True))
    def get(self, user_id):
        """Signed-in devices of a user (admin)"""
        return services.user_sessions(services.get_user(user_id))
