"""Sync throughput against floors measured in the same run.

    python benchmarks/sync.py                      # SQLite (a throwaway file)
    python benchmarks/sync.py --pg postgresql://postgres@127.0.0.1:5432/postgres
    TEST_DATABASE_URL=postgresql://... python benchmarks/sync.py

PostgreSQL runs in a throwaway database created on that server and dropped afterwards.

push:  1,000 entry-authorization creates in batches of 100 through POST /sync/push (JWT, schema,
       the entity's own service with its checks, audit row, outcome row, change-feed row, one
       savepoint each), against SQLAlchemy Core executemany of the same record rows, and of every
       row the push writes (record + audit + outcome + change feed + snapshot); the median of 5
       rounds of each (push and floor rounds alternate, so a busy moment of the machine falls on
       both), with every round's ratio, the milliseconds and the statements per mutation.
       Goal: the median at most 10x the executemany of every row.
pull:  20,000 changed records through GET /sync/pull pages, against a plain SELECT of the same rows
       serialised with the json module; the median of 5 rounds of each, alternating.
index: 1,000,000 change rows, then a pull with 10 changes since the cursor: the feed query's time
       and its plan (an index range scan on seq, not a table scan).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import sqlalchemy as sa  # noqa: E402

from benchmarks.throwaway import Throwaway, database_options, on_each_database  # noqa: E402
from inspect_api import create_app, import_models  # noqa: E402
from inspect_api.config import TestConfig  # noqa: E402
from inspect_api.extensions import db  # noqa: E402

T0 = datetime(2026, 5, 4, 13, 0, tzinfo=timezone.utc)
PASSWORD = "benchmark password 1"
PUSH_GOAL = 10.0  # push per mutation, at most this many times an executemany of every row it writes


def build_app(url: str):
    import_models()
    engine = sa.create_engine(url)
    db.metadata.create_all(engine)  # a throwaway database, like the test suite's
    engine.dispose()
    app = create_app(TestConfig(SQLALCHEMY_DATABASE_URI=url, SYNC_PULL_MAX_LIMIT=1000))
    return app


def setup_people(app):
    from inspect_api.auth.services import create_user
    from inspect_api.permits import services as permits
    from inspect_api.seed import run_all
    run_all()
    supervisor = create_user("sup@bench.example", PASSWORD, "Sup", "supervisor")
    inspector = create_user("insp@bench.example", PASSWORD, "Insp", "inspector")
    applicant = create_user("app@bench.example", PASSWORD, "App", "applicant")
    permit, _ = permits.create_permit(applicant, {
        "site": {"address": "1 Main Street, Fairhaven, MA", "location": {"lat": 41.63, "lon": -70.90}},
        "owner": {"name": "Pat Owner"}, "disturbed_area_sqft": 30000, "drains_to_ms4": True,
        "drains_to_waters": False, "proposed_use": "warehouse"})
    permits.force_status(permit, "issued")
    permits.assign_inspector(permit, inspector.id, supervisor)
    db.session.commit()
    client = app.test_client()

    def login(email, device):
        body = client.post("/api/v1/auth/login", json={"email": email, "password": PASSWORD, "device_id": device})
        return {"Authorization": "Bearer " + body.get_json()["access_token"], "X-Device-Id": device}

    return client, permit.id, login("insp@bench.example", "bench-tablet"), login("sup@bench.example", "bench-desk")


def entry_body(permit_id: str, n: int) -> dict:
    return {"permit_id": permit_id, "basis": "permit_condition", "granted_by_name": f"Owner {n}",
            "granted_by_relation": "owner", "scope": ["examination", "survey", "sampling"],
            "valid_from": (T0 - timedelta(days=1)).isoformat(), "valid_to": (T0 + timedelta(days=30)).isoformat(),
            "notes": f"Gate code {n:04d}; call before entering."}


def entry_row(permit_id: str, n: int, user_id: str | None = None) -> dict:
    now = datetime.now(timezone.utc)
    return {"id": str(uuid.uuid4()), "version": 1, "created_at": now, "updated_at": now, "created_by": user_id,
            "device_id": "bench-tablet", "device_created_at": None, "permit_id": permit_id,
            "basis": "permit_condition", "granted_by_name": f"Owner {n}", "granted_by_relation": "owner",
            "scope": ["examination", "survey", "sampling"], "valid_from": T0 - timedelta(days=1),
            "valid_to": T0 + timedelta(days=30), "signature_photo_id": None,
            "notes": f"Gate code {n:04d}; call before entering.", "revoked_at": None, "revoked_by": None,
            "revocation_reason": None}


def timed(fn, repeat: int = 1) -> float:
    """The best of `repeat` runs (the least disturbed by whatever else the machine does)."""
    def once() -> float:
        start = time.perf_counter()
        fn()
        return time.perf_counter() - start
    return min(once() for _ in range(repeat))


# --- push ------------------------------------------------------------------------------------------

def bench_push(app, client, permit_id: str, headers: dict, total: int, batch: int, rounds: int = 5) -> dict:
    """`rounds` pushes of `total` fresh creates, each followed by a round of the floors, after one
    unmeasured round of both (caches and prepared statements warm, as in a running server); the
    medians, every round's ratio, and the statements the database received in the first measured
    push (an executemany counts once)."""
    def fresh(count: int) -> list[dict]:
        return [{"mutation_id": str(uuid.uuid4()), "entity": "entry_authorization", "id": str(uuid.uuid4()),
                 "op": "upsert", "base_version": None, "data": entry_body(permit_id, n)} for n in range(count)]

    def push(mutations):
        for start in range(0, len(mutations), batch):
            response = client.post("/api/v1/sync/push", headers=headers, json={
                "device_id": "bench-tablet", "mutations": mutations[start:start + batch]})
            results = response.get_json()["results"]
            assert response.status_code == 200 and {r["status"] for r in results} == {"applied"}, results[:2]

    with app.app_context():
        engine = db.engine
    statements = []

    def count(*_args):
        statements.append(1)

    def floor_round() -> tuple[float, float]:
        with app.app_context():
            return push_floors(permit_id, total)

    push(fresh(batch))
    floor_round()
    runs, floors_records, floors_all = [], [], []
    for n in range(rounds):
        mutations = fresh(total)
        if n == 0:
            sa.event.listen(engine, "before_cursor_execute", count)
        try:
            runs.append(timed(lambda: push(mutations)))
        finally:
            if n == 0:
                sa.event.remove(engine, "before_cursor_execute", count)
        records_s, all_s = floor_round()
        floors_records.append(records_s)
        floors_all.append(all_s)
    with app.app_context():
        service_s = direct_service(permit_id, total)
    return {"push_s": statistics.median(runs), "statements": len(statements), "service_s": service_s,
            "floor_records_s": statistics.median(floors_records), "floor_all_rows_s": statistics.median(floors_all),
            "ratios": [p / f for p, f in zip(runs, floors_all)]}


def direct_service(permit_id: str, total: int) -> float:
    """The same creates through the entity's own schema and service, in one transaction, without HTTP
    or sync: what the domain itself costs per record (a reference, not the floor)."""
    from inspect_api.auth.models import User
    from inspect_api.entry.schemas import EntryAuthorizationCreateSchema
    from inspect_api.entry.services import create_entry_authorization
    inspector = db.session.scalar(sa.select(User).where(User.role == "inspector"))
    schema = EntryAuthorizationCreateSchema()
    bodies = [{**entry_body(permit_id, n), "id": str(uuid.uuid4())} for n in range(total)]
    start = time.perf_counter()
    for body in bodies:
        create_entry_authorization(inspector, schema.load(body))
    db.session.commit()
    return time.perf_counter() - start


def push_floors(permit_id: str, total: int) -> tuple[float, float]:
    """One round of each floor: executemany of the record rows; of every row the push writes."""
    from inspect_api.audit import MAINTENANCE_SETTING, AuditEntry
    from inspect_api.audit_chain import row_hash_of
    from inspect_api.changes import SyncChange
    from inspect_api.entry.models import EntryAuthorization
    from inspect_api.sync.models import SyncMutation, SyncSnapshot
    records = [entry_row(permit_id, n) for n in range(total)]
    audit_base = 9 * 10**18  # above any number the audit log gives its own rows
    now, base = datetime.now(timezone.utc), 10**12
    user_id = db.session.scalar(sa.text("select id from users limit 1"))
    db.session.commit()
    audits = [{"id": str(uuid.uuid4()), "at": now, "actor_id": None, "device_id": "bench-tablet", "ip_address": None,
               "action": "entry_authorization.create", "record_type": "entry_authorization", "record_id": r["id"],
               "permit_id": permit_id, "changes": {"basis": r["basis"]}, "seq": audit_base + i}
              for i, r in enumerate(records)]
    for a in audits:  # hashed beforehand: the floor is the write alone
        a["row_hash"] = row_hash_of(a)
    outcomes = [{"mutation_id": str(uuid.uuid4()), "device_id": "bench-tablet", "user_id": user_id, "at": now,
                 "entity": "entry_authorization", "record_id": r["id"], "op": "upsert", "status": "applied",
                 "version": 1} for r in records]
    feed = [{"entity": "entry_authorization", "record_id": r["id"], "seq": base + i, "permit_id": permit_id,
             "op": "upsert", "version": 1, "changed_at": now} for i, r in enumerate(records)]
    snapshots = [{"entity": "entry_authorization", "record_id": r["id"], "seq": base + i,
                  "data": json.dumps(r, default=str)} for i, r in enumerate(records)]

    def insert(pairs):
        with db.engine.begin() as conn:
            for table, rows in pairs:
                conn.execute(table.insert(), rows)

    def cleanup():
        with db.engine.begin() as conn:
            conn.execute(SyncSnapshot.__table__.delete().where(SyncSnapshot.seq >= base))
            conn.execute(SyncChange.__table__.delete().where(SyncChange.seq >= base))
            conn.execute(SyncMutation.__table__.delete().where(SyncMutation.mutation_id.in_(
                [o["mutation_id"] for o in outcomes])))
            if conn.dialect.name == "postgresql":  # the audit log's trigger refuses deletes otherwise
                conn.exec_driver_sql(MAINTENANCE_SETTING)
            conn.execute(AuditEntry.__table__.delete().where(AuditEntry.id.in_([a["id"] for a in audits])))
            conn.execute(EntryAuthorization.__table__.delete().where(EntryAuthorization.id.in_(
                [r["id"] for r in records])))

    floor_records = timed(lambda: insert([(EntryAuthorization.__table__, records)]))
    cleanup()
    floor_all = timed(lambda: insert([
        (EntryAuthorization.__table__, records), (AuditEntry.__table__, audits),
        (SyncMutation.__table__, outcomes), (SyncChange.__table__, feed),
        (SyncSnapshot.__table__, snapshots)]))
    cleanup()
    return floor_records, floor_all


# --- pull ------------------------------------------------------------------------------------------

def seed_changed_records(permit_id: str, count: int, user_id: str) -> tuple[int, list[str]]:
    """`count` entry authorizations written through the ORM, so each commit numbers them in the change
    feed and stores their snapshots as any write does; returns the sequence number before them (a
    cursor position) and their ids."""
    from inspect_api.changes import SyncCounter
    from inspect_api.entry.models import EntryAuthorization
    before = db.session.scalar(sa.select(SyncCounter.value).where(SyncCounter.id == 1))
    ids = []
    for start in range(0, count, 2000):
        records = [EntryAuthorization(**entry_row(permit_id, n, user_id)) for n in range(start, min(start + 2000, count))]
        db.session.add_all(records)
        ids += [r.id for r in records]
        db.session.commit()
    return before, ids


def cursor_at(app, user_id: str, role: str, seq: int) -> str:
    from inspect_api.sync import rules
    return rules.encode_cursor(rules.Cursor(seq=seq, user_id=user_id, role=role), app.config["SECRET_KEY"].encode())


def bench_pull(app, client, permit_id: str, headers: dict, user_id: str, count: int, rounds: int = 5) -> dict:
    from inspect_api.entry.models import EntryAuthorization
    with app.app_context():
        before, _ids = seed_changed_records(permit_id, count, user_id)
        start_cursor = cursor_at(app, user_id, "supervisor", before)
        engine = db.engine

    def pull() -> float:
        """Pages until has_more is false; the server's time only (the device's parsing is not counted)."""
        cursor, seen, spent = start_cursor, 0, 0.0
        while True:
            start = time.perf_counter()
            response = client.get("/api/v1/sync/pull", query_string={"cursor": cursor, "limit": 1000}, headers=headers)
            spent += time.perf_counter() - start
            assert response.status_code == 200, response.get_json()
            body = json.loads(response.data)
            seen += len(body["changes"])
            cursor = body["cursor"]
            if not body["has_more"]:
                break
        assert seen == count, seen
        return spent

    table = EntryAuthorization.__table__

    def floor():
        with engine.connect() as conn:
            rows = conn.execute(sa.select(table).where(table.c.permit_id == permit_id)).mappings().all()
        assert len(rows) == count
        json.dumps([dict(r) for r in rows], default=str)

    pull()  # warm caches the way a running server has them
    floor()
    pulls, floors = [], []
    for _ in range(rounds):  # alternating, as the push rounds do
        pulls.append(pull())
        floors.append(timed(floor))
    return {"pull_s": statistics.median(pulls), "floor_s": statistics.median(floors)}


def profile_pull(app, client, headers: dict, user_id: str) -> None:
    import cProfile
    import pstats
    from inspect_api.changes import SyncCounter
    with app.app_context():
        top = db.session.scalar(sa.select(SyncCounter.value))
        cursor = cursor_at(app, user_id, "supervisor", top - 5000)
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(5):
        client.get("/api/v1/sync/pull", query_string={"cursor": cursor, "limit": 1000}, headers=headers)
    profiler.disable()
    pstats.Stats(profiler).sort_stats("tottime").print_stats(25)


# --- a million change rows ---------------------------------------------------------------------------

def bulk_feed(count: int, permit_id: str) -> None:
    from inspect_api.changes import SyncChange, SyncCounter
    with db.engine.begin() as conn:
        top = conn.execute(sa.select(SyncCounter.value).where(SyncCounter.id == 1)).scalar_one()
        if conn.dialect.name == "postgresql":
            conn.execute(sa.text(
                "INSERT INTO sync_changes (entity, record_id, seq, permit_id, op, version, changed_at) "
                "SELECT 'entry_authorization', 'bulk-' || g, :top + g, :permit, 'upsert', 1, now() "
                "FROM generate_series(1, :n) AS g"), {"top": top, "permit": permit_id, "n": count})
            conn.exec_driver_sql("ANALYZE sync_changes")
        else:
            now = datetime.now(timezone.utc)
            for start in range(0, count, 50_000):
                conn.execute(SyncChange.__table__.insert(), [
                    {"entity": "entry_authorization", "record_id": f"bulk-{g}", "seq": top + g,
                     "permit_id": permit_id, "op": "upsert", "version": 1, "changed_at": now}
                    for g in range(start + 1, min(start + 50_000, count) + 1)])
            conn.exec_driver_sql("ANALYZE")
        conn.execute(sa.update(SyncCounter).where(SyncCounter.id == 1).values(value=top + count))


def feed_query_report(before: int, user, count: int) -> list[str]:
    """Time the pull's feed query for `user` after sequence `before`, and show its plan."""
    from inspect_api.sync import pull as pull_service
    query = (sa.select(*pull_service._ROW).where(pull_service.C.seq > before, pull_service.pull_scope(user))
             .order_by(pull_service.C.seq).limit(501))
    compiled = str(query.compile(db.engine, compile_kwargs={"literal_binds": True}))
    with db.engine.connect() as conn:
        runs = []
        for _ in range(20):
            start = time.perf_counter()
            rows = conn.execute(query).all()
            runs.append(time.perf_counter() - start)
        prefix = "EXPLAIN QUERY PLAN " if conn.dialect.name == "sqlite" else "EXPLAIN ANALYZE "
        plan = conn.exec_driver_sql(prefix + compiled).all()
    assert len(rows) == 10, len(rows)
    lines = [f"feed query {statistics.median(runs) * 1000:.2f} ms (median of 20) for 10 changes after "
             f"{count:,} rows; plan:"]
    return lines + ["      " + " | ".join(str(v) for v in row) for row in plan]


