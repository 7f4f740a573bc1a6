"""POST /sync/push reads once per batch what every mutation needs (API.md "Sync"): the records it names, the
permits it touches, the caller's assignments and the outcomes already recorded; it writes the outcome
and audit rows together at the end. Every check still runs per mutation, and one failing mutation
still takes nothing of the others with it."""
from __future__ import annotations

import re
import uuid

import pytest
from sqlalchemy import event, func, select

from inspect_api import clock
from inspect_api.audit import AuditEntry
from inspect_api.changes import SyncChange
from inspect_api.entry.models import EntryAuthorization
from inspect_api.extensions import db
from inspect_api.inspections.models import Inspection
from inspect_api.sync import registry, rights
from inspect_api.sync.models import SyncConflict, SyncMutation

from ..sql_count import counting
from .conftest import create, edit, entry_data, inspection_data

# A batch whose every mutation applies is tried in one SAVEPOINT, a run of creates of one kind inserted
# together: a fixed number of statements per batch (the reads made once, the records' INSERT, the
# outcome and audit writes, the change feed and snapshots at COMMIT), none per mutation. One read or
# write per mutation (an N+1) breaks the bound; the push used to make about 11 per mutation, then 3
# with a savepoint of each mutation's own, then 1 (its record's INSERT).
STATEMENTS_PER_MUTATION = 0
STATEMENTS_PER_BATCH = 40


def _audit(record_id: str, action: str | None = None) -> int:
    query = select(func.count()).select_from(AuditEntry).where(AuditEntry.record_id == record_id)
    if action:
        query = query.where(AuditEntry.action == action)
    return db.session.scalar(query)


@pytest.fixture
def two_sites(site, factory):
    """The site's permit and a second one the same inspector is assigned to, and a third one not."""
    second = factory.permit(applicant=site.applicant, status="issued")
    factory.assign(second, site.inspector)
    elsewhere = factory.permit(status="issued")
    db.session.commit()
    return site.permit, second, elsewhere


