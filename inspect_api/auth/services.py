"""Accounts and sign-in sessions. Services flush; the request commits once."""
from __future__ import annotations

import uuid
from datetime import datetime, timezone

from flask import current_app
from flask_jwt_extended import create_access_token, create_refresh_token
from sqlalchemy import bindparam, func, select

from .. import audit, clock, signals
from ..errors import ApiError, Conflict, Forbidden, NotFound, Unauthorized, ValidationFailed
from ..extensions import db
from ..paging import page_query
from . import devices
from .devices import device_owner
from .models import AuthSession, Device, User
from .passwords import check_password, hash_password, needs_rehash, verify_password  # noqa: F401


def normalise_email(email: str) -> str:
    return email.strip().lower()


def find_user_by_email(email: str) -> User | None:
    return db.session.scalar(select(User).where(func.lower(User.email) == normalise_email(email)))


def create_user(email: str, password: str, name: str, role: str, actor: User | None = None) -> User:
    if find_user_by_email(email) is not None:
        raise Conflict("An account with this e-mail already exists.", error="email_taken")
    check_password(password, email=email, name=name)
    user = User(email=normalise_email(email), name=name.strip(), role=role, password_hash=hash_password(password))
    db.session.add(user)
    db.session.flush()
    audit.record("user.create", "user", user.id, {"email": user.email, "role": role}, actor=actor)
    return user


def _check_admin_change(user: User, changes: dict, actor: User | None) -> None:
    """An admin may not demote or deactivate their own account (another admin must), and the last
    active admin can be neither demoted nor deactivated: the Town would be left with nobody able to
    manage accounts or revoke a lost tablet."""
    demotes = "role" in changes and changes["role"] != user.role
    deactivates = changes.get("active") is False and user.active
    if not (demotes or deactivates):
        return
    if actor is not None and actor.id == user.id:
        raise Conflict("You cannot change your own role or deactivate your own account; ask another admin.",
                       error="own_account")
    if user.role == "admin" and user.active:
        # Locks the other admins' rows (PostgreSQL) so two admins demoting each other at once
        # cannot both pass this check; SQLite already runs one writing transaction at a time.
        others = db.session.scalars(select(User.id).where(
            User.role == "admin", User.active.is_(True), User.id != user.id).with_for_update()).all()
        if not others:
            raise Conflict("This is the last active admin; make another admin first.", error="last_admin")


def needs_confirmation(user: User, changes: dict, actor: User | None) -> bool:
    """Does this change of `user` need the acting admin's own password? It does for another admin's
    role, password or status: one stolen session or unattended screen must not be enough to take
    over or shut out a fellow admin (the last-admin rule in _check_admin_change holds besides)."""
    if actor is None or actor.id == user.id or user.role != "admin":
        return False
    return (("role" in changes and changes["role"] != user.role)
            or ("active" in changes and changes["active"] != user.active)
            or bool(changes.get("password")))


def confirm_own_password(actor: User, password: str | None) -> None:
    if not password:
        raise Forbidden("Confirm with your own password to change another admin's role, password or status.",
                        error="confirmation_required", errors={"current_password": ["Your own password is required."]})
    if not verify_password(actor.password_hash, password):
        raise ValidationFailed("Your password is wrong.", error="invalid_credentials",
                               errors={"current_password": ["Wrong password."]})


def update_user(user: User, changes: dict, actor: User | None, *, keep_session: str | None = None) -> User:
    """Apply an admin's (or the account's own) changes. A new password, a role change or a
    deactivation ends the account's sessions (all of them, or all but `keep_session`)."""
    _check_admin_change(user, changes, actor)
    diff = {}
    for key in ("name", "role", "active"):
        if key in changes and getattr(user, key) != changes[key]:
            diff[key] = [getattr(user, key), changes[key]]
            setattr(user, key, changes[key])
    if changes.get("password"):
        check_password(changes["password"], email=user.email, name=user.name)
        user.password_hash = hash_password(changes["password"])
        diff["password"] = "changed"
    if changes.get("active") is False or "role" in diff or "password" in diff:
        revoke_sessions(user_id=user.id, except_session=keep_session)
    db.session.flush()
    audit.record("user.update", "user", user.id, diff, actor=actor)
    return user


def change_own_password(user: User, current_password: str, new_password: str, session_id: str | None) -> None:
    """The signed-in user's own password change: the current password proves it is them, and every
    other session of the account ends (a thief's stolen refresh token stops working)."""
    if not verify_password(user.password_hash, current_password):
        raise ValidationFailed("The current password is wrong.", error="invalid_credentials",
                               errors={"current_password": ["Wrong password."]})
    check_password(new_password, email=user.email, name=user.name, field="new_password")
    update_user(user, {"password": new_password}, user, keep_session=session_id)


def deactivate_user(user: User, actor: User) -> User:
    """Users are never deleted: audit rows and records keep pointing at who made them."""
    if user.id == actor.id:
        raise Conflict("You cannot deactivate your own account; ask another admin.", error="own_account")
    return update_user(user, {"active": False}, actor)


def _wall_now() -> datetime:
    """Sign-in sessions live on the wall clock, like the tokens they back (flask-jwt-extended checks a
    token's expiry against the real time): a session is judged by the same clock as its tokens, not by
    the Town's business clock (clock.now) that tests set to other days."""
    return datetime.now(timezone.utc)


