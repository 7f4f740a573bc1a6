"""Role checks (the coarse tier). Object-level checks live in each domain's query helpers."""
from __future__ import annotations

from functools import wraps
from typing import Callable

from flask import g, request
from flask_jwt_extended import current_user, get_jwt, jwt_required, verify_jwt_in_request

from ..errors import Forbidden, Unauthorized
from .devices import device_owner
from .services import live_session_user

# What signing in answers when the token's session or its account no longer signs in (the same 401
# whether flask-jwt asks, on the way in, or still_signed_in, after a wait).
SESSION_ENDED = ("This session was signed out or revoked; sign in again.", "token_revoked")
ACCOUNT_GONE = ("This account no longer exists or is disabled.", "unauthorized")


def login_required(fn: Callable) -> Callable:
    @wraps(fn)
    def wrapper(*args, **kwargs):
        verify_jwt_in_request()
        _remember_device()
        return fn(*args, **kwargs)

    return wrapper


def roles_required(*roles: str) -> Callable:
    """Allow only the named roles; everyone else gets 403 `forbidden`."""

    def decorator(fn: Callable) -> Callable:
        @wraps(fn)
        def wrapper(*args, **kwargs):
            verify_jwt_in_request()
            _remember_device()
            if current_user.role not in roles:
                raise Forbidden(f"Only {' or '.join(roles)} users may do this.")
            return fn(*args, **kwargs)

        return wrapper

    return decorator


SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


def _remember_device() -> None:
    claims = get_jwt()
    g.session_id = claims.get("sid")
    # The device a session signed in on wins; the header only names a device for sessions without one.
    named = request.headers.get("X-Device-Id")
    g.device_id = claims.get("device") or named
    if not claims.get("device") and named and request.method not in SAFE_METHODS:
        # Records keep the device they were made on as evidence: a write may not name another
        # account's tablet (sync push refuses the same in touch_device).
        owner = device_owner(named)
        if owner is not None and owner != current_user.id:
            raise Forbidden("This device id is registered to another account; sign in on the device itself.",
                            error="device_in_use")


def still_signed_in() -> None:
    """Signing in asked again, for a request that waited after it (a push waiting for its turn): a
    session revoked or expired, or an account disabled, meanwhile is refused as it would be now."""
    claims = get_jwt()
    user = live_session_user(claims.get("sid"), claims.get("sub"))
    if user is None:
        raise Unauthorized(SESSION_ENDED[0], error=SESSION_ENDED[1])
    if not user.active:
        raise Unauthorized(ACCOUNT_GONE[0], error=ACCOUNT_GONE[1])


def current_device_id() -> str | None:
    return getattr(g, "device_id", None)


__all__ = ["login_required", "roles_required", "current_user", "current_device_id", "jwt_required",
           "still_signed_in"]