def test_mixed_batch_each_mutation_keeps_its_own_outcome(site, two_sites, client):
    """R-E1/R-E2 field work on two assigned permits, refused on a third (assignment), with a schema
    failure, a resend of an earlier batch's mutation, a record created and then edited in the same
    batch, a stale edit kept as a conflict, and an inspection resting on an authorization made earlier
    in the batch: every outcome is the one the mutation would get alone."""
    first, second, elsewhere = two_sites
    tablet = site.tablet()
    earlier = create("entry_authorization", entry_data(first.id, granted_by_name="Earlier"))
    stale_target = create("entry_authorization", entry_data(second.id, granted_by_name="Stale"))
    assert [r["status"] for r in tablet.push([earlier, stale_target])] == ["applied", "applied"]
    assert tablet.push([edit("entry_authorization", stale_target["id"], 1, {"notes": "office"})])[0]["version"] == 2

    on_first = create("entry_authorization", entry_data(first.id, granted_by_name="First"))
    on_second = create("entry_authorization", entry_data(second.id, granted_by_name="Second"))
    edited_in_batch = edit("entry_authorization", on_second["id"], 1, {"notes": "gate code 1234"})
    invalid = create("entry_authorization", entry_data(first.id, scope=["dancing"]))
    unassigned = create("entry_authorization", entry_data(elsewhere.id))
    stale = edit("entry_authorization", stale_target["id"], 1, {"notes": "tablet"})
    inspection = create("inspection", inspection_data(first.id, on_first["id"]))
    last = create("entry_authorization", entry_data(second.id, granted_by_name="Last"))
    batch = [on_first, on_second, edited_in_batch, invalid, earlier, unassigned, stale, inspection, last]
    results = tablet.push(batch)

    assert [r["status"] for r in results] == ["applied", "applied", "applied", "rejected", "duplicate",
                                              "rejected", "conflict", "applied", "applied"]
    assert results[2]["version"] == 2 and results[4]["original_status"] == "applied"
    assert results[3]["error"] == "validation_error" and "scope" in results[3]["errors"]
    assert results[5]["error"] == "forbidden" and "not assigned" in results[5]["message"]
    assert results[6]["error"] == "version_conflict" and results[6]["server_record"]["notes"] == "office"

    # The records are exactly those the applied mutations made, each audited once.
    ids = set(db.session.scalars(select(EntryAuthorization.id)))
    assert ids == {earlier["id"], stale_target["id"], on_first["id"], on_second["id"], last["id"]}
    assert db.session.get(EntryAuthorization, on_second["id"]).notes == "gate code 1234"
    assert db.session.get(EntryAuthorization, stale_target["id"]).notes == "office"
    assert db.session.get(Inspection, inspection["id"]).entry_authorization_id == on_first["id"]
    for m in (on_first, on_second, last):
        assert _audit(m["id"], "entry_authorization.create") == 1
    assert _audit(on_second["id"], "entry_authorization.update") == 1
    assert _audit(invalid["id"]) == 0 and _audit(unassigned["id"]) == 0
    # The stale edit's rights were tried (and rolled back) before it became a conflict: no update audited.
    assert _audit(stale_target["id"], "entry_authorization.update") == 1  # the office's edit only

    # One outcome row per recorded mutation, with its outcome; no claim left behind.
    outcomes = {row.mutation_id: row for row in db.session.scalars(select(SyncMutation))}
    for m, status in ((on_first, "applied"), (edited_in_batch, "applied"), (invalid, "rejected"),
                      (unassigned, "rejected"), (stale, "conflict"), (inspection, "applied")):
        assert outcomes[m["mutation_id"]].status == status
    assert outcomes[stale["mutation_id"]].conflict_id == results[6]["conflict_id"]
    assert outcomes[invalid["mutation_id"]].error == "validation_error"
    assert not [row for row in outcomes.values() if row.error == "pending"]
    assert db.session.scalar(select(func.count()).select_from(SyncConflict)) == 1

    # Each applied record has its change-feed row, on its own permit.
    feed = {row.record_id: row for row in db.session.scalars(select(SyncChange))}
    assert feed[on_first["id"]].permit_id == first.id and feed[last["id"]].permit_id == second.id
    assert feed[on_second["id"]].version == 2 and invalid["id"] not in feed

    # Resending the whole batch changes nothing and answers every recorded outcome as a duplicate.
    again = tablet.push(batch)
    assert [r["status"] for r in again] == ["duplicate"] * 9
    assert [r.get("original_status") for r in again] == [
        "applied", "applied", "applied", "rejected", "applied", "rejected", "conflict", "applied", "applied"]
    assert db.session.scalar(select(func.count()).select_from(SyncConflict)) == 1
    assert _audit(on_first["id"]) == 1


def test_a_mutation_that_fails_inside_the_server_is_not_recorded_and_keeps_nothing(site, monkeypatch):
    """An unexpected failure rolls back that mutation's savepoint (its record and audit row) and
    leaves no outcome, so the same mutation id applies when sent again; its neighbours are kept."""
    tablet = site.tablet()
    adapter = registry.get("entry_authorization")
    real = adapter.create
    before = create("entry_authorization", entry_data(site.permit.id, granted_by_name="Before"))
    broken = create("entry_authorization", entry_data(site.permit.id, granted_by_name="Broken"))
    after = create("entry_authorization", entry_data(site.permit.id, granted_by_name="After"))

    def failing(user, data):
        record = real(user, data)  # the record and its audit row are made, then the service fails
        if data["granted_by_name"] == "Broken":
            raise RuntimeError("injected")
        return record

    monkeypatch.setattr(adapter, "create", failing)
    results = tablet.push([before, broken, after])
    assert [r["status"] for r in results] == ["applied", "rejected", "applied"]
    assert results[1]["error"] == "internal_error"
    assert db.session.get(EntryAuthorization, broken["id"]) is None and _audit(broken["id"]) == 0
    assert db.session.get(SyncMutation, broken["mutation_id"]) is None
    assert _audit(before["id"]) == 1 and _audit(after["id"]) == 1

    monkeypatch.setattr(adapter, "create", real)
    assert tablet.push([broken])[0]["status"] == "applied"
    assert _audit(broken["id"], "entry_authorization.create") == 1


