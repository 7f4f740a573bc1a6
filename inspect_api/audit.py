"""Append-only audit log: who did what to which record, when, from which device, with the changed fields.

Rows are only ever inserted; an ORM guard refuses updates and deletes of audit rows so a bug cannot
rewrite history (DOMAIN.md "Evidence").
"""
from __future__ import annotations

import json
from contextlib import contextmanager
from datetime import date, datetime
from decimal import Decimal
from typing import Any, Iterator

import sqlalchemy as sa
from flask import g, has_request_context, request
from sqlalchemy import event
from sqlalchemy.orm import Mapped, Session, mapped_column
from flask_jwt_extended import current_user

from .db import IdColumn, UTCDateTime, new_id, clock_now
from .extensions import db
from .paging import page_query


class AuditEntry(db.Model):
    __tablename__ = "audit_log"

    id: Mapped[str] = mapped_column(IdColumn, primary_key=True, default=new_id)
    at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False, default=clock_now, index=True)
    actor_id: Mapped[str | None] = mapped_column(IdColumn, nullable=True, index=True)
    device_id: Mapped[str | None] = mapped_column(sa.String(64), nullable=True)
    ip_address: Mapped[str | None] = mapped_column(sa.String(64), nullable=True)
    action: Mapped[str] = mapped_column(sa.String(80), nullable=False)
    record_type: Mapped[str] = mapped_column(sa.String(40), nullable=False)
    record_id: Mapped[str] = mapped_column(sa.String(64), nullable=False, index=True)
    permit_id: Mapped[str | None] = mapped_column(IdColumn, nullable=True, index=True)
    changes: Mapped[dict[str, Any]] = mapped_column(sa.JSON, nullable=False, default=dict)


@event.listens_for(AuditEntry, "before_update")
@event.listens_for(AuditEntry, "before_delete")
def _append_only(_mapper, _connection, _target):
    raise RuntimeError("the audit log is append-only")


def _plain(value: Any) -> Any:
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [_plain(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)


def list_entries(args: dict[str, Any]) -> tuple[list[AuditEntry], int]:
    """Audit rows of one record or of everything on a permit, newest first, one page of them."""
    filters = [col == args[key] for key, col in (("record_id", AuditEntry.record_id),
                                                  ("permit_id", AuditEntry.permit_id)) if args.get(key)]
    return page_query(sa.select(AuditEntry).where(sa.or_(*filters))
                      .order_by(AuditEntry.at.desc(), AuditEntry.id.desc()), args)


def record(action: str, record_type: str, record_id: str, changes: dict[str, Any] | None = None, *,
           actor: Any = None, device_id: str | None = None, permit_id: str | None = None) -> AuditEntry | None:
    """Add one audit row to the current transaction (it commits or rolls back with the change).
    Inside deferred() the row is held and written with the batch's others (and None is returned)."""
    if actor is None and has_request_context():
        try:
            actor = current_user._get_current_object() if current_user else None
        except RuntimeError:
            actor = None
    if device_id is None and has_request_context():
        device_id = getattr(g, "device_id", None)
    values = dict(
        actor_id=getattr(actor, "id", None), device_id=device_id,
        ip_address=request.remote_addr if has_request_context() else None,
        action=action, record_type=record_type, record_id=str(record_id), permit_id=permit_id,
        changes=json.loads(json.dumps(_plain(changes or {}))),
    )
    held = db.session.info.get(_DEFERRED)
    if held is not None:
        values.update(id=new_id(), at=clock_now())
        held.append((db.session().get_nested_transaction(), values))
        return None  # nothing to hand back: the row exists only once write_deferred() inserts it
    entry = AuditEntry(**values)
    db.session.add(entry)
    return entry


# --- a batch's audit rows in one write (sync push) ------------------------------------------------------
# A push flushes once per mutation, and each audit row would be one more INSERT in it. Inside
# deferred() record() keeps the row (with its id and time taken now) and write_deferred() inserts the
# batch's rows with one executemany, in the same transaction. A row made inside a SAVEPOINT that is
# then rolled back (a refused mutation, a rights trial) is dropped with it, as the ORM would drop it.
_DEFERRED = "audit_deferred_rows"


@contextmanager
def deferred() -> Iterator[None]:
    session = db.session()
    if session.info.get(_DEFERRED) is not None:  # nested: the outer batch writes
        yield
        return
    session.info[_DEFERRED] = []
    try:
        yield
        write_deferred()
    finally:
        session.info.pop(_DEFERRED, None)


def write_deferred() -> None:
    held = db.session.info.get(_DEFERRED)
    if held:
        db.session.execute(AuditEntry.__table__.insert(), [values for _tx, values in held])
        held.clear()


@event.listens_for(Session, "after_soft_rollback")
def _drop_rolled_back(session: Session, rolled_back) -> None:
    held = session.info.get(_DEFERRED)
    if not held:
        return
    if not rolled_back.nested:
        held.clear()
        return

    def inside(tx) -> bool:
        while tx is not None:
            if tx is rolled_back:
                return True
            tx = tx.parent
        return False

    held[:] = [(tx, values) for tx, values in held if not inside(tx)]


def diff(before: dict[str, Any], after: dict[str, Any]) -> dict[str, list[Any]]:
    """Changed fields as {field: [old, new]}."""
    return {k: [_plain(before.get(k)), _plain(after.get(k))] for k in after if before.get(k) != after.get(k)}
