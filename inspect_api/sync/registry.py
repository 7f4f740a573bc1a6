"""The entities sync carries, each as an adapter over its domain's own services.

Sync decides nothing about a record itself: a pushed mutation is loaded with the domain's
create/update schema and applied with its create/update function; pull reads with its visible and
dump functions. Each entity is declared once (adapters.declarations) and checked when the app starts
(load): an incomplete or uncallable declaration stops the start with SyncDeclarationError.
"""
from __future__ import annotations

import inspect
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

import sqlalchemy as sa
from sqlalchemy import Select
from sqlalchemy.orm import selectinload

from ..extensions import db
from ..paging import chunks

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
    # Values of the dump computed from the Town's clock (today's date or now), as `field` or
    # `list_field.item_field`: pull dumps such records live, never from a snapshot taken on an earlier
    # day, and a device sending back its older copy of them is not refused (sent_back.settle_read_only).
    clock_fields: tuple[str, ...] = ()
    load_options: tuple = field(default_factory=tuple)

    def __post_init__(self) -> None:
        if not self.load_options and isinstance(self.model, type) and hasattr(self.model, "__mapper__"):
            # Eager-load each relationship a dump may read: one query per page instead of one per row.
            self.load_options = tuple(selectinload(getattr(self.model, rel.key))
                                      for rel in sa.inspect(self.model).relationships)

    def permit_id_of(self, record: Any) -> str | None:
        if self.scope == PERMIT:
            return str(record.id)
        value = getattr(record, "sync_permit_id", None) or getattr(record, "permit_id", None)
        return str(value) if value is not None else None

    def load_visible(self, user: Any, ids: Iterable[str]) -> dict[str, Any]:
        """The records among `ids` that `user` may see, in one query per chunk of ids (never one per row)."""
        ids = list(ids)
        found: dict[str, Any] = {}
        for chunk in chunks(ids, IN_CHUNK):
            query = self.visible(user).where(self.model.id.in_(chunk))
            if self.load_options:
                query = query.options(*self.load_options)
            for record in db.session.scalars(query):
                found[str(record.id)] = record
        return found


class SyncDeclarationError(RuntimeError):
    """A sync entity's declaration is incomplete or names a function sync cannot call."""


# How sync calls each declared function (placeholders stand for the real arguments).
CALLS: dict[str, tuple[str, ...]] = {
    "dump": ("record",), "visible": ("user",), "get": ("user", "record_id"), "create": ("user", "data"),
    "update": ("user", "record", "data", "expected_version"), "delete": ("user", "record", "expected_version"),
}
# A pushable entity (not_pushed unset) is created from devices; editing from devices is optional, but
# an update function and its schema come together, as do create and its schema.
PAIRS = (("create", "create_schema"), ("update", "update_schema"))


def problems(adapter: EntityAdapter) -> list[str]:
    """What is wrong with one declaration (nothing: an empty list)."""
    found = []
    if getattr(adapter.model, "__sync_entity__", None) != adapter.entity:
        found.append(f"model {getattr(adapter.model, '__name__', adapter.model)!r} does not declare "
                     f"__sync_entity__ = {adapter.entity!r}")
    if adapter.scope not in (PERMIT, FIELD, ASSIGNMENT, GLOBAL):
        found.append(f"unknown scope {adapter.scope!r}")
    for part, args in CALLS.items():
        fn = getattr(adapter, part)
        if fn is None:
            if part in ("dump", "visible", "get") or (part == "create" and not adapter.not_pushed):
                found.append(f"no {part} function")
            continue
        try:
            inspect.signature(fn).bind(*args)
        except (TypeError, ValueError) as exc:
            found.append(f"{part} = {getattr(fn, '__qualname__', fn)!r} cannot be called as {part}"
                         f"({', '.join(args)}): {exc}")
    for function, part in PAIRS:
        schema = getattr(adapter, part)
        if schema is None and getattr(adapter, function) is not None:
            found.append(f"no {part} for its {function} function")
        elif schema is not None and getattr(adapter, function) is None:
            found.append(f"{part} without a {function} function")
        elif schema is not None and not callable(getattr(schema, "load", None)):
            found.append(f"{part} is not a schema instance")
    if adapter.not_pushed and any(getattr(adapter, p) is not None for p in ("create", "update", "delete")):
        found.append("declared not pushable but has create/update/delete")
    return found


def check(declared: list[EntityAdapter]) -> dict[str, EntityAdapter]:
    """The declarations by entity, or SyncDeclarationError naming every problem: an incomplete one, a
    duplicate, and a tracked model (one with __sync_entity__) that nothing declares."""
    errors: list[str] = []
    by_name: dict[str, EntityAdapter] = {}
    for adapter in declared:
        if adapter.entity in by_name:
            errors.append(f"{adapter.entity}: declared twice")
        by_name[adapter.entity] = adapter
        errors += [f"{adapter.entity}: {problem}" for problem in problems(adapter)]
    tracked = {getattr(m.class_, "__sync_entity__", None) for m in db.Model.registry.mappers} - {None}
    errors += [f"{entity}: tracked by a model but not declared" for entity in sorted(tracked - set(by_name))]
    if errors:
        raise SyncDeclarationError("sync entity declarations are incomplete (sync/adapters.py):\n  "
                                   + "\n  ".join(errors))
    return by_name


_lock = threading.Lock()
_adapters: dict[str, EntityAdapter] | None = None


def load(declarations: Iterable[EntityAdapter]) -> dict[str, EntityAdapter]:
    """Check the declarations (adapters.declarations) and keep them for this process: the app factory
    calls this at start-up, so an incomplete declaration stops the start."""
    global _adapters
    with _lock:
        _adapters = check(declarations)
    return _adapters


def adapters() -> dict[str, EntityAdapter]:
    if _adapters is None:
        raise RuntimeError("The sync declarations are not loaded: create_app loads them.")
    return _adapters


def get(entity: str) -> EntityAdapter | None:
    return adapters().get(entity)


def for_model(model: type) -> EntityAdapter | None:
    return next((a for a in adapters().values() if a.model is model), None)


def entities(*scopes: str) -> list[str]:
    return sorted(name for name, adapter in adapters().items() if not scopes or adapter.scope in scopes)