def _savepoints(statements: list[str]) -> int:
    # On PostgreSQL a RELEASE is sent with the next SAVEPOINT, in one statement (database.py).
    return sum(len(re.findall(r"(?:^|; )SAVEPOINT ", statement)) for statement in statements)


def _inserts(statements: list[str], table: str) -> int:
    """INSERT statements into `table` (an executemany or a multi-row INSERT counts once)."""
    return sum(s.startswith(f"INSERT INTO {table} ") for s in statements)


def _by_id(statements: list[str], table: str) -> int:
    """Reads of one `table` row by its id (session.get), not the batch's one read of every id."""
    return sum(s.startswith("SELECT ") and f"FROM {table} " in s and f"WHERE {table}.id = " in s for s in statements)


def _savepoints_of(push) -> tuple[list, int]:
    with counting() as statements:
        results = push()
    return results, _savepoints(statements)


def test_a_batch_refused_at_its_last_mutation_applies_the_others_again_in_one_savepoint(site):
    """The batch is tried in one savepoint; the last mutation's refusal rolls that try back, the four
    before it are applied again in one savepoint and the refusal is answered as it was given: each
    applied record has one audit row, one feed row and one snapshot (nothing of the abandoned try is
    left), the refused one nothing."""
    from inspect_api.sync.models import SyncSnapshot
    tablet = site.tablet()
    known = create("entry_authorization", entry_data(site.permit.id, granted_by_name="Known"))
    assert tablet.push([known])[0]["status"] == "applied"  # the device is registered (its own savepoint)
    good = [create("entry_authorization", entry_data(site.permit.id, granted_by_name=f"Owner {n}")) for n in range(4)]
    refused = create("entry_authorization", entry_data(site.permit.id, scope=["dancing"]))
    with counting() as statements:
        results = tablet.push([*good, refused])
    assert [r["status"] for r in results] == ["applied"] * 4 + ["rejected"]
    assert results[4]["error"] == "validation_error" and "scope" in results[4]["errors"]
    # The first try gathered its four creates' INSERTs for its end and was refused before it: it sent
    # the database nothing, not even its SAVEPOINT. The four again: one savepoint, one INSERT, and no
    # read of their ids (still known absent: the rollback took back what the first try added).
    assert _savepoints(statements) == 1 and _inserts(statements, "entry_authorizations") == 1
    assert _by_id(statements, "entry_authorizations") == 0
    ids = [m["id"] for m in good]
    assert set(db.session.scalars(select(EntryAuthorization.id))) == {known["id"], *ids}
    for record_id in ids:
        assert _audit(record_id) == 1
    assert sorted(db.session.scalars(select(SyncChange.record_id).where(SyncChange.entity == "entry_authorization"))) \
        == sorted([known["id"], *ids])
    assert sorted(db.session.scalars(select(SyncSnapshot.record_id).where(
        SyncSnapshot.entity == "entry_authorization"))) == sorted([known["id"], *ids])
    assert _audit(refused["id"]) == 0 and db.session.get(SyncMutation, refused["mutation_id"]).status == "rejected"
    assert tablet.push([*good, refused]) and [r["status"] for r in tablet.push(good)] == ["duplicate"] * 4


