"""The server-wide change sequence that sync pull reads.

Any model with a class attribute `__sync_entity__` (for example "inspection") is tracked: whenever a
transaction that inserted, changed or deleted such a record commits, the record's row in
`sync_changes` gets a new number, taken in the writing transaction right before COMMIT. A reader
pages by `seq > cursor` and must never skip a change committed "out of order" (a number taken early
by a transaction that commits late). How the number is taken depends on the database:

- "counter" (the default, and always on SQLite, one writer at a time anyway): the next numbers of a single counter, `UPDATE sync_counter
  ... RETURNING`, whose row lock lasts until the transaction ends, so a later number can never become
  visible before an earlier one.
- PostgreSQL with SYNC_FEED_NUMBERING = "watermark": the transaction's own id (`pg_current_xact_id()`, 64 bits, never reused) times SPAN,
  plus 0, 1, 2 ... for its records. No lock: writers no longer queue on one row for the length of
  each other's COMMIT (benchmarks/feed_lock.py measures what that queue cost). Ids are not given out
  in commit order, so pull serves only numbers below the visibility watermark, current_sequence():
  SPAN times the oldest transaction id still running (`pg_snapshot_xmin(pg_current_snapshot())`),
  minus one. Every transaction below it has ended, so every number below it is final; any change
  still to come belongs to a transaction at or above it, so its number is above the watermark and
  above every number a reader was sent. A transaction that numbers its changes first and commits
  last holds the watermark below its own numbers until it ends, and nothing after it is sent before it.
  The watermark is the server's: a long writing transaction in any database of that server holds
  every pull at it (nothing is lost; later changes arrive once it ends), hence a setting, not the
  default. Switching from "counter" to "watermark" is safe (transaction ids times SPAN lie far above
  any counter). Going back needs the counter set above every cursor handed out, with no writer
  running: `UPDATE sync_counter SET value = pg_snapshot_xmin(pg_current_snapshot())::text::bigint
  * 1048576`; without it the counter's numbers would lie below the devices' cursors.

One row per record (its newest state); a deleted record keeps its row as a tombstone.
Savepoints that roll back are handled by re-reading what is really in the table at commit time.
"""
from __future__ import annotations

import weakref
from collections import defaultdict
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event, select, update
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Mapped, Session, mapped_column

from . import clock
from .db import IdColumn, UTCDateTime, clock_now
from .extensions import db
from .paging import chunks

_PENDING = "sync_pending_changes"
# PostgreSQL numbers: transaction id * SPAN + the record's place in the transaction. 2**20 records per
# transaction, and 2**43 transaction ids before a BigInteger runs out (centuries at a thousand a second).
SPAN = 1 << 20


class SyncChange(db.Model):
    __tablename__ = "sync_changes"

    entity: Mapped[str] = mapped_column(sa.String(40), primary_key=True)
    record_id: Mapped[str] = mapped_column(sa.String(64), primary_key=True)
    seq: Mapped[int] = mapped_column(sa.BigInteger, nullable=False, unique=True)
    permit_id: Mapped[str | None] = mapped_column(IdColumn, nullable=True, index=True)
    op: Mapped[str] = mapped_column(sa.String(10), nullable=False)
    version: Mapped[int] = mapped_column(sa.Integer, nullable=False, default=0)
    changed_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False, default=clock_now)


class SyncCounter(db.Model):
    """One row: the last sequence number handed out, and up to which number tombstones were purged."""

    __tablename__ = "sync_counter"

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    value: Mapped[int] = mapped_column(sa.BigInteger, nullable=False, default=0)
    purged_through: Mapped[int] = mapped_column(sa.BigInteger, nullable=False, default=0)


@event.listens_for(SyncCounter.__table__, "after_create")
def _seed_counter(target, connection, **_kw):
    connection.execute(target.insert().values(id=1, value=0, purged_through=0))


def tracked_entity(obj: Any) -> str | None:
    return getattr(type(obj), "__sync_entity__", None)


def _permit_of(obj: Any) -> str | None:
    if hasattr(obj, "sync_permit_id"):
        return obj.sync_permit_id
    return getattr(obj, "permit_id", None)


@event.listens_for(Session, "after_flush")
def _collect(session: Session, _flush_context) -> None:
    pending: dict = session.info.setdefault(_PENDING, {})
    # session.new and session.dirty build a fresh set on every access: read each once (testing
    # `obj in session.new` per object made a flush of n records cost n^2).
    for obj in session.new:
        entity = tracked_entity(obj)
        if entity:
            pending[(entity, str(obj.id))] = (type(obj), _permit_of(obj))
    for obj in session.dirty:
        entity = tracked_entity(obj)
        if entity and session.is_modified(obj, include_collections=False):
            pending[(entity, str(obj.id))] = (type(obj), _permit_of(obj))
    for obj in session.deleted:
        entity = tracked_entity(obj)
        if entity:
            pending[(entity, str(obj.id))] = (type(obj), _permit_of(obj))


def touch(obj: Any) -> None:
    """Mark a tracked record changed even when only a related row changed (e.g. its findings)."""
    entity = tracked_entity(obj)
    if entity:
        db.session.info.setdefault(_PENDING, {})[(entity, str(obj.id))] = (type(obj), _permit_of(obj))


