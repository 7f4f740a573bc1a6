"""GET /sync/pull: commit order, paging, each record once in its newest state, tombstones, expiry."""
from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
import sqlalchemy as sa
from sqlalchemy import event, func, select

from inspect_api.changes import SyncChange, SyncCounter
from inspect_api.clock import now as utcnow
from inspect_api.extensions import db
from inspect_api.sync import purge as purge_service
from inspect_api.sync import rules

from .conftest import API, create, edit, entry_data, inspection_data, remove


def test_first_pull_is_everything_the_caller_may_see(site):
    tablet = site.tablet()
    entry_id = site.new_entry(tablet)
    changes = tablet.sync_down()
    assert {(c["entity"], c["id"]) for c in changes} == {
        ("permit", site.permit.id), ("entry_authorization", entry_id),
        ("assignment", site.permit.assignments[0].id)}
    entry = next(c for c in changes if c["entity"] == "entry_authorization")
    assert entry["op"] == "upsert" and entry["version"] == 1 and entry["data"]["id"] == entry_id
    assert entry["data"]["granted_by_name"] == "Pat Owner" and entry["data"]["permit_id"] == site.permit.id
    assert tablet.sync_down() == []  # nothing new since


def test_pages_bounded_in_commit_order_each_record_once_newest_state(site):
    tablet = site.tablet()
    ids = [site.new_entry(tablet) for _ in range(5)]
    tablet.sync_down()
    tablet.push([edit("entry_authorization", ids[0], 1, {"notes": "one"})])
    tablet.push([edit("entry_authorization", ids[2], 1, {"notes": "two"})])
    tablet.push([edit("entry_authorization", ids[0], 2, {"notes": "three"})])
    first = tablet.pull_page(limit=1)
    assert first["has_more"] is True and [c["id"] for c in first["changes"]] == [ids[2]]
    second = tablet.pull_page(limit=1, cursor=first["cursor"])
    assert [(c["id"], c["version"], c["data"]["notes"]) for c in second["changes"]] == [(ids[0], 3, "three")]
    third = tablet.pull_page(limit=5, cursor=second["cursor"])
    assert third == {"changes": [], "cursor": third["cursor"], "has_more": False}


def test_limit_is_capped(site, app):
    app.config["SYNC_PULL_MAX_LIMIT"] = 2
    tablet = site.tablet()
    for _ in range(3):
        site.new_entry(tablet)
    page = tablet.pull_page(limit=100)
    assert len(page["changes"]) == 2 and page["has_more"] is True
    assert len(tablet.sync_down(limit=2)) == 5


def test_tombstone_reaches_a_device_that_held_the_record_but_not_a_new_device(site):
    tablet = site.tablet()
    entry_id = site.new_entry(tablet)
    inspection_id = str(uuid.uuid4())
    tablet.push([create("inspection", inspection_data(site.permit.id, entry_id), inspection_id)])
    tablet.sync_down()
    tablet.push([remove("inspection", inspection_id, 1)])
    assert [(c["op"], c["id"], c["version"]) for c in tablet.sync_down()] == [("delete", inspection_id, 2)]
    assert inspection_id not in tablet.ids("inspection")
    fresh = site.tablet()
    assert all(c["op"] == "upsert" for c in fresh.sync_down())
    assert inspection_id not in fresh.ids("inspection") and entry_id in fresh.ids("entry_authorization")


def test_first_sync_still_gets_deletions_made_while_it_pages(site):
    tablet = site.tablet()
    entry_id = site.new_entry(tablet)
    inspection_id = str(uuid.uuid4())
    tablet.push([create("inspection", inspection_data(site.permit.id, entry_id), inspection_id)])
    fresh = site.tablet()
    page = fresh.pull_page(limit=10)
    assert inspection_id in {c["id"] for c in page["changes"]}
    fresh.cursor = page["cursor"]
    tablet.push([remove("inspection", inspection_id, 1)])
    later = fresh.sync_down()
    assert [(c["op"], c["id"]) for c in later] == [("delete", inspection_id)]


def _age_tombstones(days: int) -> None:
    db.session.execute(sa.update(SyncChange).where(SyncChange.op == "delete")
                       .values(changed_at=utcnow() - timedelta(days=days)))
    db.session.commit()