def test_each_mutation_that_does_not_apply_is_tried_once_and_the_batch_goes_on_together(site, monkeypatch):
    """Refusals and a conflict scattered through a batch: every mutation gets the outcome it would get
    alone, each one that does not apply runs its service once (its refusal or conflict is kept, not
    tried again), and what follows it is tried together again, not one savepoint each."""
    tablet = site.tablet()
    stale = create("entry_authorization", entry_data(site.permit.id, granted_by_name="Stale"))
    assert tablet.push([stale])[0]["status"] == "applied"
    assert tablet.push([edit("entry_authorization", stale["id"], 1, {"notes": "office"})])[0]["version"] == 2
    good = [create("entry_authorization", entry_data(site.permit.id, granted_by_name=f"Owner {n}")) for n in range(6)]
    refused = create("entry_authorization", entry_data(site.permit.id, scope=["dancing"]))
    conflict = edit("entry_authorization", stale["id"], 1, {"notes": "field"})
    batch = [good[0], good[1], refused, good[2], conflict, good[3], good[4], good[5]]

    adapter = registry.get("entry_authorization")
    applied: list[str] = []
    real_create, real_refusal = adapter.create, rights.refusal
    monkeypatch.setattr(adapter, "create", lambda user, data: applied.append(data["granted_by_name"])
                        or real_create(user, data))
    monkeypatch.setattr(rights, "refusal", lambda *args: applied.append("trial") or real_refusal(*args))
    results, savepoints = _savepoints_of(lambda: tablet.push(batch))
    assert [r["status"] for r in results] == ["applied", "applied", "rejected", "applied", "conflict",
                                              "applied", "applied", "applied"]
    assert results[2]["error"] == "validation_error" and results[4]["error"] == "version_conflict"
    assert results[4]["server_record"]["notes"] == "office" and results[4]["conflict_id"]
    # The stale edit's rights trial ran once (the conflict it gave was kept, not tried again).
    assert applied.count("trial") == 1
    # Owner 0 and 1: tried, stopped by the refusal, applied again; Owner 2: tried, stopped by the
    # conflict, applied again; Owner 3 to 5: applied in the last try.
    assert [n for n in applied if n != "trial"] == ["Owner 0", "Owner 1", "Owner 0", "Owner 1", "Owner 2",
                                                     "Owner 2", "Owner 3", "Owner 4", "Owner 5"]
    # Tries: the batch (stopped at the refusal before it sent anything: its creates' INSERTs wait for
    # its end, so not even its SAVEPOINT went out), its first two again, the rest (stopped at the
    # conflict, whose rights trial has a savepoint of its own), its first again, the conflict recorded
    # in its own, the last three.
    assert savepoints == 6
    assert db.session.scalar(select(func.count()).select_from(SyncConflict)) == 1
    for m in good:
        assert _audit(m["id"]) == 1
    assert db.session.get(EntryAuthorization, refused["id"]) is None


def test_mutations_that_applied_once_but_not_again_are_each_applied_alone(site, monkeypatch):
    """The mutations before a refusal are applied again together; when one of them fails that second
    time (what it read changed meanwhile), nothing of that try is kept and the batch is applied from
    there one savepoint per mutation: each still gets the outcome it gets alone."""
    tablet = site.tablet()
    batch = [create("entry_authorization", entry_data(site.permit.id, granted_by_name=f"Owner {n}")) for n in range(2)]
    batch.append(create("entry_authorization", entry_data(site.permit.id, scope=["dancing"])))
    adapter = registry.get("entry_authorization")
    real, calls = adapter.create, []

    def second_time_fails(user, data):
        calls.append(data["granted_by_name"])
        if calls.count("Owner 0") == 2:
            raise RuntimeError("injected: fails on the try again")
        return real(user, data)

    monkeypatch.setattr(adapter, "create", second_time_fails)
    results = tablet.push(batch)
    assert [r["status"] for r in results] == ["applied", "applied", "rejected"]
    assert results[2]["error"] == "validation_error"
    assert calls == ["Owner 0", "Owner 1", "Owner 0", "Owner 0", "Owner 1"]  # tried, again (fails), alone each
    for m in batch[:2]:
        assert _audit(m["id"]) == 1 and db.session.get(EntryAuthorization, m["id"]) is not None


def _known_and_three(site):
    """A tablet that has pushed one authorization (`known`), three more to push, and the adapter's
    real create to wrap."""
    tablet = site.tablet()
    known = create("entry_authorization", entry_data(site.permit.id, granted_by_name="Known"))
    assert tablet.push([known])[0]["status"] == "applied"
    batch = [create("entry_authorization", entry_data(site.permit.id, granted_by_name=f"Owner {n}")) for n in range(3)]
    adapter = registry.get("entry_authorization")
    return tablet, known, batch, adapter, adapter.create


