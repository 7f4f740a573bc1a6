"""Reading the delivery evidence: who may see which message.

Supervisors see every message (they serve the notices and must see who could not be reached).
Everyone else sees only messages addressed to them: as the user, or as a party linked to their
account, and only on permits they may see. An admin sees no record's content, so only what was sent
to the admin themself (DOMAIN.md "Who uses it")."""
from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy import Select, bindparam, select

from .. import audit, clock
from ..errors import Conflict, Forbidden, InvalidTransition, NotFound
from ..extensions import db
from ..paging import named_filters, page_of
from ..permits.access import VIEWER, permit_scoped, scope_of, scope_values
from ..permits.models import Party
from . import outbox
from .models import Notification
from ..auth.models import User


def visible_notifications(user) -> Select:
    return _scoped_notifications(user.role, scope_of(user), user.id)


def _scoped_notifications(role: str, scope: str, viewer: Any) -> Select:
    """The messages a caller in `role` (of `scope`) whose id is `viewer` may see: `viewer` a value, or
    `bindparam(VIEWER)` for a statement built once for every such caller (paging.page_of)."""
    query = select(Notification)
    if role == "supervisor":
        return query
    if role == "admin":
        return query.where(Notification.recipient_user_id == viewer, Notification.permit_id.is_(None))
    mine = sa.or_(Notification.recipient_user_id == viewer,
                  Notification.recipient_party_id.in_(select(Party.id).where(Party.user_id == viewer)))
    on_visible = sa.or_(Notification.permit_id.is_(None), permit_scoped(Notification.permit_id, scope, viewer))
    return query.where(mine, on_visible)


_FILTERS = ("record_id", "permit_id", "event", "status")


def list_notifications(user, args: dict[str, Any]) -> tuple[list[Notification], int]:
    values = {**scope_values(user), **named_filters(args, _FILTERS)}
    shape = (user.role, scope_of(user), *(key in values for key in _FILTERS))
    return page_of(_notifications_page, shape, values, args)


def _notifications_page(role: str, scope: str, *named: bool) -> Select:
    """The messages list for any caller in `role` (paging.page_of), oldest first."""
    query = _scoped_notifications(role, scope, bindparam(VIEWER))
    for key, filtered in zip(_FILTERS, named):
        if filtered:
            query = query.where(getattr(Notification, key) == bindparam(key))
    return query.order_by(Notification.created_at, Notification.recipient_name, Notification.id)


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
