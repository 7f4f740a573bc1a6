"""A user's choice of the optional messages: read, change, and consulted before a
message to that user is written. Required notices never consult it (catalogue.Event.always)."""
from __future__ import annotations

from typing import Any

from sqlalchemy import select

from .. import clock
from ..errors import ValidationFailed
from ..extensions import db
from . import catalogue
from .reminder_models import NotificationPreference


def _choices(user_id: str) -> dict[str, bool]:
    return dict(db.session.execute(select(NotificationPreference.event, NotificationPreference.enabled)
                                   .where(NotificationPreference.user_id == user_id)).all())


def wants(user_id: str | None, event: str) -> bool:
    """Whether a message of `event` is written for this user. No account, a required notice, or no
    choice recorded: yes."""
    if user_id is None or catalogue.event(event).always:
        return True
    return _choices(user_id).get(event, True)


def view(user) -> dict[str, Any]:
    choices = _choices(user.id)
    always = [e for e in catalogue.EVENTS.values() if e.always and user.role in e.roles]
    return {"preferences": [{"event": e.name, "label": e.label, "enabled": choices.get(e.name, True)}
                            for e in catalogue.switchable(user.role)],
            "always_sent": [{"event": e.name, "label": e.label, "required_by_bylaw": e.required}
                            for e in always]}


def update(user, data: dict[str, Any]) -> dict[str, Any]:
    """Set the choices named; others keep theirs. Naming a required notice, or one this role never
    receives, is a 422 that names it."""
    allowed = {e.name for e in catalogue.switchable(user.role)}
    wrong = {}
    for index, item in enumerate(data["preferences"]):
        if item["event"] not in allowed:
            known = catalogue.EVENTS.get(item["event"])
            wrong[str(index)] = {"event": ["This notice is always sent; it cannot be switched off."
                                           if known and known.always and user.role in known.roles
                                           else "Not a message you receive."]}
    if wrong:
        raise ValidationFailed(errors={"preferences": wrong})
    current = {p.event: p for p in db.session.scalars(
        select(NotificationPreference).where(NotificationPreference.user_id == user.id))}
    for item in data["preferences"]:
        row = current.get(item["event"])
        if row is None:
            row = current[item["event"]] = NotificationPreference(user_id=user.id, event=item["event"])
            db.session.add(row)
        row.enabled, row.updated_at = bool(item["enabled"]), clock.now()
    db.session.flush()
    return view(user)
