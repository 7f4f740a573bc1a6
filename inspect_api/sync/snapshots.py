"""Writing SyncSnapshot rows: at COMMIT, after inspect_api.changes has numbered the records the
transaction touched, each one's dump is stored beside its number (a tombstone drops it).

Snapshots only make pull faster; they never decide anything. A record whose dump fails, or that
changed without an ORM write this hook could see (changes.touch), simply has no snapshot for its
current number, and pull dumps it live.
"""
from __future__ import annotations

import json
import logging
from datetime import date, datetime
from decimal import Decimal
from typing import Any
from uuid import UUID

import sqlalchemy as sa
from sqlalchemy import event, select
from sqlalchemy.orm import Session

# Importing the change feed first registers its commit hook first, so it runs (numbers) before ours.
from ..changes import SyncChange, tracked_entity
from ..paging import chunks
from . import registry
from .models import SyncSnapshot

log = logging.getLogger(__name__)
_PENDING = "sync_snapshot_pending"


def to_json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), default=_plain)


def _plain(value: Any) -> Any:
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, (Decimal, UUID)):
        return str(value)
    raise TypeError(f"{type(value).__name__} is not JSON")


@event.listens_for(Session, "after_flush")
def _collect(session: Session, _flush_context) -> None:
    pending: dict = session.info.setdefault(_PENDING, {})
    # Holding the objects keeps them in the session's (weak) identity map until COMMIT, so dumping
    # them there needs no query. (session.new/dirty/deleted build a new set per access: read once.)
    changed = [obj for obj in session.dirty
               if tracked_entity(obj) and session.is_modified(obj, include_collections=False)]
    for obj in [*session.new, *changed, *session.deleted]:
        entity = tracked_entity(obj)
        if entity:
            pending[(entity, str(obj.id))] = obj


@event.listens_for(Session, "after_rollback")
def _forget(session: Session) -> None:
    if not session.in_transaction():
        session.info.pop(_PENDING, None)


def _feed_rows(session: Session, keys: list[tuple[str, str]]) -> dict[tuple[str, str], Any]:
    by_entity: dict[str, list[str]] = {}
    for entity, record_id in keys:
        by_entity.setdefault(entity, []).append(record_id)
    rows = {}
    for entity, ids in by_entity.items():
        for chunk in chunks(ids):
            query = select(SyncChange.record_id, SyncChange.seq, SyncChange.op).where(
                SyncChange.entity == entity, SyncChange.record_id.in_(chunk))
            rows.update({(entity, row.record_id): row for row in session.execute(query)})
    return rows


def _dump(session: Session, entity: str, model: type, record_id: str) -> str | None:
    adapter = registry.get(entity)
    # By identity, not the held object: one created in a savepoint that rolled back is not in the table.
    record = session.get(model, record_id) if adapter is not None else None
    if record is None:
        return None
    try:
        return to_json(adapter.dump(record))
    except Exception:  # the live dump at pull time will show the same problem to whoever reads it
        log.exception("sync snapshot: cannot dump %s %s", entity, record_id)
        return None


@event.listens_for(Session, "before_commit")
def _write(session: Session) -> None:
    if session.in_nested_transaction():
        return  # a SAVEPOINT release; the real COMMIT comes later (see changes._assign_sequence)
    session.flush()  # normally a no-op: the change feed's hook, which runs first, has flushed
    pending: dict = session.info.pop(_PENDING, None) or {}
    if not pending:
        return
    table = SyncSnapshot.__table__
    feed = _feed_rows(session, list(pending))
    stale, fresh = [], []
    for (entity, record_id), obj in pending.items():
        row = feed.get((entity, record_id))
        data = _dump(session, entity, type(obj), record_id) if row is not None and row.op == "upsert" else None
        stale.append({"e": entity, "r": record_id})
        if data is not None:
            fresh.append({"entity": entity, "record_id": record_id, "seq": row.seq, "data": data})
    session.execute(table.delete().where(table.c.entity == sa.bindparam("e"), table.c.record_id == sa.bindparam("r")),
                    stale)
    if fresh:
        session.execute(table.insert(), fresh)