def bench_index(app, client, permit_id: str, assigned_permit: str, headers: dict, sup_id: str, insp_headers: dict,
                insp_id: str, count: int) -> None:
    """`count` feed rows, then 10 changes on the inspector's site: what a device that synced just before
    those 10 pulls next."""
    with app.app_context():
        started = time.perf_counter()
        bulk_feed(count, permit_id)
        print(f"index: inserted {count:,} change rows in {time.perf_counter() - started:.1f}s")
        before, _ids = seed_changed_records(assigned_permit, 10, sup_id)
    for role, user_id, hdrs in (("supervisor", sup_id, headers), ("inspector", insp_id, insp_headers)):
        with app.app_context():
            lines = feed_query_report(before, SimpleNamespace(id=user_id, role=role), count)
            cursor = cursor_at(app, user_id, role, before)
        request_s = timed(lambda: client.get("/api/v1/sync/pull", query_string={"cursor": cursor}, headers=hdrs),
                          repeat=5)
        print(f"  {role}: whole pull request {request_s * 1000:.1f} ms; " + "\n".join(lines))


def run(label: str, pg_url: str | None, args) -> None:
    """Setup runs in an app context; the requests run outside it, so each gets its own session as
    in a server (a context held across requests would grow one identity map for the whole run)."""
    target = Throwaway(pg_url, "sync_bench")
    print(f"\n== {label} == (load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs at the start)")
    try:
        app = build_app(target.url)
        with app.app_context():
            client, permit_id, insp_headers, sup_headers = setup_people(app)
            from inspect_api.auth.models import User
            sup_id = db.session.scalar(sa.select(User.id).where(User.role == "supervisor"))
            insp_id = db.session.scalar(sa.select(User.id).where(User.role == "inspector"))
            bulk_permit = second_permit(sup_id)
            db.session.commit()
        push = bench_push(app, client, permit_id, insp_headers, args.mutations, args.batch, args.rounds)
        ratio = push["push_s"] / push["floor_all_rows_s"]
        print(f"push {args.mutations} mutations in batches of {args.batch}, median of {args.rounds} rounds: "
              f"{push['push_s']:.3f}s, {push['push_s'] / args.mutations * 1000:.2f} ms and "
              f"{push['statements'] / args.mutations:.2f} statements per mutation ({push['statements']} in all, "
              f"one per executemany)\n"
              f"  floor, executemany of the record rows {push['floor_records_s']:.4f}s: "
              f"ratio {push['push_s'] / push['floor_records_s']:.1f}x\n"
              f"  floor, executemany of every row the push writes {push['floor_all_rows_s']:.4f}s: "
              f"ratio {ratio:.1f}x (goal {PUSH_GOAL:g}x: {'met' if ratio <= PUSH_GOAL else 'NOT met'}); "
              f"each round: {', '.join(f'{r:.1f}x' for r in push['ratios'])}")
        print(f"  reference: the same creates through the entity's service directly, one transaction, no HTTP: "
              f"{push['service_s']:.3f}s (push / service {push['push_s'] / push['service_s']:.2f}x)")
        if args.records:
            pull = bench_pull(app, client, bulk_permit, sup_headers, sup_id, args.records, args.rounds)
            print(f"pull {args.records:,} changed records, median of {args.rounds} rounds: {pull['pull_s']:.3f}s | "
                  f"floor, SELECT + json.dumps "
                  f"{pull['floor_s']:.3f}s: ratio {pull['pull_s'] / pull['floor_s']:.2f}x")
        if args.profile:
            profile_pull(app, client, sup_headers, sup_id)
        if args.big:
            bench_index(app, client, bulk_permit, permit_id, sup_headers, sup_id, insp_headers, insp_id, args.big)
        with app.app_context():
            db.session.remove()
            db.engine.dispose()
    finally:
        target.drop()


def second_permit(supervisor_id: str) -> str:
    """A permit of its own for the pull data, so the floor can select exactly those rows."""
    from inspect_api.auth.models import User
    from inspect_api.permits import services as permits
    supervisor = db.session.get(User, supervisor_id)
    permit, _ = permits.create_permit(supervisor, {
        "applicant_id": db.session.scalar(sa.select(User.id).where(User.role == "applicant")),
        "site": {"address": "2 Main Street, Fairhaven, MA", "location": {"lat": 41.63, "lon": -70.90}},
        "owner": {"name": "Pat Owner"}, "disturbed_area_sqft": 30000, "drains_to_ms4": True,
        "drains_to_waters": False, "proposed_use": "warehouse"})
    return permit.id


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    database_options(parser)
    parser.add_argument("--mutations", type=int, default=1000)
    parser.add_argument("--batch", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=5, help="push and pull rounds (the median is reported)")
    parser.add_argument("--records", type=int, default=20_000, help="records for the pull (0: skip)")
    parser.add_argument("--big", type=int, default=1_000_000, help="change rows for the index check (0: skip)")
    parser.add_argument("--profile", action="store_true", help="print a profile of the pull path")
    on_each_database(parser.parse_args(), run)


if __name__ == "__main__":
    main()
