"""What users chose to receive, and which days' reminder pass has run.

Kept beside the outbox's own model (models.py imports this module so the metadata sees the tables)."""
from __future__ import annotations

from datetime import date, datetime

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from ..db import IdColumn, UTCDateTime, clock_now
from ..extensions import db


class NotificationPreference(db.Model):
    """A user's choice for one optional message kind; no row means the default: on.
    Notices the bylaw requires are never read from here (catalogue.Event.always)."""

    __tablename__ = "notification_preferences"

    user_id: Mapped[str] = mapped_column(IdColumn, sa.ForeignKey("users.id"), primary_key=True)
    event: Mapped[str] = mapped_column(sa.String(60), primary_key=True)
    enabled: Mapped[bool] = mapped_column(sa.Boolean, nullable=False)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False, default=clock_now)


class ReminderRun(db.Model):
    """One row per Town day whose reminder pass has completed: a worker that starts after
    REMINDER_HOUR on a day without a row runs that day's pass (it was down at the hour). The row is
    bookkeeping only: each reminder's own once-a-day guarantee is the outbox's unique dedupe_key."""

    __tablename__ = "reminder_runs"

    local_date: Mapped[date] = mapped_column(sa.Date, primary_key=True)
    finished_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False, default=clock_now)
    worker: Mapped[str | None] = mapped_column(sa.String(80), nullable=True)
    written: Mapped[int] = mapped_column(sa.Integer, nullable=False, default=0)
