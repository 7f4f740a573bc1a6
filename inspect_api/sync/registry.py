"""The entities sync carries, each as an adapter over its domain's own services.

Sync decides nothing about a record itself: a pushed mutation is loaded with the domain's
create/update schema and applied with its create_<entity>/update_<entity> (COMMON.md convention);
pull reads with visible_<plural> and dump_<entity>. The adapters are found once per process
(adapters.discover); an entity whose domain is absent is simply not there.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from sqlalchemy import Select

from ..extensions import db

# Where an entity's records live, which decides who pulls them (pull.pull_scope).
PERMIT, FIELD, ASSIGNMENT, GLOBAL = "permit", "field", "assignment", "global"
IN_CHUNK = 1000  # ids per IN (...) list: well inside SQLite's and PostgreSQL's parameter limits


@dataclass
class EntityAdapter:
    entity: str
    model: type
    scope: str
    dump: Callable[[Any], dict]
    visible: Callable[[Any], Select]
    get: Callable[[Any, str], Any]
    create: Callable[[Any, dict], Any] | None = None
    update: Callable[[Any, Any, dict, int | None], Any] | None = None
    delete: Callable[[Any, Any, int | None], Any] | None = None
    create_schema: Any = None
    update_schema: Any = None
    not_pushed: str | None = None  # why devices may not push this entity, if they may not
    load_options: tuple = field(default_factory=tuple)

    def permit_id_of(self, record: Any) -> str | None:
        if self.scope == PERMIT:
            return str(record.id)
        value = getattr(record, "sync_permit_id", None) or getattr(record, "permit_id", None)
        return str(value) if value is not None else None

    def load_visible(self, user: Any, ids: Iterable[str]) -> dict[str, Any]:
        """The records among `ids` that `user` may see, in one query per chunk of ids (never one per row)."""
        ids = list(ids)
        found: dict[str, Any] = {}
        for start in range(0, len(ids), IN_CHUNK):
            query = self.visible(user).where(self.model.id.in_(ids[start:start + IN_CHUNK]))
            if self.load_options:
                query = query.options(*self.load_options)
            for record in db.session.scalars(query):
                found[str(record.id)] = record
        return found


_lock = threading.Lock()
_adapters: dict[str, EntityAdapter] | None = None


def adapters() -> dict[str, EntityAdapter]:
    global _adapters
    if _adapters is None:
        with _lock:
            if _adapters is None:
                from .adapters import discover
                _adapters = discover()
    return _adapters


def get(entity: str) -> EntityAdapter | None:
    return adapters().get(entity)


def entities(*scopes: str) -> list[str]:
    return sorted(name for name, adapter in adapters().items() if not scopes or adapter.scope in scopes)


def reset() -> None:
    """Forget the adapters (tests that swap a domain in or out)."""
    global _adapters
    with _lock:
        _adapters = None