def test_purge_expires_older_cursors_with_410(site, app):
    tablet = site.tablet()
    entry_id = site.new_entry(tablet)
    inspection_id = str(uuid.uuid4())
    tablet.push([create("inspection", inspection_data(site.permit.id, entry_id), inspection_id)])
    tablet.sync_down()
    old_cursor = tablet.cursor
    tablet.push([remove("inspection", inspection_id, 1)])
    up_to_date = site.tablet()
    up_to_date.sync_down()
    _age_tombstones(89)
    assert purge_service.purge_tombstones()["tombstones_deleted"] == 0
    _age_tombstones(91)
    result = purge_service.purge_tombstones()
    db.session.commit()
    assert result["tombstones_deleted"] == 1 and result["purged_through"] > 0
    assert db.session.scalar(select(SyncCounter.purged_through)) == result["purged_through"]
    response = site.client.get(f"{API}/sync/pull", query_string={"cursor": old_cursor}, headers=tablet.headers)
    body = response.get_json()
    assert response.status_code == 410 and body["error"] == "cursor_expired" and body["code"] == 410
    assert up_to_date.sync_down() == []  # a cursor past the purge keeps working
    assert inspection_id not in site.tablet().sync_down()  # and so does a first sync
    runner = app.test_cli_runner()
    out = runner.invoke(args=["sync", "purge-tombstones", "--days", "1"])
    assert out.exit_code == 0 and "purged 0 tombstones" in out.output


def test_cursor_is_signed_and_bound_to_its_user(site, factory):
    tablet = site.tablet()
    tablet.sync_down()
    payload, signature = tablet.cursor.split(".")
    forged = rules._b64(rules._unb64(payload).replace(b'"s":', b'"s":1') ) + "." + signature
    for bad in (forged, "garbage", tablet.cursor[:-2] + "AA"):
        response = site.client.get(f"{API}/sync/pull", query_string={"cursor": bad}, headers=tablet.headers)
        assert response.status_code == 400 and response.get_json()["error"] == "invalid_cursor"
    other = factory.user("inspector")
    response = site.client.get(f"{API}/sync/pull", query_string={"cursor": tablet.cursor},
                               headers=site.headers(other))
    assert response.status_code == 410 and response.get_json()["error"] == "cursor_expired"


def test_cursor_ahead_of_the_server_expires(site, app):
    tablet = site.tablet()
    key = app.config["SECRET_KEY"].encode()
    ahead = rules.encode_cursor(rules.Cursor(seq=10**9, user_id=site.inspector.id, role="inspector"), key)
    response = site.client.get(f"{API}/sync/pull", query_string={"cursor": ahead}, headers=tablet.headers)
    assert response.status_code == 410 and response.get_json()["error"] == "cursor_expired"


def test_pull_loads_records_in_batches_not_one_query_per_row(site):
    tablet, supervisor = site.tablet(), site.tablet(site.supervisor)
    entry_id = site.new_entry(tablet)
    supervisor.sync_down()
    statements: list[str] = []

    def count(_conn, _cursor, statement, *_args):
        statements.append(statement)

    counts = []
    for n in (3, 40):
        tablet.push([create("entry_authorization", entry_data(site.permit.id)) for _ in range(n)])
        tablet.push([create("inspection", inspection_data(site.permit.id, entry_id)) for _ in range(n)])
        statements.clear()
        event.listen(db.engine, "before_cursor_execute", count)
        try:
            changes = supervisor.sync_down(limit=500)
        finally:
            event.remove(db.engine, "before_cursor_execute", count)
        assert len(changes) == 2 * n
        counts.append(len(statements))
    assert counts[0] == counts[1], "\n".join(s[:120] for s in statements)


def _two_writers(site, meanwhile) -> None:
    """Writer A takes its sequence number and stalls before COMMIT; writer B changes another record
    meanwhile; `meanwhile(tablet, fast_writer)` runs while A stalls. Then both finish and the tablet
    must get both changes, each once, in their final state."""
    import threading

    from inspect_api import changes
    from inspect_api.entry.models import EntryAuthorization

    tablet = site.tablet()
    entry_ids = [site.new_entry(tablet) for _ in range(2)]
    tablet.sync_down()
    numbered, release = threading.Event(), threading.Event()
    errors: list[Exception] = []
    engine = db.engine

    def write(record_id: str, stall: bool) -> None:
        try:
            with sa.orm.Session(bind=engine) as session:
                record = session.get(EntryAuthorization, record_id)
                record.notes, record.version = f"by {record_id}", record.version + 1
                session.flush()
                if stall:
                    changes._assign_sequence(session)  # what COMMIT would do first, done early
                    numbered.set()
                    release.wait(timeout=20)
                session.commit()
        except Exception as exc:  # reported by the assertion below
            errors.append(exc)

    slow = threading.Thread(target=write, args=(entry_ids[0], True))
    slow.start()
    try:
        assert numbered.wait(timeout=20), errors
        fast = threading.Thread(target=write, args=(entry_ids[1], False))
        fast.start()
        meanwhile(tablet, fast)
    finally:
        release.set()
        slow.join(timeout=30)
    fast.join(timeout=30)
    assert not errors, errors
    _settle()
    later = tablet.sync_down()
    assert sorted(c["id"] for c in later) == sorted(entry_ids)
    assert all(c["data"]["notes"] == f"by {c['id']}" for c in later)