def touch_row(model: type, record_id: str, permit_id: str | None, session: Session | None = None) -> None:
    """touch() by id, for a record not loaded (e.g. from inside a flush, where loading is off limits)."""
    info = (session or db.session).info
    info.setdefault(_PENDING, {})[(model.__sync_entity__, str(record_id))] = (model, permit_id)


@event.listens_for(Session, "before_commit")
def _assign_sequence(session: Session) -> None:
    # SQLAlchemy also fires before_commit when a SAVEPOINT is released. Numbering there would take
    # the counter's row lock at the first released savepoint (a sync push releases one per
    # mutation) and hold it, blocking every other writer, for the rest of the request; wait for
    # the real COMMIT instead. What the savepoints left behind is re-read then.
    if session.in_nested_transaction():
        return
    # Flush first: what only COMMIT's own flush would write is collected by _collect only then, and
    # must be numbered in this transaction (a session dropped after it would lose it for good).
    session.flush()
    pending = session.info.pop(_PENDING, {}) or {}
    if not pending:
        return
    by_model: dict[type, list[str]] = defaultdict(list)
    for (_entity, record_id), (model, _permit) in pending.items():
        by_model[model].append(record_id)
    state: dict[tuple[str, str], tuple[str, int]] = {}
    for model, ids in by_model.items():
        cols = [model.id, model.version]
        deleted_col = getattr(model, "deleted_at", None)
        if deleted_col is not None:
            cols.append(deleted_col)
        found = {str(row[0]): row for chunk in chunks(ids)
                 for row in session.execute(select(*cols).where(model.id.in_(chunk)))}
        for record_id in ids:
            row = found.get(record_id)
            if row is None or (deleted_col is not None and row[2] is not None):
                state[(model.__sync_entity__, record_id)] = ("delete", row[1] if row is not None else 0)
            else:
                state[(model.__sync_entity__, record_id)] = ("upsert", row[1])
    known = {
        (e, r) for chunk in chunks(list(state)) for e, r in session.execute(
            select(SyncChange.entity, SyncChange.record_id).where(
                sa.tuple_(SyncChange.entity, SyncChange.record_id).in_(chunk)))
    }
    # A record created and removed inside one transaction (or a rolled-back savepoint) never existed
    # for any device: no tombstone for it.
    items = [(key, val) for key, val in state.items() if not (val[0] == "delete" and key not in known)]
    if not items:
        return
    first = _first_number(session, len(items))
    now = clock.now()
    moved, new = [], []
    for seq, ((entity, record_id), (op, version)) in enumerate(items, start=first):
        values = {"entity": entity, "record_id": record_id, "seq": seq, "op": op, "version": version or 0,
                  "changed_at": now, "permit_id": pending[(entity, record_id)][1]}
        (moved if (entity, record_id) in known else new).append(values)
    # One executemany each (an UPDATE by primary key, an INSERT), not one statement per record.
    if moved:
        session.execute(update(SyncChange), moved)
    if new:
        session.execute(sa.insert(SyncChange), new)


@event.listens_for(Session, "after_rollback")
def _forget(session: Session) -> None:
    if not session.in_transaction():
        session.info.pop(_PENDING, None)


_BY_WATERMARK: "weakref.WeakSet[Engine]" = weakref.WeakSet()


def set_numbering(engine: Engine, mode: str) -> None:
    """SYNC_FEED_NUMBERING for this engine (the app factory calls this): "counter" or "watermark"."""
    if mode not in ("counter", "watermark"):
        raise ValueError(f"SYNC_FEED_NUMBERING must be counter or watermark, not {mode!r}")
    if mode == "watermark" and engine.dialect.name != "postgresql":
        raise ValueError("SYNC_FEED_NUMBERING = watermark needs PostgreSQL")
    if mode == "watermark":
        _BY_WATERMARK.add(engine)
    else:
        _BY_WATERMARK.discard(engine)


def by_watermark(session: Session) -> bool:
    """Does this session's database number by watermark (SYNC_FEED_NUMBERING)?"""
    bind = session.get_bind()
    return getattr(bind, "engine", bind) in _BY_WATERMARK


def _first_number(session: Session, count: int) -> int:
    """The first of `count` consecutive numbers for this transaction's changes (see the module doc)."""
    if by_watermark(session):
        if count > SPAN:
            raise RuntimeError(f"one transaction may number at most {SPAN} records; commit in smaller parts")
        return session.execute(sa.text("SELECT pg_current_xact_id()::text::bigint")).scalar_one() * SPAN
    top = session.execute(
        update(SyncCounter).where(SyncCounter.id == 1)
        .values(value=SyncCounter.value + count).returning(SyncCounter.value)
    ).scalar_one()
    return top - count + 1


def current_sequence(session: Session | None = None) -> int:
    """Every change numbered at or below this is final: committed (and visible to a statement that
    starts now) or never to be: the counter, or (numbering by watermark) the visibility watermark."""
    session = session or db.session()
    if by_watermark(session):
        xmin = session.execute(sa.text("SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint")).scalar_one()
        return xmin * SPAN - 1
    return session.execute(select(SyncCounter.value).where(SyncCounter.id == 1)).scalar_one()
