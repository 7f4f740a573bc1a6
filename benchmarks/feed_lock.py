"""The change feed's one counter row: how many commits per second it lets 8 writers make (issue 16).

    python benchmarks/feed_lock.py --pg postgresql://postgres@127.0.0.1:5432/postgres [--writers 8] [--seconds 5]

Every writing transaction takes its feed number from one row (`UPDATE sync_counter ... RETURNING`,
inspect_api/changes.py) right before COMMIT, and holds that row lock until the COMMIT is durable. So
writers queue on it for the length of a commit (the WAL flush included), whatever they write.

Each writer is a process with its own connection, running small transactions shaped like a REST
create: INSERT the record, INSERT its audit row, take a feed number, INSERT the feed row, COMMIT.
Modes, each run for the same time against a throwaway database on the server:

  counter    the number from the counter row, as the app does today;
  sequence   the number from a PostgreSQL sequence (nextval takes no lock a writer waits on), and the
             transaction id beside it (pg_current_xact_id), as a watermark design would store it;
  none       no feed row at all: what the same transactions cost without any feed (the ceiling).

It prints commits per second per mode and the ratio counter / sequence. The machine is shared and
noisy: only ratios from one run mean anything.
"""
from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import time
import uuid

import psycopg

SCHEMA = """
CREATE TABLE records (id text PRIMARY KEY, permit_id text NOT NULL, body jsonb NOT NULL, version int NOT NULL);
CREATE TABLE audit (id text PRIMARY KEY, at timestamptz NOT NULL DEFAULT now(), record_id text NOT NULL,
                    action text NOT NULL, changes jsonb NOT NULL);
CREATE TABLE feed (entity text NOT NULL, record_id text NOT NULL, seq bigint NOT NULL UNIQUE, xid xid8,
                   op text NOT NULL, version int NOT NULL, PRIMARY KEY (entity, record_id));
CREATE TABLE counter (id int PRIMARY KEY, value bigint NOT NULL);
INSERT INTO counter VALUES (1, 0);
CREATE SEQUENCE feed_seq START 1000000000000;  -- never meets the counter's numbers
"""


def _writer(url: str, mode: str, start_at: float, seconds: float, out) -> None:
    try:
        out.put(_write(url, mode, start_at, seconds))
    except Exception as exc:  # reported, so the parent never waits for a count that will not come
        out.put(exc)


def _write(url: str, mode: str, start_at: float, seconds: float) -> int:
    done = 0
    with psycopg.connect(url) as conn:
        while time.time() < start_at:
            time.sleep(0.001)
        stop = start_at + seconds
        while time.time() < stop:
            record_id = str(uuid.uuid4())
            with conn.transaction():
                conn.execute("INSERT INTO records VALUES (%s, %s, %s, 1)",
                             (record_id, "permit-1", '{"granted_by_name": "Pat Owner", "scope": ["survey"]}'))
                conn.execute("INSERT INTO audit (id, record_id, action, changes) VALUES (%s, %s, %s, %s)",
                             (str(uuid.uuid4()), record_id, "entry_authorization.create", '{"scope": ["survey"]}'))
                if mode == "counter":
                    seq = conn.execute("UPDATE counter SET value = value + 1 WHERE id = 1 RETURNING value").fetchone()[0]
                    conn.execute("INSERT INTO feed (entity, record_id, seq, op, version) VALUES "
                                 "('entry_authorization', %s, %s, 'upsert', 1)", (record_id, seq))
                elif mode == "sequence":
                    conn.execute("INSERT INTO feed (entity, record_id, seq, xid, op, version) VALUES "
                                 "('entry_authorization', %s, nextval('feed_seq'), pg_current_xact_id(), "
                                 "'upsert', 1)", (record_id,))
            done += 1
    return done


def run_mode(url: str, mode: str, writers: int, seconds: float) -> float:
    queue: mp.Queue = mp.Queue()
    start_at = time.time() + 1.0  # every process connected before the clock starts
    procs = [mp.Process(target=_writer, args=(url, mode, start_at, seconds, queue)) for _ in range(writers)]
    for p in procs:
        p.start()
    counts = [queue.get() for _ in procs]
    for p in procs:
        p.join()
    failed = [c for c in counts if isinstance(c, Exception)]
    if failed:
        raise RuntimeError(f"{len(failed)} writer(s) failed: {failed[0]!r}")
    return sum(counts) / seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pg", default=os.environ.get("TEST_DATABASE_URL",
                                                       "postgresql://postgres@127.0.0.1:5432/postgres"))
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--rounds", type=int, default=2, help="each mode this many times, interleaved; best kept")
    args = parser.parse_args()
    name = f"feed_lock_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(args.pg, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
        settings = {k: admin.execute(f"SHOW {k}").fetchone()[0] for k in ("fsync", "synchronous_commit")}
    url = psycopg.conninfo.make_conninfo(args.pg, dbname=name)
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(SCHEMA)
        print(f"PostgreSQL, {args.writers} writers, {args.seconds:g}s per run, best of {args.rounds} "
              f"(fsync={settings['fsync']}, synchronous_commit={settings['synchronous_commit']})")
        best: dict[str, float] = {}
        for _ in range(args.rounds):
            for mode in ("counter", "sequence", "none"):
                rate = run_mode(url, mode, args.writers, args.seconds)
                best[mode] = max(best.get(mode, 0.0), rate)
        single = run_mode(url, "counter", 1, args.seconds)
        for mode, rate in best.items():
            print(f"  {mode:9s} {rate:8.0f} commits/s")
        print(f"  one writer, counter: {single:.0f} commits/s")
        print(f"counter / sequence: {best['counter'] / best['sequence']:.2f}x; "
              f"sequence / none: {best['sequence'] / best['none']:.2f}x")
    finally:
        with psycopg.connect(args.pg, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


if __name__ == "__main__":
    main()
