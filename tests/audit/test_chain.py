"""The tamper-evident audit trail: rows numbered and hashed as they are written, days sealed, and
`inspect-api audit verify` naming the first row changed, removed or inserted behind the app's back."""
from __future__ import annotations

import json
from datetime import date, time

import pytest
import sqlalchemy as sa

from inspect_api import audit
from inspect_api.audit import SPAN, AuditEntry, AuditSeal, chain_rows, day_row_hashes, seals_covering
from inspect_api.audit_chain import GENESIS, ROW_FIELDS, merkle_root, row_hash_of, seal_hash_of
from inspect_api.audit_seals import seal_finished_days, verify
from inspect_api.cli import main
from inspect_api.extensions import db

from .conftest import tamper, write_rows

MON, TUE, WED = date(2026, 5, 4), date(2026, 5, 5), date(2026, 5, 6)


def _rows() -> list[AuditEntry]:
    db.session.expire_all()
    return list(db.session.scalars(sa.select(AuditEntry).order_by(AuditEntry.seq)))


def _verify(app, *args: str):
    return app.test_cli_runner().invoke(main, ["audit", "verify", *args])


def test_rows_are_numbered_per_transaction_and_hashed(app, town_clock):
    write_rows(town_clock, MON, 3, per_commit=3)
    write_rows(town_clock, MON, 2, record_id="s", per_commit=1)
    rows = _rows()
    blocks = [r.seq // SPAN for r in rows]
    # one transaction's rows share a block and run 0, 1, 2; each later transaction has a block of its own
    assert [r.seq % SPAN for r in rows] == [0, 1, 2, 0, 0]
    assert blocks[0] == blocks[1] == blocks[2] < blocks[3] < blocks[4]
    for r in rows:
        assert r.row_hash == row_hash_of({name: getattr(r, name) for name in ROW_FIELDS})


def test_rolled_back_savepoint_leaves_no_hole(app, town_clock):
    town_clock.set(MON)
    audit.record("test.kept", "thing", "a")
    db.session.flush()
    with pytest.raises(RuntimeError):
        with db.session.begin_nested():
            audit.record("test.dropped", "thing", "b")
            db.session.flush()
            raise RuntimeError("refused")
    audit.record("test.kept", "thing", "c")
    db.session.commit()
    rows = _rows()
    assert [(r.action, r.seq % SPAN) for r in rows] == [("test.kept", 0), ("test.kept", 1)]
    assert verify().ok


def test_deferred_batch_is_numbered_and_hashed(app, town_clock):
    town_clock.set(MON)
    with audit.deferred():
        for n in range(3):
            audit.record("test.batch", "thing", f"b{n}", {"n": n})
    db.session.commit()
    rows = _rows()
    assert [r.seq % SPAN for r in rows] == [0, 1, 2]
    assert all(r.row_hash == row_hash_of({k: getattr(r, k) for k in ROW_FIELDS}) for r in rows)


def test_a_write_refused_in_a_savepoint_drops_only_that_savepoints_deferred_rows(app, town_clock):
    """A flush the database refuses inside a savepoint rolls back to that savepoint (SQLAlchemy's
    flush rolls back its own subtransaction up to it): the rows recorded inside it go, the ones
    recorded before it in the same batch stay."""
    from inspect_api.auth.models import User
    town_clock.set(MON)
    taken = User(email="taken@example.org", role="inspector", name="Taken", password_hash="x")
    db.session.add(taken)
    db.session.commit()
    with audit.deferred():
        with db.session.begin_nested():
            audit.record("test.kept", "thing", "before", {})
        with pytest.raises(sa.exc.IntegrityError):
            with db.session.begin_nested():
                audit.record("test.dropped", "thing", "inside", {})
                db.session.add(User(email="taken@example.org", role="inspector", name="Again", password_hash="x"))
                db.session.flush()
        audit.record("test.kept", "thing", "after", {})
    db.session.commit()
    assert [(r.action, r.record_id) for r in _rows()] == [("test.kept", "before"), ("test.kept", "after")]


def test_numbering_goes_on_after_a_write_refused_in_a_savepoint(app, town_clock):
    """Rows numbered as they are flushed: a refused write inside a savepoint rolls back to that
    savepoint only, so the numbers already taken in the transaction stay taken and the next row
    gets a fresh one (no collision at COMMIT)."""
    from inspect_api.auth.models import User
    town_clock.set(MON)
    db.session.add(User(email="taken@example.org", role="inspector", name="Taken", password_hash="x"))
    db.session.commit()
    audit.record("test.numbered", "thing", "first", {})
    db.session.flush()
    with pytest.raises(sa.exc.IntegrityError):
        with db.session.begin_nested():
            db.session.add(User(email="taken@example.org", role="inspector", name="Again", password_hash="x"))
            db.session.flush()
    audit.record("test.numbered", "thing", "second", {})
    db.session.commit()
    rows = _rows()
    assert [r.record_id for r in rows] == ["first", "second"]
    assert len({r.seq for r in rows}) == 2 and verify().ok


def test_seal_covers_each_finished_day_chained_and_idempotent(app, town_clock):
    write_rows(town_clock, MON, 3)
    write_rows(town_clock, TUE, 2, record_id="t")
    town_clock.set(WED)
    runner = app.test_cli_runner()
    first = runner.invoke(main, ["audit", "seal"])
    assert first.exit_code == 0, first.output
    lines = first.output.strip().splitlines()
    assert [line.split(":")[0] for line in lines] == ["sealed #1 2026-05-04", "sealed #2 2026-05-05"]
    again = runner.invoke(main, ["audit", "seal"])
    assert again.output.strip() == "nothing to seal: every finished day is sealed"
    seals = list(db.session.scalars(sa.select(AuditSeal).order_by(AuditSeal.number)))
    rows = _rows()
    assert [(s.day, s.row_count) for s in seals] == [(MON, 3), (TUE, 2)]
    assert seals[0].prev_seal_hash == GENESIS and seals[1].prev_seal_hash == seals[0].seal_hash
    assert seals[0].merkle_root == merkle_root([r.row_hash for r in rows[:3]])
    assert seals[1].first_seq == seals[0].last_seq + 1
    for seal in seals:
        assert seal.seal_hash == seal_hash_of(seal.fields())
    ok = _verify(app)
    assert ok.exit_code == 0, ok.stderr
    assert ok.stdout.strip() == "audit trail intact: 5 rows, 2 seals checked"
    assert _verify(app, "--since", "2026-05-05").stdout.strip() == "audit trail intact: 2 rows, 1 seals checked"


def test_interface_for_the_case_file(app, town_clock):
    write_rows(town_clock, MON, 2, permit_id="p-1")
    write_rows(town_clock, MON, 1, record_id="x")
    town_clock.set(TUE)
    seal, = seal_finished_days()
    db.session.commit()
    rows = chain_rows("p-1")
    assert [r["record_id"] for r in rows] == ["r0", "r1"]
    assert set(rows[0]) == set(ROW_FIELDS) | {"row_hash"}
    assert rows[0]["at"] == "2026-05-04T16:00:00.000000Z"
    assert rows[0]["row_hash"] == row_hash_of(rows[0])
    covering = seals_covering([r["seq"] for r in rows])
    assert covering == [seal.fields()] and covering[0]["day"] == "2026-05-04"
    hashes = day_row_hashes(seal.number)
    assert len(hashes) == 3 and merkle_root(hashes) == seal.merkle_root
    assert seals_covering([seal.last_seq + 1]) == []


def test_late_row_goes_to_the_next_seal(app, town_clock):
    """A row numbered after its day's seal was made (its transaction committed late) is in the next seal."""
    write_rows(town_clock, MON, 2)
    town_clock.set(TUE, time(0, 5))
    seal_finished_days()
    db.session.commit()
    # a row still stamped Monday 23:59 (written by a transaction that began before midnight), committed now
    write_rows(town_clock, MON, 1, at=time(23, 59), record_id="late")
    write_rows(town_clock, TUE, 1, record_id="t")
    town_clock.set(WED)
    seal_finished_days()
    db.session.commit()
    mon, tue = db.session.scalars(sa.select(AuditSeal).order_by(AuditSeal.number)).all()
    late = db.session.scalar(sa.select(AuditEntry).where(AuditEntry.record_id == "late0"))
    assert mon.row_count == 2 and tue.row_count == 2
    assert tue.first_seq <= late.seq <= tue.last_seq
    assert seals_covering([late.seq])[0]["number"] == tue.number
    assert verify().ok


def _sealed_world(app, town_clock) -> list[AuditEntry]:
    write_rows(town_clock, MON, 3, per_commit=3)
    write_rows(town_clock, MON, 2, record_id="s")
    town_clock.set(TUE)
    seal_finished_days()
    db.session.commit()
    assert verify().ok
    return _rows()


def test_verify_names_a_changed_row(app, town_clock):
    rows = _sealed_world(app, town_clock)
    target = rows[1]
    tamper("UPDATE audit_log SET action = 'test.innocent' WHERE id = :id", id=target.id)
    result = _verify(app)
    assert result.exit_code == 1
    assert result.stderr.splitlines()[0] == (
        f"audit trail BROKEN: row {target.id} (seq {target.seq}, test.innocent on thing r1) was changed: "
        "its content does not match its hash")


def test_verify_names_a_changed_row_with_its_hash_recomputed(app, town_clock):
    """Whoever changes a row and recomputes its hash still cannot match the seal's root."""
    rows = _sealed_world(app, town_clock)
    target = rows[3]
    values = {k: getattr(target, k) for k in ROW_FIELDS} | {"changes": {"n": 99}}
    tamper("UPDATE audit_log SET changes = :c, row_hash = :h WHERE id = :id",
           c=json.dumps({"n": 99}), h=row_hash_of(values), id=target.id)
    result = _verify(app)
    assert result.exit_code == 1
    assert "seal #1 (2026-05-04): the log holds 5 rows with root" in result.stderr


def test_verify_names_a_removed_row(app, town_clock):
    rows = _sealed_world(app, town_clock)
    target = rows[4]  # a transaction's only row: only the seal knows it was there
    tamper("DELETE FROM audit_log WHERE id = :id", id=target.id)
    result = _verify(app)
    assert result.exit_code == 1
    assert result.stderr.splitlines()[0] == (
        f"audit trail BROKEN: row seq {target.seq} was removed: seal #1 (2026-05-04) holds it and the log does not")


def test_verify_names_a_removed_unsealed_row_by_its_transactions_hole(app, town_clock):
    write_rows(town_clock, MON, 3, per_commit=3)
    rows = _rows()
    tamper("DELETE FROM audit_log WHERE id = :id", id=rows[1].id)
    result = _verify(app)
    assert result.exit_code == 1
    assert result.stderr.splitlines()[0].startswith(f"audit trail BROKEN: row seq {rows[1].seq} was removed (a hole")


def test_verify_names_an_inserted_row(app, town_clock):
    rows = _sealed_world(app, town_clock)
    forged = {"id": "00000000-0000-4000-8000-000000000001", "seq": rows[3].seq + 1, "at": rows[3].at,
              "actor_id": None, "device_id": None, "ip_address": None, "action": "test.forged",
              "record_type": "thing", "record_id": "f", "permit_id": None, "changes": {}}
    tamper("INSERT INTO audit_log (id, seq, at, action, record_type, record_id, changes, row_hash) "
           "VALUES (:id, :seq, :at, :action, :record_type, :record_id, '{}', :h)",
           h=row_hash_of(forged), **{k: forged[k] for k in ("id", "seq", "at", "action", "record_type", "record_id")})
    result = _verify(app)
    assert result.exit_code == 1
    assert result.stderr.splitlines()[0] == (
        f"audit trail BROKEN: row {forged['id']} (seq {forged['seq']}) was inserted: it lies inside seal #1 "
        "(2026-05-04) and is not in it")


def test_verify_names_a_changed_seal(app, town_clock):
    _sealed_world(app, town_clock)
    tamper("UPDATE audit_seals SET row_count = 4 WHERE number = 1")
    result = _verify(app)
    assert result.exit_code == 1
    assert "seal #1 (2026-05-04) was changed: its hash does not match its fields" in result.stderr


def test_postgresql_refuses_update_and_delete(app, town_clock, is_postgres):
    if not is_postgres:
        pytest.skip("the trigger is PostgreSQL's (SQLite has the ORM guard only)")
    rows = _sealed_world(app, town_clock)
    for sql in ("UPDATE audit_log SET action = 'x' WHERE id = :id", "DELETE FROM audit_log WHERE id = :id"):
        with pytest.raises(sa.exc.DBAPIError) as refused:
            with db.engine.begin() as conn:
                conn.execute(sa.text(sql), {"id": rows[0].id})
        assert "the audit trail is append-only" in str(refused.value)
        assert refused.value.orig.sqlstate == "42501"
    for sql in ("UPDATE audit_seals SET row_count = 9", "DELETE FROM audit_seals",
                "UPDATE audit_seals SET emailed_at = now(), merkle_root = 'x'"):
        with pytest.raises(sa.exc.DBAPIError, match="the audit trail is append-only"):
            with db.engine.begin() as conn:
                conn.execute(sa.text(sql))
    # the one change a seal allows: noting once that it was e-mailed
    with db.engine.begin() as conn:
        conn.execute(sa.text("UPDATE audit_seals SET emailed_at = now(), message_id = '<m@x>' WHERE number = 1"))
    with pytest.raises(sa.exc.DBAPIError, match="the audit trail is append-only"):
        with db.engine.begin() as conn:
            conn.execute(sa.text("UPDATE audit_seals SET message_id = '<other@x>' WHERE number = 1"))
    assert verify().ok


def test_orm_guard_refuses_update(app, town_clock):
    write_rows(town_clock, MON, 1)
    row = _rows()[0]
    row.action = "test.rewritten"
    with pytest.raises(RuntimeError, match="append-only"):
        db.session.flush()
    db.session.rollback()


def test_an_open_transaction_holds_the_seal_back_on_postgresql(app, town_clock, is_postgres):
    """Numbers are not given in commit order: a transaction still open when the day is sealed has the
    lowest block, so the seal stops below it, and its rows and every later one go to the next seal."""
    if not is_postgres:
        pytest.skip("SQLite has one writer at a time")
    from sqlalchemy.orm import Session
    town_clock.set(MON)
    slow = Session(db.engine)
    slow.add(AuditEntry(action="test.slow", record_type="thing", record_id="slow"))
    slow.flush()  # numbered in its own block, not yet committed
    write_rows(town_clock, MON, 2)
    town_clock.set(TUE)
    monday, = seal_finished_days()
    db.session.commit()
    assert monday.row_count == 0
    slow.commit()
    slow.close()
    town_clock.set(WED)
    tuesday, = seal_finished_days()
    db.session.commit()
    rows = _rows()
    assert rows[0].action == "test.slow" and rows[0].seq < rows[1].seq  # numbered first, committed last
    assert tuesday.row_count == 3 and tuesday.first_seq <= rows[0].seq and rows[-1].seq <= tuesday.last_seq
    assert verify().ok
