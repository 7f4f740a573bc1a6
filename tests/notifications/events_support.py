"""Reading the outbox in event tests: the rows a request wrote, as plain tuples to compare."""
from __future__ import annotations

import hashlib

from sqlalchemy import select

from inspect_api.extensions import db
from inspect_api.notifications.models import Notification


def messages(event: str | None = None, record_id: str | None = None) -> list[Notification]:
    db.session.expire_all()
    query = select(Notification).order_by(Notification.created_at, Notification.recipient_email, Notification.id)
    if event:
        query = query.where(Notification.event == event)
    if record_id:
        query = query.where(Notification.record_id == str(record_id))
    return list(db.session.scalars(query))


def rows(event: str | None = None, record_id: str | None = None) -> list[tuple]:
    """(recipient e-mail, role, event, required, status) per message, sorted."""
    return sorted((m.recipient_email, m.recipient_role, m.event, m.required, m.status)
                  for m in messages(event, record_id))


def attachment_of(data: bytes, name: str) -> dict:
    return {"name": name, "content_type": "application/pdf", "sha256": hashlib.sha256(data).hexdigest(),
            "bytes": len(data)}