def get_user(user_id: str) -> User:
    user = db.session.get(User, user_id)
    if user is None:
        raise NotFound("No such user.")
    return user


def authenticate(email: str, password: str) -> User:
    user = find_user_by_email(email)
    ok = verify_password(user.password_hash if user else None, password)
    if not ok or user is None or not user.active:
        raise Unauthorized("E-mail or password is wrong.", error="invalid_credentials")
    if needs_rehash(user.password_hash):
        # The hashing parameters changed since this hash was made (argon2-cffi's profile, or ours):
        # the plain password is at hand only now, so the stored hash is upgraded on this sign-in.
        user.password_hash = hash_password(password)
        db.session.flush()
    return user


def start_session(user: User, device_name: str | None, device_id: str | None) -> dict:
    if device_id:
        if device_owner(device_id) not in (None, user.id):
            # A shared tablet whose id is another account's: this account gets a device of its own
            # (answered as `device_id`, which the app keeps), never the other account's device.
            device_id = str(uuid.uuid4())
    expires = _wall_now() + current_app.config["JWT_REFRESH_TOKEN_EXPIRES"]
    session = AuthSession(user_id=user.id, device_name=device_name, device_id=device_id, expires_at=expires)
    db.session.add(session)
    db.session.flush()
    claims = {"sid": session.id, "role": user.role}
    if device_id:
        claims["device"] = device_id
    audit.record("auth.login", "user", user.id, {"device_name": device_name, "device_id": device_id},
                 actor=user, device_id=device_id)
    return {
        "access_token": create_access_token(identity=user.id, additional_claims=claims),
        "refresh_token": create_refresh_token(identity=user.id, additional_claims=claims),
        "user": user,
        "device_id": device_id,
    }


def list_users(args: dict) -> tuple[list[User], int]:
    return page_query(select(User).order_by(User.email, User.id), args)


def user_sessions(user: User) -> list[AuthSession]:
    return list(db.session.scalars(select(AuthSession).where(AuthSession.user_id == user.id)
                                   .order_by(AuthSession.created_at.desc())))


def refresh_access(user: User, claims: dict) -> str:
    session = db.session.get(AuthSession, claims.get("sid"))
    if session is not None:
        session.last_used_at = _wall_now()
    keep = {k: claims[k] for k in ("sid", "device") if k in claims}
    keep["role"] = user.role
    return create_access_token(identity=user.id, additional_claims=keep)


# Asked on every signed-in request: the statement is built once (building it and working out its
# cache key again cost a third of the query).
_SESSION_WITH_USER = (select(AuthSession, User).join(User, User.id == AuthSession.user_id)
                      .where(AuthSession.id == bindparam("session_id")))


def live_session_user(session_id: str | None, user_id: str | None) -> User | None:
    """The account of a live login session (not revoked, not expired, the token's own user), read
    with its session in one query; None for any other session. Whether the account may still sign
    in (active) is the caller's question."""
    if not session_id:
        return None
    row = db.session.execute(_SESSION_WITH_USER, {"session_id": session_id}).first()
    if row is None:
        return None
    session, user = row
    if session.user_id != user_id or session.revoked_at is not None or session.expires_at <= _wall_now():
        return None
    return user


def revoke_session(session_id: str) -> None:
    session = db.session.get(AuthSession, session_id)
    if session is not None and session.revoked_at is None:
        session.revoked_at = _wall_now()
        db.session.flush()


def revoke_sessions(*, user_id: str | None = None, device_id: str | None = None,
                    except_session: str | None = None) -> int:
    if user_id is None and device_id is None:
        raise ApiError("Name a user or a device to revoke.")
    query = select(AuthSession).where(AuthSession.revoked_at.is_(None))
    if user_id is not None:
        query = query.where(AuthSession.user_id == user_id)
    if device_id is not None:
        query = query.where(AuthSession.device_id == device_id)
    if except_session is not None:
        query = query.where(AuthSession.id != except_session)
    sessions = db.session.scalars(query).all()
    now = _wall_now()
    for session in sessions:
        session.revoked_at = now
    db.session.flush()
    return len(sessions)


def revoke_device(actor, device_id: str) -> Device:
    """End every session of the device and refuse its syncs from now on."""
    device = db.session.get(Device, device_id)
    if device is None:
        owner = db.session.scalar(select(AuthSession.user_id).where(AuthSession.device_id == device_id)
                                  .order_by(AuthSession.created_at.desc()).limit(1))
        if owner is None:
            raise NotFound("No such device.")
        device = Device(id=device_id, user_id=owner, name=devices.session_device_name(device_id, search=True),
                        first_seen=clock.now())
        db.session.add(device)
    newly = device.revoked_at is None
    if newly:
        device.revoked_at, device.revoked_by = clock.now(), actor.id
    ended = revoke_sessions(device_id=device_id)
    db.session.flush()
    audit.record("device.revoke", "device", device_id, {"sessions_ended": ended, "user_id": device.user_id},
                 actor=actor)
    if newly:
        signals.device_revoked.send(device, actor=actor)  # a security notice to the device's user
    return device