def _settle(timeout: float = 30.0) -> None:
    """Numbering by watermark: wait until every number given out so far lies below it. The
    watermark is the server's, so a writing transaction in another database of a shared server
    holds it back for a while (changes.py); nothing is lost meanwhile, it only arrives later."""
    import time

    from inspect_api.changes import current_sequence

    top = db.session.scalar(select(func.max(SyncChange.seq)))
    deadline = time.monotonic() + timeout
    while top is not None and current_sequence() < top and time.monotonic() < deadline:
        db.session.rollback()
        time.sleep(0.05)
    db.session.rollback()


@pytest.fixture
def by_watermark(app):
    """SYNC_FEED_NUMBERING = "watermark" for this test (PostgreSQL)."""
    from inspect_api.changes import set_numbering

    set_numbering(db.engine, "watermark")
    yield
    set_numbering(db.engine, "counter")
    # Back to the counter: set it above every cursor handed out first (changes.py says why).
    db.session.execute(sa.text("UPDATE sync_counter SET value = "
                               "pg_snapshot_xmin(pg_current_snapshot())::text::bigint * 1048576 WHERE id = 1"))
    db.session.commit()


def test_changes_committed_out_of_sequence_order_are_never_skipped(site):
    """Whatever the database, two overlapping writers both reach the next pull, each once. (On
    SQLite writers are serialised by BEGIN IMMEDIATE, so the story simply runs one after the other.)"""
    _two_writers(site, lambda tablet, fast: None)


@pytest.mark.postgres
def test_counter_a_later_writer_cannot_commit_ahead_of_an_earlier_sequence_number(site):
    """SYNC_FEED_NUMBERING = "counter" on PostgreSQL: B cannot take a later number while A holds the
    counter row (so it cannot commit ahead of A), and a reader paging meanwhile never moves its
    cursor past A's."""
    seen_meanwhile = []

    def meanwhile(tablet, fast):
        for _ in range(5):
            seen_meanwhile.extend(c["id"] for c in tablet.sync_down())
        fast.join(timeout=0.5)
        assert fast.is_alive(), "the second writer committed while the first held an earlier number"

    _two_writers(site, meanwhile)
    assert seen_meanwhile == []


@pytest.mark.postgres
def test_a_transaction_numbered_first_and_committed_last_is_never_skipped(site, by_watermark):
    """PostgreSQL numbers without a lock (changes.py): B commits while A, which took its numbers
    first, still stalls before COMMIT. A reader paging meanwhile is held at the watermark below A's
    numbers, so it is sent neither change (B's must wait behind A's) and its cursor never passes A;
    once A commits, both arrive, each once, in their final state."""
    from inspect_api.changes import current_sequence

    seen_meanwhile, marks = [], []

    def meanwhile(tablet, fast):
        fast.join(timeout=20)
        assert not fast.is_alive(), "the second writer waited for the first: numbering took a lock"
        for _ in range(3):
            seen_meanwhile.extend(c["id"] for c in tablet.sync_down())
            marks.append(current_sequence())
        db.session.rollback()

    _two_writers(site, meanwhile)
    assert seen_meanwhile == []
    numbers = sorted(db.session.scalars(select(SyncChange.seq).where(SyncChange.entity == "entry_authorization")))
    assert max(marks) < min(numbers[-2:])  # the watermark stayed below both numbers while A was open


def test_snapshot_and_live_dump_agree(site):
    """Pages serve the dump stored at commit; without it (or with an outdated one) the record is dumped
    live. Both give the same change."""
    from inspect_api.sync.models import SyncSnapshot

    tablet = site.tablet()
    entry_id = site.new_entry(tablet)
    inspection_id = str(uuid.uuid4())
    tablet.push([create("inspection", inspection_data(site.permit.id, entry_id), inspection_id),
                 edit("entry_authorization", entry_id, 1, {"notes": "gate code"})])
    stored = site.tablet(site.supervisor).sync_down()
    assert db.session.scalar(select(func.count()).select_from(SyncSnapshot)) >= 3
    db.session.execute(sa.delete(SyncSnapshot))
    db.session.commit()
    live = site.tablet(site.supervisor).sync_down()
    assert live == stored
    entry = next(c for c in live if c["id"] == entry_id)
    assert entry["version"] == 2 and entry["data"]["notes"] == "gate code" and entry["data"]["version"] == 2


