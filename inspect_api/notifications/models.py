"""The outbox and its delivery evidence: one row per message to one recipient.

A message is written in the same transaction as the change that causes it (a rolled-back change
leaves no message; a committed one is never lost), already rendered, so the worker sends exactly what
was recorded and the row stays as the evidence of what the Town told whom, when, and what the mail
server answered (DOMAIN.md "Evidence"; bylaw Enforcement §B(3) "shall be notified").
"""
from __future__ import annotations

from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from ..db import IdColumn, UTCDateTime, clock_now, new_id
from ..extensions import db

STATUSES = ("queued", "sent", "failed")
RECIPIENT_KINDS = ("user", "party", "address")


class Notification(db.Model):
    __tablename__ = "notifications"
    __table_args__ = (
        sa.CheckConstraint(sa.column("status").in_(STATUSES), name="status"),
        sa.CheckConstraint(sa.column("recipient_kind").in_(RECIPIENT_KINDS), name="recipient_kind"),
        # What the worker claims: due queued messages, oldest first.
        sa.Index("ix_notifications_due", "status", "next_attempt_at"),
    )

    id: Mapped[str] = mapped_column(IdColumn, primary_key=True, default=new_id)
    event: Mapped[str] = mapped_column(sa.String(60), nullable=False, index=True)
    # The record the message is about (an order, a cost recovery ...) and the permit or case it is on.
    record_type: Mapped[str] = mapped_column(sa.String(40), nullable=False)
    record_id: Mapped[str] = mapped_column(IdColumn, nullable=False, index=True)
    permit_id: Mapped[str | None] = mapped_column(IdColumn, sa.ForeignKey("permits.id"), nullable=True, index=True)
    # Legally required notices are always sent, whatever a user's preferences (catalogue.Event.always).
    required: Mapped[bool] = mapped_column(sa.Boolean, nullable=False, default=False)

    recipient_kind: Mapped[str] = mapped_column(sa.String(10), nullable=False)
    recipient_user_id: Mapped[str | None] = mapped_column(IdColumn, sa.ForeignKey("users.id"), nullable=True,
                                                          index=True)
    recipient_party_id: Mapped[str | None] = mapped_column(IdColumn, sa.ForeignKey("parties.id"), nullable=True,
                                                           index=True)
    recipient_role: Mapped[str | None] = mapped_column(sa.String(20), nullable=True)
    recipient_name: Mapped[str] = mapped_column(sa.String(200), nullable=False)
    recipient_email: Mapped[str | None] = mapped_column(sa.String(254), nullable=True)

    subject: Mapped[str] = mapped_column(sa.String(300), nullable=False)
    body_text: Mapped[str] = mapped_column(sa.Text, nullable=False)
    body_html: Mapped[str | None] = mapped_column(sa.Text, nullable=True)
    link: Mapped[str | None] = mapped_column(sa.String(1000), nullable=True)
    # [{name, content_type, sha256, bytes}]: the bytes are a blob stored under their SHA-256.
    attachments: Mapped[list[Any]] = mapped_column(sa.JSON, nullable=False, default=list)
    # A caller's key for "this message once" (a reminder: item and day); unique, so however many
    # workers run, a second insert of the same key is refused by the database.
    dedupe_key: Mapped[str | None] = mapped_column(sa.String(300), nullable=True, unique=True)

    status: Mapped[str] = mapped_column(sa.String(10), nullable=False, default="queued")
    attempts: Mapped[int] = mapped_column(sa.Integer, nullable=False, default=0)
    next_attempt_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    last_attempt_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    # The claim: a worker owns the message until lease_until; a worker that dies mid-send loses it
    # when the lease runs out, and another worker picks the message up again.
    claimed_by: Mapped[str | None] = mapped_column(sa.String(80), nullable=True)
    lease_until: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    message_id: Mapped[str | None] = mapped_column(sa.String(300), nullable=True)
    sent_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    smtp_reply: Mapped[str | None] = mapped_column(sa.Text, nullable=True)
    failure_reason: Mapped[str | None] = mapped_column(sa.Text, nullable=True)

    # A failed message sent again (POST /notifications/{id}/resend) is a new message naming the one it
    # repeats; the failed one stays as it was, as evidence.
    resent_from: Mapped[str | None] = mapped_column(IdColumn, sa.ForeignKey("notifications.id"), nullable=True,
                                                    unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False, default=clock_now)
    created_by: Mapped[str | None] = mapped_column(IdColumn, sa.ForeignKey("users.id"), nullable=True)

    @property
    def recipient(self) -> dict[str, Any]:
        return {"name": self.recipient_name, "email": self.recipient_email, "role": self.recipient_role,
                "user_id": self.recipient_user_id, "party_id": self.recipient_party_id}


# Preferences and reminder runs (reminder_models.py) share this domain's metadata.
from .reminder_models import NotificationPreference, ReminderRun  # noqa: E402,F401
