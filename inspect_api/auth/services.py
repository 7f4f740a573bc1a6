"""Accounts and sign-in sessions. Services flush; the request commits once."""
from __future__ import annotations

from datetime import datetime, timezone

from flask import current_app
from flask_jwt_extended import create_access_token, create_refresh_token
from sqlalchemy import func, select

from .. import audit
from ..errors import ApiError, Conflict, NotFound, Unauthorized
from ..extensions import db
from ..paging import page_query
from .models import AuthSession, User
from .passwords import hash_password, verify_password


def normalise_email(email: str) -> str:
    return email.strip().lower()


def find_user_by_email(email: str) -> User | None:
    return db.session.scalar(select(User).where(func.lower(User.email) == normalise_email(email)))


def create_user(email: str, password: str, name: str, role: str, actor: User | None = None) -> User:
    if find_user_by_email(email) is not None:
        raise Conflict("An account with this e-mail already exists.", error="email_taken")
    user = User(email=normalise_email(email), name=name.strip(), role=role, password_hash=hash_password(password))
    db.session.add(user)
    db.session.flush()
    audit.record("user.create", "user", user.id, {"email": user.email, "role": role}, actor=actor)
    return user


def update_user(user: User, changes: dict, actor: User) -> User:
    diff = {}
    for key in ("name", "role", "active"):
        if key in changes and getattr(user, key) != changes[key]:
            diff[key] = [getattr(user, key), changes[key]]
            setattr(user, key, changes[key])
    if changes.get("password"):
        user.password_hash = hash_password(changes["password"])
        diff["password"] = "changed"
    if changes.get("active") is False or "role" in diff:
        revoke_sessions(user_id=user.id)
    db.session.flush()
    audit.record("user.update", "user", user.id, diff, actor=actor)
    return user


def deactivate_user(user: User, actor: User) -> User:
    """Users are never deleted: audit rows and records keep pointing at who made them."""
    if user.id == actor.id:
        raise Conflict("You cannot deactivate your own account; ask another admin.")
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
    return user


def start_session(user: User, device_name: str | None, device_id: str | None) -> dict:
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


def session_is_live(session_id: str | None, user_id: str | None) -> bool:
    if not session_id:
        return False
    session = db.session.get(AuthSession, session_id)
    if session is None or session.user_id != user_id or session.revoked_at is not None:
        return False
    return session.expires_at > _wall_now()


def revoke_session(session_id: str) -> None:
    session = db.session.get(AuthSession, session_id)
    if session is not None and session.revoked_at is None:
        session.revoked_at = _wall_now()
        db.session.flush()


def revoke_sessions(*, user_id: str | None = None, device_id: str | None = None) -> int:
    if user_id is None and device_id is None:
        raise ApiError("Name a user or a device to revoke.")
    query = select(AuthSession).where(AuthSession.revoked_at.is_(None))
    if user_id is not None:
        query = query.where(AuthSession.user_id == user_id)
    if device_id is not None:
        query = query.where(AuthSession.device_id == device_id)
    sessions = db.session.scalars(query).all()
    now = _wall_now()
    for session in sessions:
        session.revoked_at = now
    db.session.flush()
    return len(sessions)
