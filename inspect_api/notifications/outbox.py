"""The transactional outbox: the one call a domain service makes to tell someone something.

    from inspect_api.notifications import outbox
    outbox.enqueue("order_issued", order, [outbox.Recipient.from_party(p) for p in parties],
                   {"order": order, "permit": permit}, attachments=[outbox.Attachment(name, "application/pdf", data)],
                   required=True, link="#/permit/" + permit.id)

Inside the request's transaction: it adds and flushes rows, never commits, so the messages land with
the change that caused them or not at all. Each message is rendered now (templates/<event>.*) and kept
as rendered; attachments are stored as content-addressed blobs now, so the worker later sends exactly
the bytes recorded here, and their SHA-256 is the evidence of what was sent.
"""
from __future__ import annotations

import hashlib
import os
import re
import tempfile
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from flask import current_app
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from .. import clock
from ..extensions import db
from ..storage import blob_key, get_storage
from . import templating
from .models import Notification
from .templating import one_line

# One address, no display name, no header injection: what a party's or user's e-mail must be to send.
_ADDRESS = re.compile(r"^[^@\s<>,;\"]+@[^@\s<>,;\"]+\.[^@\s<>,;\".]+$")


@dataclass(frozen=True)
class Recipient:
    """Whom a message goes to: a user account, a party of a permit or case (most violators have no
    account), or a bare address. `email` may be None: the message is then recorded as failed, so the
    office sees who could not be reached instead of the notice vanishing."""

    name: str
    email: str | None
    role: str | None = None
    user_id: str | None = None
    party_id: str | None = None

    def __post_init__(self) -> None:
        # Every way a name enters (an account, a party, a notice's recipient, a citation) passes here:
        # what the templates print and the To header carries is one line, without control characters.
        object.__setattr__(self, "name", one_line(self.name))

    @classmethod
    def from_user(cls, user: Any, role: str | None = None) -> "Recipient":
        return cls(name=user.name, email=user.email, role=role or user.role, user_id=user.id)

    @classmethod
    def from_party(cls, party: Any) -> "Recipient":
        # A party linked to an account is that user too: they see the message through the API.
        return cls(name=party.name, email=party.email, role=party.role, party_id=party.id,
                   user_id=getattr(party, "user_id", None))

    @property
    def kind(self) -> str:
        return "party" if self.party_id else "user" if self.user_id else "address"

    @property
    def key(self) -> str:
        return f"party:{self.party_id}" if self.party_id else f"user:{self.user_id}" if self.user_id \
            else f"address:{(self.email or '').lower()}"


@dataclass(frozen=True)
class Attachment:
    filename: str
    content_type: str
    data: bytes


def record_type_of(record: Any) -> str:
    """`order`, `cost_recovery`, `permit` ...: the sync entity name where there is one, else the
    model's class name in snake case."""
    entity = getattr(record, "__sync_entity__", None)
    return entity or re.sub(r"(?<!^)(?=[A-Z])", "_", type(record).__name__).lower()


def app_link(path: str | None) -> str | None:
    """An absolute link into the app: PUBLIC_BASE_URL + the app's hash route ("#/permit/<id>").
    Without PUBLIC_BASE_URL there is no address to give, and the message says to sign in instead."""
    base = current_app.config.get("PUBLIC_BASE_URL")
    if not path or not base:
        return None
    return base.rstrip("/") + "/" + path.lstrip("/")


def store_attachment(attachment: Attachment) -> dict[str, Any]:
    """Store the bytes under their SHA-256 (kept once however often they are sent) and describe them.
    Written before the transaction commits: a rolled-back request leaves at most an unreferenced
    blob, never a message without its attachment."""
    digest = hashlib.sha256(attachment.data).hexdigest()
    key = blob_key(digest)
    store = get_storage()
    if not store.exists(key):
        fd, name = tempfile.mkstemp(prefix="mail-attachment-")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(attachment.data)
            store.put_file(name, key, attachment.content_type, owned=True)
        finally:
            os.unlink(name)
    return {"name": attachment.filename, "content_type": attachment.content_type, "sha256": digest,
            "bytes": len(attachment.data)}


def address_problem(name: str, role: str | None, email: str | None) -> str | None:
    """Why a message to this address cannot be sent, in words; None when it can."""
    who = f"{name} ({role})" if role else name
    if not email:
        return f"No e-mail address on file for {who}; serve the notice another way."
    if not _ADDRESS.fullmatch(email.strip()) or not email.isascii():
        return f"The e-mail address on file for {who} ({email}) is not a valid address."
    return None


def _unreachable(recipient: Recipient) -> str | None:
    return address_problem(recipient.name, recipient.role, recipient.email)


def enqueue(event: str, record: Any, recipients: Iterable[Recipient], context: dict[str, Any], *,
            attachments: Sequence[Attachment] = (), required: bool = False, link: str | None = None,
            permit_id: str | None = None, record_type: str | None = None, dedupe_key: str | None = None,
            actor: Any = None, language: str | None = None) -> list[Notification]:
    """Write one message per recipient about `record` in the current transaction (flush, never commit).

    `event` names the templates (`templates/<event>.subject.txt`, `.txt`, `.html`); `context` is what
    they print besides the common names (town, recipient, link, record_type). `link` is the app's
    route for the record. `dedupe_key` makes the call idempotent per recipient (a reminder's item and
    day): a message already written under it is not written again, even by a concurrent worker.
    `language`: the recipient's, when it is not English (templating.render). Returns the messages
    written (failed ones included: a recipient without an address)."""
    recipients = list(recipients)
    stored = [store_attachment(a) for a in attachments]
    url = app_link(link)
    permit_id = permit_id or getattr(record, "permit_id", None)
    record_type = record_type or record_type_of(record)
    written: list[Notification] = []
    for recipient in recipients:
        key = f"{dedupe_key}|{recipient.key}" if dedupe_key else None
        if key and db.session.scalar(select(Notification.id).where(Notification.dedupe_key == key)):
            continue
        rendered = templating.render(event, {**context, "record_type": record_type, "link": url,
                                             "recipient": recipient}, language)
        problem = _unreachable(recipient)
        message = Notification(
            event=event, record_type=record_type, record_id=str(record.id), permit_id=permit_id,
            required=required, recipient_kind=recipient.kind, recipient_user_id=recipient.user_id,
            recipient_party_id=recipient.party_id, recipient_role=recipient.role,
            recipient_name=recipient.name[:200] or "(no name)",  # one line: Recipient made it so
            recipient_email=(recipient.email or "").strip() or None, subject=rendered.subject,
            body_text=rendered.text, body_html=rendered.html, link=url, attachments=stored, dedupe_key=key,
            status="failed" if problem else "queued", failure_reason=problem,
            next_attempt_at=None if problem else clock.now(), created_by=getattr(actor, "id", None))
        if key:
            try:
                with db.session.begin_nested():
                    db.session.add(message)
            except IntegrityError:  # another process wrote this key first: it is sent once, by them
                continue
        else:
            db.session.add(message)
        written.append(message)
    db.session.flush()
    return written


__all__ = ["Attachment", "Recipient", "app_link", "enqueue", "record_type_of", "store_attachment"]