def test_outdated_snapshot_is_not_served(site):
    from inspect_api.sync.models import SyncSnapshot

    tablet = site.tablet()
    entry_id = site.new_entry(tablet)
    db.session.execute(sa.update(SyncSnapshot).where(SyncSnapshot.record_id == entry_id)
                       .values(data='{"stale":true}', seq=SyncSnapshot.seq - 1))
    db.session.commit()
    change = next(c for c in site.tablet(site.supervisor).sync_down() if c["id"] == entry_id)
    assert "stale" not in change["data"] and change["data"]["granted_by_name"] == "Pat Owner"


# Values of a dump worked out from other records, which a record's own write does not renew: a
# permit's parcel flag follows the other applications filed on its parcel (R-A7). Permits are pulled
# dumped live (their clock fields), so their snapshots are never served.
FROM_OTHER_RECORDS = {"permit": ("parcel_flag",)}


def _without(data: dict, paths) -> dict:
    for path in paths:
        top, _, inner = path.partition(".")
        if inner:
            for item in data.get(top) or []:
                item.pop(inner, None)
        else:
            data.pop(top, None)
    return data


def test_every_record_reads_back_as_its_write_stored_it(demo_town):
    """What a write answers and stores (its dump at COMMIT: the snapshot pull serves) is what every later
    read of the record gives: each record of the demo town, of every entity, read afresh and dumped,
    equals its snapshot (less the values that follow the clock or other records)."""
    import json

    from inspect_api.sync import registry
    from inspect_api.sync.models import SyncSnapshot

    S = SyncSnapshot
    stored = db.session.execute(select(S.entity, S.record_id, S.data).join(SyncChange, sa.and_(
        SyncChange.entity == S.entity, SyncChange.record_id == S.record_id, SyncChange.seq == S.seq))).all()
    db.session.expunge_all()
    entities, differ = set(), []
    for entity, record_id, data in stored:
        adapter = registry.get(entity)
        skipped = (*adapter.clock_fields, *FROM_OTHER_RECORDS.get(entity, ()))
        read = json.loads(json.dumps(adapter.dump(db.session.get(adapter.model, record_id)), default=str))
        entities.add(entity)
        if _without(read, skipped) != _without(json.loads(data), skipped):
            differ.append((entity, record_id))
    assert {"permit", "inspection", "finding", "sample", "order", "bond", "photo", "entry_authorization"} <= entities
    assert differ == []


@pytest.mark.postgres
def test_watermark_numbers_are_consecutive_within_a_transaction_and_pulled_once_final(site, by_watermark):
    """Numbering by watermark: a transaction's records get consecutive numbers from its own id, and
    a tablet pulls each of them once they are below the watermark, then nothing more."""
    from inspect_api.changes import SPAN, current_sequence

    tablet = site.tablet(site.supervisor)
    tablet.sync_down()
    ids = [str(uuid.uuid4()) for _ in range(3)]
    assert [r["status"] for r in tablet.push([create("entry_authorization", entry_data(site.permit.id), i)
                                              for i in ids])] == ["applied"] * 3
    seqs = sorted(db.session.scalars(select(SyncChange.seq).where(SyncChange.record_id.in_(ids))))
    assert seqs == [seqs[0], seqs[0] + 1, seqs[0] + 2] and seqs[0] % SPAN == 0
    _settle()
    assert current_sequence() >= seqs[-1]
    assert sorted(c["id"] for c in tablet.sync_down() if c["entity"] == "entry_authorization") == sorted(ids)
    assert tablet.sync_down() == []


def test_a_change_flushed_only_by_commit_is_numbered_in_its_own_transaction(site):
    """No explicit flush before COMMIT: the commit's own flush must still number the record (and store
    its snapshot) in that transaction, not in some later one, or never if the session is dropped."""
    from inspect_api.changes import current_sequence
    from inspect_api.entry.models import EntryAuthorization
    from inspect_api.sync.models import SyncSnapshot

    before = current_sequence()
    db.session.commit()
    record_id = str(uuid.uuid4())
    record = EntryAuthorization(id=record_id, permit_id=site.permit.id, basis="permit_condition",
                                granted_by_name="Pat", granted_by_relation="owner", scope=["survey"],
                                valid_from=utcnow(), valid_to=utcnow() + timedelta(days=1))
    db.session.add(record)
    db.session.commit()
    db.session.remove()  # a new session: nothing left over from the last one
    row = db.session.get(SyncChange, ("entry_authorization", record_id))
    assert row is not None and row.seq > before and current_sequence() >= row.seq  # final, so pulled
    if db.engine.dialect.name == "sqlite":
        assert row.seq == before + 1 and current_sequence() == before + 1
    assert db.session.get(SyncSnapshot, ("entry_authorization", record_id)).seq == row.seq


