"""Reading the delivery evidence: who may see which message.

Supervisors see every message (they serve the notices and must see who could not be reached).
Everyone else sees only messages addressed to them: as the user, or as a party linked to their
account, and only on permits they may see. An admin sees no record's content, so only what was sent
to the admin themself (DOMAIN.md "Who uses it")."""
from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy import Select, select

from ..paging import page_query
from ..permits.access import visible_permit_ids
from ..permits.models import Party
from .models import Notification


def visible_notifications(user) -> Select:
    query = select(Notification)
    if user.role == "supervisor":
        return query
    mine = sa.or_(Notification.recipient_user_id == user.id,
                  Notification.recipient_party_id.in_(select(Party.id).where(Party.user_id == user.id)))
    on_visible = sa.or_(Notification.permit_id.is_(None), Notification.permit_id.in_(visible_permit_ids(user)))
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
