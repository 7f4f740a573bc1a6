"""The audit trail's daily seal, e-mailed to AUDIT_SEAL_TO (README "Tamper-evident audit trail").

The audit side (inspect_api/audit_seals.py) announces each new seal with signals.audit_day_sealed;
`seal_mailed` writes the message through the outbox in the sealing transaction, so a seal and its
message land together. Without AUDIT_SEAL_TO no message is written. `record_deliveries` (each
worker pass) copies the Message-ID and time of a delivered seal message onto its seal, the one
change the audit_seals trigger allows.
"""
from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from flask import current_app

from ..audit import AuditSeal
from ..audit_seals import seal_finished_days
from ..extensions import db
from . import outbox
from .models import Notification

EVENT = "audit_day_sealed"


def seal_mailed(seal: AuditSeal, *, fields: dict[str, Any], **_: Any) -> list[Notification]:
    address = current_app.config.get("AUDIT_SEAL_TO")
    if not address:
        return []
    recipient = outbox.Recipient(name="Audit seal recipient", email=address)
    return outbox.enqueue(EVENT, seal, [recipient], {"seal": fields}, required=True, record_type="audit_seal",
                          dedupe_key=f"audit_seal:{fields['number']}")


def record_deliveries() -> int:
    """Copy each delivered seal message's Message-ID and time onto its seal (one query when there is
    none to copy); returns how many."""
    if not current_app.config.get("AUDIT_SEAL_TO"):
        return 0
    unsent = sa.select(sa.cast(AuditSeal.number, sa.String)).where(AuditSeal.emailed_at.is_(None))
    delivered = db.session.execute(sa.select(Notification.record_id, Notification.sent_at, Notification.message_id)
                                   .where(Notification.record_type == "audit_seal", Notification.status == "sent",
                                          Notification.record_id.in_(unsent))).all()
    for record_id, sent_at, message_id in delivered:
        seal = db.session.get(AuditSeal, int(record_id))
        if seal is not None and seal.emailed_at is None:
            seal.emailed_at, seal.message_id = sent_at, message_id
    db.session.flush()
    return len(delivered)


def cycle() -> None:
    """A worker pass: seal the finished days not yet sealed (most passes: one cheap query) and note
    which seal messages were delivered."""
    seal_finished_days()
    record_deliveries()