def test_a_write_refused_at_the_last_flush_is_found_by_one_savepoint_each(site, monkeypatch):
    """A write the database refuses only when the try flushes at its end names no mutation: the batch
    is applied one savepoint per mutation, the one whose write collides is answered `retry` with
    nothing kept, and the others are applied."""
    tablet, known, batch, adapter, real = _known_and_three(site)

    def leaves_a_colliding_write(user, data):
        result = real(user, data)
        record = result[0] if isinstance(result, tuple) else result
        if data["granted_by_name"] == "Owner 1":  # an unflushed INSERT of a row whose id is taken
            columns = EntryAuthorization.__table__.columns
            db.session.add(EntryAuthorization(**{**{c.key: getattr(record, c.key) for c in columns},
                                                 "id": known["id"]}))
        return result

    monkeypatch.setattr(adapter, "create", leaves_a_colliding_write)
    results = tablet.push(batch)
    assert [r["status"] for r in results] == ["applied", "rejected", "applied"]
    assert results[1]["error"] == "retry"
    assert db.session.get(EntryAuthorization, batch[1]["id"]) is None and _audit(batch[1]["id"]) == 0
    assert db.session.get(SyncMutation, batch[1]["mutation_id"]) is None  # not recorded: sent again, it applies
    assert db.session.get(EntryAuthorization, known["id"]).granted_by_name == "Known"
    for m in (batch[0], batch[2]):
        assert _audit(m["id"]) == 1


def test_any_failure_at_a_tries_last_flush_is_found_by_one_savepoint_each(site, monkeypatch):
    """Not only a collision: a write the database refuses for any reason at the try's last flush (here
    a value refused, DataError) sends the batch one savepoint per mutation; the mutation that left
    the write fails alone (internal_error, not recorded) and the others are applied."""
    import sqlalchemy as sa
    tablet, known, batch, adapter, real = _known_and_three(site)

    def leaves_a_pending_update(user, data):
        result = real(user, data)
        if data["granted_by_name"] == "Owner 2":
            db.session.get(EntryAuthorization, known["id"]).notes = "refused at the flush"
        return result

    def refuse(_mapper, _connection, target):
        if target.notes == "refused at the flush":
            raise sa.exc.DataError("UPDATE entry_authorizations", {}, Exception("value refused"))

    monkeypatch.setattr(adapter, "create", leaves_a_pending_update)
    event.listen(EntryAuthorization, "before_update", refuse)
    try:
        results = tablet.push(batch)
    finally:
        event.remove(EntryAuthorization, "before_update", refuse)
    assert [r["status"] for r in results] == ["applied", "applied", "rejected"]
    assert results[2]["error"] == "internal_error"
    assert db.session.get(EntryAuthorization, batch[2]["id"]) is None
    assert db.session.get(SyncMutation, batch[2]["mutation_id"]) is None
    assert db.session.get(EntryAuthorization, known["id"]).notes != "refused at the flush"
    for m in batch[:2]:
        assert _audit(m["id"]) == 1


def test_statements_of_a_batch_of_100_are_bounded(site, two_sites, app):
    """A batch of 100 creates on two permits: a fixed number of statements per mutation, not a read
    per record, permit or assignment (a regression to N+1 fails here)."""
    first, second, _elsewhere = two_sites
    tablet = site.tablet()
    tablet.push([create("entry_authorization", entry_data(first.id))])  # device known, caches warm
    batch = [create("entry_authorization", entry_data((first, second)[n % 2].id, granted_by_name=f"Owner {n}"))
             for n in range(100)]
    statements: list[str] = []
    savepoints: list[int] = []

    def count(_conn, _cursor, statement, _params, _context, _executemany):
        statements.append(re.sub(r"sa_savepoint_\d+", "sp", statement.split("(")[0][:60]))
        # On PostgreSQL a RELEASE is sent with the next SAVEPOINT, in one statement (database.py).
        savepoints.append(len(re.findall(r"(?:^|; )SAVEPOINT ", statement)))

    engine = db.engine
    event.listen(engine, "before_cursor_execute", count)
    try:
        results = tablet.push(batch)
    finally:
        event.remove(engine, "before_cursor_execute", count)
    assert [r["status"] for r in results] == ["applied"] * 100
    assert len(statements) <= STATEMENTS_PER_MUTATION * 100 + STATEMENTS_PER_BATCH, sorted(
        {s: statements.count(s) for s in set(statements)}.items(), key=lambda kv: -kv[1])[:8]
    assert sum(savepoints) == 1  # the batch's own: every mutation applied
    assert db.session.scalar(select(func.count()).select_from(AuditEntry).where(
        AuditEntry.record_id.in_([m["id"] for m in batch]))) == 100
    assert db.session.scalar(select(func.count()).select_from(SyncMutation).where(
        SyncMutation.mutation_id.in_([m["mutation_id"] for m in batch]), SyncMutation.status == "applied")) == 100


