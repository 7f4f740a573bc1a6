"""The device registry: which tablets sync, for whom, when, and what they still hold unsent.

A device is registered the first time it pushes or pulls (its id comes from the push body, the
X-Device-Id header or the token's `device` claim). A device belongs to one account, so the registry
lives with the accounts; sync asks it. Revoking one (services.revoke_device) ends its sign-in
sessions, so its refresh and access tokens stop working, and refuses its pushes and pulls from then on.
"""
from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from flask import g
from sqlalchemy import Select, select
from sqlalchemy.exc import IntegrityError

from .. import clock
from ..errors import Forbidden, NotFound
from ..extensions import db
from ..paging import page_query
from .models import AuthSession, Device

MANAGERS = ("supervisor", "admin")


def session_device_name(device_id: str, *, search: bool = False) -> str | None:
    """The name the device signed in with: from this request's session (already loaded by the token
    check), or, when registering, from its latest session that named it."""
    session_id = getattr(g, "session_id", None)
    session = db.session.get(AuthSession, session_id) if session_id else None
    if session is not None and session.device_id == device_id and session.device_name:
        return session.device_name
    if not search:
        return None
    return db.session.scalar(select(AuthSession.device_name).where(
        AuthSession.device_id == device_id, AuthSession.device_name.is_not(None))
        .order_by(AuthSession.created_at.desc()).limit(1))


def _register(user, device_id: str) -> Device:
    try:
        with db.session.begin_nested():
            device = Device(id=device_id, user_id=user.id, name=session_device_name(device_id, search=True),
                            first_seen=clock.now())
            db.session.add(device)
            db.session.flush()
        return device
    except IntegrityError:  # a parallel request registered it first
        return db.session.get(Device, device_id)


def touch_device(user, device_id: str | None, *, pushed: bool = False, pulled: bool = False,
                 app_version: str | None = None, pending_count: int | None = None) -> Device | None:
    """Register or update the device a push or pull comes from; 403 device_revoked if revoked."""
    if not device_id:
        return None
    device = db.session.get(Device, device_id)
    fresh = device is None
    if fresh:
        device = _register(user, device_id)
    if device.revoked_at is not None:
        raise Forbidden("This device was revoked; ask a supervisor, or sign in on another device.",
                        error="device_revoked")
    now = clock.now()
    if device.user_id != user.id:
        # A device id names one account's tablet for good: signing in on a shared tablet gives the
        # next person a device id of their own (auth.services.start_session), so nothing another
        # account recorded is ever attributed to them, nor theirs to it.
        raise Forbidden("This device id is registered to another account; sign in on the device itself.",
                        error="device_in_use")
    if device.name is None and not fresh:
        device.name = session_device_name(device_id)  # no query: the token check loaded the session
    if app_version:
        device.app_version = app_version
    if pushed:
        device.last_push_at = now
    if pulled:
        device.last_pull_at = now
    if pending_count is not None:
        device.pending_count, device.pending_reported_at = pending_count, now
    db.session.flush()
    return device


def device_owner(device_id: str) -> str | None:
    """The account a device id belongs to: its registry row, else the newest sign-in that named it
    (a tablet that signed in but has not synced yet); None for an id nobody has used."""
    owner = db.session.scalar(select(Device.user_id).where(Device.id == device_id))
    if owner is not None:
        return owner
    return db.session.scalar(select(AuthSession.user_id).where(AuthSession.device_id == device_id)
                             .order_by(AuthSession.created_at.desc()).limit(1))


def visible_devices(user) -> Select:
    query = select(Device)
    if user.role in MANAGERS:
        return query
    return query.where(Device.user_id == user.id)


def list_devices(user, filters: dict[str, Any]) -> tuple[list[Device], int]:
    query = visible_devices(user)
    if filters.get("pending") is True:
        query = query.where(Device.pending_count > 0)
    elif filters.get("pending") is False:
        query = query.where(sa.or_(Device.pending_count.is_(None), Device.pending_count == 0))
    if filters.get("user_id"):
        query = query.where(Device.user_id == filters["user_id"])
    if filters.get("revoked") is not None:
        query = query.where(Device.revoked_at.is_not(None) if filters["revoked"] else Device.revoked_at.is_(None))
    return page_query(query.order_by(Device.last_push_at.desc().nulls_last(), Device.id), filters)


def get_device(user, device_id: str) -> Device:
    device = db.session.scalar(visible_devices(user).where(Device.id == device_id))
    if device is None:
        raise NotFound("No such device.")
    return device
