"""Rights before versions: may this account make this change to the record at all?

A stale push is kept as a conflict for someone to resolve, so the question must be asked before the
versions are compared: a push from an account that may not edit the record is `rejected`
(`forbidden`) and leaves no conflict holding its data. Resolving a conflict with the device's
version asks it again, of the conflict's author, so "take the device's" can never apply a change
its author was not allowed to make.

The answer comes from the entity's own update (or delete) service, which is where each domain
keeps its rights: it is run against the record's current version inside a SAVEPOINT that is always
rolled back, so nothing of the trial is kept, and with the domain signals muted (signals.muted()), so
no message is even rendered for it. Only a 403 from it is a refusal; any other objection
(validation, a lock) is about the content, which the conflict exists to settle.
"""
from __future__ import annotations

from typing import Any

from marshmallow import EXCLUDE, ValidationError

from .. import signals
from ..errors import ApiError, Forbidden
from ..extensions import db
from . import registry, rules


class _Trial(Exception):
    """Raised at the end of a trial that passed, to roll its savepoint back."""


def refusal(user, adapter: registry.EntityAdapter, record: Any, op: str, data: dict[str, Any], *,
            locks_too: bool = False) -> Forbidden | None:
    """The 403 `user` would get for this change to `record` as it is now, or None if allowed.
    With `locks_too`, a record the user may not change now (a 409 such as record_locked or
    permit_locked) is a refusal as well: what a resolution asks, since someone else's rights would
    otherwise carry the author's change past the lock."""
    if user is None or not user.active:
        return Forbidden("The account that made this change may no longer make changes.")
    try:
        # Muted: the trial is always rolled back, so its signals' receivers must not run at all (they
        # would render documents and store attachment blobs, which no rollback takes back).
        with signals.muted(), db.session.begin_nested():
            if op == "delete":
                if adapter.delete is not None:
                    adapter.delete(user, record, record.version)
            elif adapter.update is not None and adapter.update_schema is not None:
                adapter.update(user, record, _trial_data(adapter, data), record.version)
            raise _Trial()
    except _Trial:
        return None
    except Forbidden as exc:
        return exc
    except ApiError as exc:
        if locks_too and exc.code == 409:
            return Forbidden(exc.message, errors={"reason": [exc.error]})
        return None
    except ValidationError:
        return None


def _trial_data(adapter: registry.EntityAdapter, data: dict[str, Any]) -> dict[str, Any]:
    """The change as the update service takes it; when it does not load (fields unknown to an update,
    values out of range), the bare edit still meets every role and assignment check."""
    try:
        return adapter.update_schema.load(rules.update_payload(data), unknown=EXCLUDE)
    except ValidationError:
        return {}