def test_a_permit_made_earlier_in_the_batch_is_found_by_the_next_mutation(site, factory):
    """The batch's reads keep only what the database said; a permit pushed earlier in the batch
    (not there when the batch was read) is looked up again by the mutation that names it."""
    tablet = site.tablet(site.supervisor)
    permit_id = str(uuid.uuid4())
    permit = create("permit", {**factory.permit_payload(), "applicant_id": site.applicant.id, "id": permit_id},
                    record_id=permit_id)
    entry = create("entry_authorization", entry_data(permit_id))
    results = tablet.push([permit, entry])
    assert [r["status"] for r in results] == ["applied", "applied"], results
    assert db.session.get(EntryAuthorization, entry["id"]).permit_id == permit_id


def test_a_run_of_creates_of_one_kind_goes_to_the_database_as_one_insert(site):
    """Fifty creates of one kind in a batch: one INSERT statement for all of them (a multi-row INSERT or
    an executemany), no read of any of their ids, and each record stored as a create alone stores it:
    its id, version 1, the server's times, its audit row and its outcome."""
    tablet = site.tablet()
    tablet.push([create("entry_authorization", entry_data(site.permit.id))])  # the device is registered
    batch = [create("entry_authorization", entry_data(site.permit.id, granted_by_name=f"Owner {n}")) for n in range(50)]
    before = clock.now()
    with counting() as statements:
        results = tablet.push(batch)
    after = clock.now()
    assert [(r["status"], r["version"]) for r in results] == [("applied", 1)] * 50
    assert _inserts(statements, "entry_authorizations") == 1
    assert _by_id(statements, "entry_authorizations") == 0
    db.session.expire_all()
    for n, m in enumerate(batch):
        record = db.session.get(EntryAuthorization, m["id"])
        assert record.granted_by_name == f"Owner {n}" and record.version == 1 and record.device_id == tablet.device_id
        assert before <= record.created_at <= record.updated_at <= after
        assert _audit(m["id"], "entry_authorization.create") == 1


def test_an_id_created_twice_in_one_run_is_found_before_its_insert(site):
    """The same id twice in one batch, before the first one's INSERT has gone out: sent the same, the
    second is a duplicate; with other data, a conflict. The record is the first's, inserted once."""
    tablet = site.tablet()
    tablet.push([create("entry_authorization", entry_data(site.permit.id))])
    first = create("entry_authorization", entry_data(site.permit.id, granted_by_name="First"))
    same = {**first, "mutation_id": str(uuid.uuid4())}
    other = create("entry_authorization", entry_data(site.permit.id, granted_by_name="Other"), record_id=first["id"])
    results = tablet.push([first, same, other])
    assert [r["status"] for r in results] == ["applied", "duplicate", "conflict"], results
    assert results[2]["error"] == "conflict"
    assert db.session.get(EntryAuthorization, first["id"]).granted_by_name == "First"
    assert _audit(first["id"]) == 1


def test_a_create_resting_on_a_record_created_just_before_it_finds_it_inserted(site):
    """Runs of two kinds a foreign key joins (inspections resting on authorizations made earlier in the
    batch): each run of authorizations is inserted before the next kind's writes, on both databases."""
    tablet = site.tablet()
    entries = [create("entry_authorization", entry_data(site.permit.id, granted_by_name=f"Owner {n}")) for n in range(4)]
    batch = [entries[0], entries[1], create("inspection", inspection_data(site.permit.id, entries[1]["id"])),
             entries[2], entries[3], create("inspection", inspection_data(site.permit.id, entries[3]["id"]))]
    with counting() as statements:
        results = tablet.push(batch)
    assert [r["status"] for r in results] == ["applied"] * 6, results
    assert _inserts(statements, "entry_authorizations") == 2  # one per run
    assert [db.session.get(Inspection, batch[i]["id"]).entry_authorization_id for i in (2, 5)] == \
        [entries[1]["id"], entries[3]["id"]]
