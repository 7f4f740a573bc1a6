"""Append-only audit log: who did what to which record, when, from which device, with the changed fields.

Rows are only ever inserted; an ORM guard refuses updates and deletes of audit rows so a bug cannot
rewrite history (DOMAIN.md "Evidence"), and on PostgreSQL a trigger refuses UPDATE and DELETE of
audit_log and audit_seals to every connection (the migration and create_all install it; only a
session that sets `inspect_api.audit_maintenance` to "on", which the app never does and the test
harness does with SET LOCAL to empty the tables between tests, gets past it).

Tamper evidence (inspect_api/audit_chain.py has the pure hashing, inspect_api/audit_seals.py the
daily seals and their verification):

- Order. Ids are random UUIDs, so the chain follows `seq`, a number given to each row in the
  transaction that writes it, the change feed's way (inspect_api/changes.py) without its counter:
  a transaction's rows are numbered BLOCK * SPAN + 0, 1, 2 ... in the order they are written, where
  BLOCK is, on PostgreSQL, the transaction's own id (`pg_current_xact_id()`, never reused), and on
  SQLite (one writer at a time anyway) one more than the highest block written. No row or lock is
  shared between writers: concurrent transactions number their rows independently and commit in
  any order (benchmarks/audit_chain.py measures what the numbers and hashes cost, and what one
  counter for every writer would). Blocks are not handed out in commit order, so a day's seal
  covers only numbers below the watermark of this database's transactions (every transaction below
  it has ended: the numbers there are final; see audit_seals.py). A savepoint that rolls back takes its rows with it and the numbering
  goes on from the highest row still there, so a block's numbers are always 0, 1, 2 ... with no
  hole: a hole is a row removed behind the application's back.
- Hash. `row_hash` = audit_chain.row_hash_of(the row's ROW_FIELDS, `seq` included), computed in
  the writing transaction when the row is inserted (ORM flush or the deferred batch alike).
"""
from __future__ import annotations

import json
from contextlib import contextmanager
from datetime import date, datetime
from decimal import Decimal
from typing import Any, Iterable, Iterator

import sqlalchemy as sa
from flask import g, has_request_context, request
from sqlalchemy import event
from sqlalchemy.orm import Mapped, Session, mapped_column, object_session
from flask_jwt_extended import current_user

from .audit_chain import ROW_FIELDS, SEAL_FIELDS, instant, row_hash_of
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
    seq: Mapped[int] = mapped_column(sa.BigInteger, nullable=False, unique=True)
    row_hash: Mapped[str] = mapped_column(sa.String(64), nullable=False)


class AuditSeal(db.Model):
    """One day's seal (audit_seals.py): the Merkle root of every row numbered first_seq..last_seq,
    chained to the seal before it. `seqs` lists the sealed rows' numbers as [first, count] runs, so
    verification can name a row removed; it is not part of the seal's hash."""

    __tablename__ = "audit_seals"

    number: Mapped[int] = mapped_column(sa.Integer, primary_key=True, autoincrement=False)
    day: Mapped[date] = mapped_column(sa.Date, nullable=False, unique=True)
    first_seq: Mapped[int] = mapped_column(sa.BigInteger, nullable=False)
    last_seq: Mapped[int] = mapped_column(sa.BigInteger, nullable=False)
    row_count: Mapped[int] = mapped_column(sa.Integer, nullable=False)
    merkle_root: Mapped[str] = mapped_column(sa.String(64), nullable=False)
    prev_seal_hash: Mapped[str] = mapped_column(sa.String(64), nullable=False)
    seal_hash: Mapped[str] = mapped_column(sa.String(64), nullable=False, unique=True)
    seqs: Mapped[list[Any]] = mapped_column(sa.JSON, nullable=False, default=list)
    sealed_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False, default=clock_now)
    emailed_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    message_id: Mapped[str | None] = mapped_column(sa.String(255), nullable=True)

    @property
    def id(self) -> str:
        """The seal's number as a record id (messages about it name it so)."""
        return str(self.number)

    def fields(self) -> dict[str, Any]:
        """SEAL_FIELDS (day as an ISO date) plus seal_hash."""
        out = {name: getattr(self, name) for name in SEAL_FIELDS}
        out["day"] = self.day.isoformat()
        out["seal_hash"] = self.seal_hash
        return out