def test_a_large_commit_numbers_every_record_once_in_one_run(site):
    """5,000 tracked records in one transaction: consecutive numbers, one feed row and one snapshot each."""
    from inspect_api.changes import current_sequence
    from inspect_api.entry.models import EntryAuthorization
    from inspect_api.sync.models import SyncSnapshot

    before = current_sequence()
    db.session.commit()
    now = utcnow()
    db.session.add_all(EntryAuthorization(id=str(uuid.uuid4()), permit_id=site.permit.id, basis="permit_condition",
                                          granted_by_name=f"Owner {n}", granted_by_relation="owner", scope=["survey"],
                                          valid_from=now, valid_to=now + timedelta(days=1)) for n in range(5_000))
    db.session.commit()
    seqs = db.session.scalars(select(SyncChange.seq).where(SyncChange.seq > before).order_by(SyncChange.seq)).all()
    assert len(seqs) == 5_000 and seqs == list(range(seqs[0], seqs[0] + 5_000)) and current_sequence() >= seqs[-1]
    if db.engine.dialect.name == "sqlite":
        assert seqs[0] == before + 1 and current_sequence() == before + 5_000
    assert db.session.scalar(select(func.count()).select_from(SyncSnapshot).where(SyncSnapshot.seq > before)) == 5_000


def test_every_synced_entity_arrives_the_same_stored_or_live(site):
    """An inspection with a deficient item, a sample with an exceedance (and the finding it raises):
    each change carries the record's GET shape, from the snapshot or dumped live alike."""
    from inspect_api.sync.models import SyncSnapshot

    tablet = site.tablet()
    entry_id = site.new_entry(tablet)
    items = inspection_data(site.permit.id, entry_id)["checklist"]["items"]
    items[0] = {"key": items[0]["key"], "answer": "deficient", "note": "Silt fence down"}
    sample = {"permit_id": site.permit.id, "entry_authorization_id": entry_id, "sampled_at": "2026-05-04T14:00:00Z",
              "sampler": "Inspector", "sample_type": "grab", "analysis": "field", "outfall_id": "OF-1",
              "parameters": [{"name": "ph", "value": 9.6, "unit": "SU"}]}
    results = tablet.push([create("inspection", inspection_data(site.permit.id, entry_id,
                                                                checklist={"template": "esc", "items": items})),
                           create("sample", sample)])
    assert [r["status"] for r in results] == ["applied", "applied"], results
    stored = site.tablet(site.supervisor).sync_down()
    by_entity = {}
    for change in stored:
        by_entity.setdefault(change["entity"], []).append(change)
    assert {"permit", "assignment", "entry_authorization", "inspection", "sample", "finding"} <= set(by_entity)
    (finding,) = by_entity["finding"]  # the exceedance's; a draft's deficient items become findings on submit
    assert finding["data"]["sample_id"] == by_entity["sample"][0]["id"] and finding["data"]["kind"] == "exceedance"
    assert by_entity["sample"][0]["data"]["exceedances"][0]["parameter"] == "ph"
    supervisor = site.headers(site.supervisor)
    for entity, path in (("inspection", "inspections"), ("entry_authorization", "entry-authorizations"),
                         ("finding", "findings"), ("sample", "samples")):
        for change in by_entity[entity]:
            direct = site.client.get(f"{API}/{path}/{change['id']}", headers=supervisor)
            assert direct.status_code == 200 and direct.get_json() == change["data"], entity
    db.session.execute(sa.delete(SyncSnapshot))
    db.session.commit()
    assert site.tablet(site.supervisor).sync_down() == stored


def test_feed_numbering_setting_is_checked_at_start():
    """SYNC_FEED_NUMBERING takes counter or watermark, and watermark only on PostgreSQL (its
    numbers and its visibility watermark are PostgreSQL's transaction ids)."""
    from inspect_api.changes import set_numbering

    sqlite = sa.create_engine("sqlite://")
    with pytest.raises(ValueError, match="needs PostgreSQL"):
        set_numbering(sqlite, "watermark")
    with pytest.raises(ValueError, match="counter or watermark"):
        set_numbering(sqlite, "sequence")
    set_numbering(sqlite, "counter")
    sqlite.dispose()
