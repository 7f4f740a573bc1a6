from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from ..db import IdColumn, UTCDateTime, new_id, clock_now
from ..extensions import db

ROLES = ("applicant", "inspector", "supervisor", "admin")
STAFF_ROLES = ("inspector", "supervisor")


class User(db.Model):
    __tablename__ = "users"

    id: Mapped[str] = mapped_column(IdColumn, primary_key=True, default=new_id)
    email: Mapped[str] = mapped_column(sa.String(254), unique=True, nullable=False)
    name: Mapped[str] = mapped_column(sa.String(200), nullable=False)
    role: Mapped[str] = mapped_column(sa.String(20), nullable=False)
    password_hash: Mapped[str] = mapped_column(sa.String(255), nullable=False)
    active: Mapped[bool] = mapped_column(sa.Boolean, nullable=False, default=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False, default=clock_now)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False, default=clock_now, onupdate=clock_now)

    __table_args__ = (sa.CheckConstraint(sa.column("role").in_(ROLES), name="role"),)

    @property
    def is_staff(self) -> bool:
        return self.role in STAFF_ROLES

    @property
    def is_supervisor(self) -> bool:
        return self.role == "supervisor"


class AuthSession(db.Model):
    """One signed-in device. Logging out, or an admin revoking the device, kills its refresh token
    and every access token minted from it (the token carries the session id as `sid`)."""

    __tablename__ = "auth_sessions"

    id: Mapped[str] = mapped_column(IdColumn, primary_key=True, default=new_id)
    user_id: Mapped[str] = mapped_column(IdColumn, sa.ForeignKey("users.id"), nullable=False, index=True)
    device_id: Mapped[str | None] = mapped_column(sa.String(64), nullable=True, index=True)
    device_name: Mapped[str | None] = mapped_column(sa.String(200), nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False, default=clock_now)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False)
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    last_used_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)

class Device(db.Model):
    """A tablet or browser that syncs. The id is the client's own; the pending count is what the
    device last said it still holds unsent, so a supervisor sees where unsynced work sits."""

    __tablename__ = "devices"

    id: Mapped[str] = mapped_column(sa.String(64), primary_key=True)
    user_id: Mapped[str | None] = mapped_column(IdColumn, sa.ForeignKey("users.id"), nullable=True, index=True)
    name: Mapped[str | None] = mapped_column(sa.String(200), nullable=True)
    app_version: Mapped[str | None] = mapped_column(sa.String(40), nullable=True)
    first_seen: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False, default=clock_now)
    last_push_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    last_pull_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    pending_count: Mapped[int | None] = mapped_column(sa.Integer, nullable=True)
    pending_reported_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    revoked_by: Mapped[str | None] = mapped_column(IdColumn, sa.ForeignKey("users.id"), nullable=True)


class LoginThrottle(db.Model):
    """Consecutive failed sign-ins of one account, from any address, and when it may next be tried
    (auth/throttle.py). Keyed on the e-mail as typed (normalised), so an unknown address is throttled
    exactly like a real account and the answers never tell the two apart. Kept in the database so
    every API process counts the same failures, whatever limiter storage is configured."""

    __tablename__ = "login_throttle"

    account: Mapped[str] = mapped_column(sa.String(254), primary_key=True)
    failures: Mapped[int] = mapped_column(sa.Integer, nullable=False)
    last_failed_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False, index=True)
    next_allowed_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