# PostgreSQL refuses UPDATE and DELETE of the audit tables to every session but one that set
# inspect_api.audit_maintenance = 'on' (the test harness, SET LOCAL, to empty tables). A seal may be
# updated once, only to record that it was e-mailed (emailed_at, message_id), nothing else.
APPEND_ONLY_FUNCTION = """
CREATE OR REPLACE FUNCTION audit_append_only() RETURNS trigger AS $$
BEGIN
    IF coalesce(current_setting('inspect_api.audit_maintenance', true), '') = 'on' THEN
        IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
        RETURN NEW;
    END IF;
    IF TG_OP = 'UPDATE' AND TG_TABLE_NAME = 'audit_seals' AND to_jsonb(OLD) ->> 'emailed_at' IS NULL
       AND (to_jsonb(NEW) - 'emailed_at' - 'message_id') = (to_jsonb(OLD) - 'emailed_at' - 'message_id') THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege',
        MESSAGE = 'the audit trail is append-only: ' || TG_OP || ' on ' || TG_TABLE_NAME || ' refused';
END
$$ LANGUAGE plpgsql
"""
APPEND_ONLY_TRIGGER = """
CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table}
FOR EACH ROW EXECUTE FUNCTION audit_append_only()
"""
MAINTENANCE_SETTING = "SET LOCAL inspect_api.audit_maintenance = 'on'"


def _install_trigger(table: sa.Table, connection, **_kw) -> None:
    if connection.dialect.name != "postgresql":
        return
    connection.exec_driver_sql(APPEND_ONLY_FUNCTION)
    connection.exec_driver_sql(APPEND_ONLY_TRIGGER.format(table=table.name))


event.listen(AuditEntry.__table__, "after_create", _install_trigger)
event.listen(AuditSeal.__table__, "after_create", _install_trigger)


# --- numbering and hashing, in the writing transaction -------------------------------------------------
SPAN = 1 << 20  # rows one transaction may write (its block's size)
_NEXT = "audit_next_seq"

_BLOCK = {
    "postgresql": sa.text("SELECT pg_current_xact_id()::text::bigint * :span"),
    "sqlite": sa.text("SELECT (coalesce(max(seq), 0) / :span + 1) * :span FROM audit_log"),
}
_NEXT_IN_BLOCK = sa.text("SELECT coalesce(max(seq) + 1, :base) FROM audit_log WHERE seq >= :base AND seq < :base + :span")


def _take_numbers(session: Session, connection, count: int) -> int:
    """The first of `count` consecutive numbers for this transaction's next audit rows."""
    root = session.get_transaction()
    held = session.info.get(_NEXT)
    if held is None or held[0] is not root:  # the transaction's first row: a fresh block
        base = connection.execute(_BLOCK[connection.dialect.name], {"span": SPAN}).scalar_one()
        held = (root, base, base)
    root, base, first = held
    if first is None:
        # The block's first number not yet used: after a rolled-back savepoint, the numbering goes on
        # from what is really in the table.
        first = connection.execute(_NEXT_IN_BLOCK, {"base": base, "span": SPAN}).scalar_one()
    if first + count > base + SPAN:
        raise RuntimeError(f"one transaction may write at most {SPAN} audit rows; commit in smaller parts")
    session.info[_NEXT] = (root, base, first + count)
    return first


def _number_row(values: dict[str, Any], seq: int) -> None:
    """Give a row's values their number and hash (id, time and changes filled in when missing)."""
    if values.get("id") is None:
        values["id"] = new_id()
    if values.get("at") is None:
        values["at"] = clock_now()
    if values.get("changes") is None:
        values["changes"] = {}
    values["seq"] = seq
    values["row_hash"] = row_hash_of(values)


