"""Reading the delivery evidence: who may see which message.

Supervisors see every message (they serve the notices and must see who could not be reached).
Everyone else sees only messages addressed to them: as the user, or as a party linked to their
account, and only on permits they may see. An admin sees no record's content, so only what was sent
to the admin themself (DOMAIN.md "Who uses it")."""
from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy import Select, select

from .. import audit, clock
from ..errors import Conflict, Forbidden, InvalidTransition, NotFound
from ..extensions import db
from ..paging import page_query
from ..permits.access import permit_visible
from ..permits.models import Party
from . import outbox
from .models import Notification
from ..auth.models import User


def visible_notifications(user) -> Select:
    query = select(Notification)
    if user.role == "supervisor":
        return query
    mine = sa.or_(Notification.recipient_user_id == user.id,
                  Notification.recipient_party_id.in_(select(Party.id).where(Party.user_id == user.id)))
    on_visible = sa.or_(Notification.permit_id.is_(None), permit_visible(Notification.permit_id, user))
    return query.where(mine, on_visible) if user.role != "admin" else query.where(
        Notification.recipient_user_id == user.id, Notification.permit_id.is_(None))


def list_notifications(user, args: dict[str, Any]) -> tuple[list[Notification], int]:
    query = visible_notifications(user)
    for key in ("record_id", "permit_id"):
        if args.get(key):
            query = query.where(getattr(Notification, key) == str(args[key]))
    for key in ("event", "status"):
        if args.get(key):
            query = query.where(getattr(Notification, key) == args[key])
    return page_query(query.order_by(Notification.created_at, Notification.recipient_name, Notification.id), args)


def get_notification(user, notification_id: str) -> Notification:
    message = db.session.scalar(visible_notifications(user).where(Notification.id == str(notification_id)))
    if message is None:
        raise NotFound("No such message.")
    return message


def current_address(message: Notification) -> str | None:
    """Where the recipient is reached now: the party's or the user's e-mail as it stands today."""
    if message.recipient_party_id:
        party = db.session.get(Party, message.recipient_party_id)
        return party.email if party is not None else None
    if message.recipient_user_id:
        account = db.session.get(User, message.recipient_user_id)
        return account.email if account is not None else None
    return message.recipient_email


def resend(user, message: Notification) -> Notification:
    """A failed message, sent again as a new message to the recipient's address as it is now (after
    the office corrected it, or the server that refused it was fixed). The failed one stays."""
    if user.role != "supervisor":
        raise Forbidden("Only supervisors may send a message again.")
    if message.status != "failed":
        raise InvalidTransition(f"Only a message that failed can be sent again; this one is {message.status}.")
    if db.session.scalar(select(Notification.id).where(Notification.resent_from == message.id)):
        raise Conflict("This message was already sent again; send the newer one again if it failed too.",
                       error="already_resent")
    address = (current_address(message) or "").strip()
    problem = outbox.address_problem(message.recipient_name, message.recipient_role, address or None)
    if problem:
        raise Conflict(problem + " Record an address first.", error="no_address")
    copy = Notification(**{column: getattr(message, column) for column in COPIED}, recipient_email=address,
                        resent_from=message.id, status="queued", next_attempt_at=clock.now(), created_by=user.id)
    db.session.add(copy)
    db.session.flush()
    audit.record("notification.resend", "notification", copy.id, {"resent_from": message.id, "to": address},
                 actor=user, permit_id=message.permit_id)
    return copy


COPIED = ("event", "record_type", "record_id", "permit_id", "required", "recipient_kind", "recipient_user_id",
          "recipient_party_id", "recipient_role", "recipient_name", "subject", "body_text", "body_html", "link",
          "attachments")