@event.listens_for(AuditEntry, "before_insert")
def _number_and_hash(_mapper, connection, target: AuditEntry) -> None:
    if target.seq is not None and target.row_hash is not None:
        return  # written with its number and hash already (a data import)
    session = object_session(target)
    values = {name: getattr(target, name) for name in ROW_FIELDS}
    for name in ("actor_id", "device_id", "ip_address", "permit_id"):
        values.setdefault(name, None)
    _number_row(values, _take_numbers(session, connection, 1))
    for name in ("id", "at", "changes", "seq", "row_hash"):
        setattr(target, name, values[name])


def _rolled_back_to(rolled_back):
    """What a rollback really undid: a subtransaction (a failed flush's) rolls back up to its nearest
    savepoint, or the whole transaction when there is none."""
    while not rolled_back.nested and rolled_back.parent is not None:
        rolled_back = rolled_back.parent
    return rolled_back


@event.listens_for(Session, "after_soft_rollback")
def _forget_numbers(session: Session, rolled_back) -> None:
    held = session.info.get(_NEXT)
    if held is None:
        return
    if _rolled_back_to(rolled_back).nested:
        session.info[_NEXT] = (held[0], held[1], None)  # same block; the next number is read again
    else:
        session.info.pop(_NEXT, None)


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
        session = db.session()
        rows = [dict(values) for _tx, values in held]
        first = _take_numbers(session, session.connection(), len(rows))
        for offset, values in enumerate(rows):
            for name in ("actor_id", "device_id", "ip_address", "permit_id"):
                values.setdefault(name, None)
            _number_row(values, first + offset)
        session.execute(AuditEntry.__table__.insert(), rows)
        held.clear()


@event.listens_for(Session, "after_soft_rollback")
def _drop_rolled_back(session: Session, rolled_back) -> None:
    held = session.info.get(_DEFERRED)
    if not held:
        return
    rolled_back = _rolled_back_to(rolled_back)  # the rows made inside that go
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


# --- the chain as others read it (the case file) ------------------------------------------------------
def row_fields(entry: AuditEntry) -> dict[str, Any]:
    """ROW_FIELDS of a row (`at` as the hashes spell it) plus its stored row_hash."""
    out = {name: getattr(entry, name) for name in ROW_FIELDS}
    out["at"] = instant(entry.at)
    out["row_hash"] = entry.row_hash
    return out


def chain_rows(permit_id: str) -> list[dict[str, Any]]:
    """The permit's audit rows in seq order, each ROW_FIELDS plus the stored row_hash."""
    rows = db.session.scalars(sa.select(AuditEntry).where(AuditEntry.permit_id == permit_id)
                              .order_by(AuditEntry.seq))
    return [row_fields(r) for r in rows]


def seals_covering(seqs: Iterable[int]) -> list[dict[str, Any]]:
    """The seals whose range holds any of these numbers (SEAL_FIELDS plus seal_hash, day as an ISO
    date), oldest first. A number not yet sealed has none."""
    wanted = sorted(set(int(s) for s in seqs))
    if not wanted:
        return []
    seals = db.session.scalars(sa.select(AuditSeal).where(AuditSeal.last_seq >= wanted[0],
                                                          AuditSeal.first_seq <= wanted[-1])
                               .order_by(AuditSeal.number))
    out = []
    for seal in seals:
        if any(seal.first_seq <= s <= seal.last_seq for s in wanted):
            out.append(seal.fields())
    return out


def day_row_hashes(seal_number: int) -> list[str]:
    """Every stored row hash in a seal's range, in seq order: the leaves of its Merkle tree."""
    seal = db.session.get(AuditSeal, seal_number)
    if seal is None:
        return []
    return list(db.session.scalars(sa.select(AuditEntry.row_hash)
                                   .where(AuditEntry.seq >= seal.first_seq, AuditEntry.seq <= seal.last_seq)
                                   .order_by(AuditEntry.seq)))
