"""The change feed's one counter row: how many commits per second it lets 8 writers make.

    python benchmarks/feed_lock.py --pg postgresql://postgres@127.0.0.1:5432/postgres [--writers 8] [--seconds 5]

Every writing transaction takes its feed number from one row (`UPDATE sync_counter ... RETURNING`,
inspect_api/changes.py) right before COMMIT, and holds that row lock until the COMMIT is durable. So
writers queue on it for the length of a commit (the WAL flush included), whatever they write.

Each writer is a process with its own connection, running small transactions shaped like a REST
create: INSERT the record, INSERT its audit row, take a feed number, INSERT the feed row, COMMIT.
Modes, each run for the same time against a throwaway database on the server:

  counter    the number from the counter row, as the app does today;
  watermark  the number from the transaction's own id (pg_current_xact_id() * 2**20), no lock, as
             SYNC_FEED_NUMBERING = "watermark" numbers (inspect_api/changes.py); a reader keeps up
             meanwhile, reading the watermark and the feed below it as pull does;
  sequence   the number from a PostgreSQL sequence and no watermark (the reader pages up to the
             highest number it sees): fast, and it shows what the watermark is for, as the reader
             misses the changes whose numbers were taken before a later one became visible;
  none       no feed row at all: what the same transactions cost without any feed (the ceiling).

It prints commits per second per mode and the ratio counter / watermark. The machine is shared and
noisy: only ratios from one run mean anything.
"""
from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import sys
import time
import uuid
from pathlib import Path

import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.throwaway import Throwaway  # noqa: E402

SCHEMA = """
CREATE TABLE records (id text PRIMARY KEY, permit_id text NOT NULL, body jsonb NOT NULL, version int NOT NULL);
CREATE TABLE audit (id text PRIMARY KEY, at timestamptz NOT NULL DEFAULT now(), record_id text NOT NULL,
                    action text NOT NULL, changes jsonb NOT NULL);
CREATE TABLE feed (entity text NOT NULL, record_id text NOT NULL, seq bigint NOT NULL UNIQUE,
                   op text NOT NULL, version int NOT NULL, PRIMARY KEY (entity, record_id));
CREATE TABLE counter (id int PRIMARY KEY, value bigint NOT NULL);
CREATE SEQUENCE feed_seq START 1000000000000000000;  -- above every other mode's numbers
INSERT INTO counter VALUES (1, 0);
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
                    conn.execute("INSERT INTO feed (entity, record_id, seq, op, version) VALUES "
                                 "('entry_authorization', %s, nextval('feed_seq'), 'upsert', 1)", (record_id,))
                elif mode == "watermark":
                    conn.execute("INSERT INTO feed (entity, record_id, seq, op, version) VALUES "
                                 "('entry_authorization', %s, pg_current_xact_id()::text::bigint * 1048576, "
                                 "'upsert', 1)", (record_id,))
            done += 1
    return done


WATERMARK = "SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint * 1048576 - 1"
COUNTER = "SELECT value FROM counter WHERE id = 1"


def _reader(url: str, mode: str, stop, out) -> None:
    """Pages the feed as pull does while the writers run: top first, then the rows above the cursor
    up to it; the cursor moves to top. Sends back every number it was given."""
    try:
        seen: list[int] = []
        with psycopg.connect(url, autocommit=True) as conn:
            cursor, deadline = 0, None  # the feed is empty when the run starts
            while True:
                if stop.is_set() and deadline is None:
                    # The writers are done. A watermark may still be held back by a transaction in
                    # another database of the server; keep paging until it passes the last number.
                    deadline = time.monotonic() + 30
                    last = conn.execute("SELECT coalesce(max(seq), 0) FROM feed").fetchone()[0]
                top = conn.execute({"watermark": WATERMARK, "counter": COUNTER}.get(
                    mode, "SELECT coalesce(max(seq), 0) FROM feed")).fetchone()[0]
                seen += [r[0] for r in conn.execute("SELECT seq FROM feed WHERE seq > %s AND seq <= %s",
                                                    (cursor, top))]
                cursor = max(cursor, top)
                if deadline is not None and (cursor >= last or time.monotonic() > deadline):
                    break
                time.sleep(0.005)
        out.put((seen, cursor))
    except Exception as exc:
        out.put(exc)


def run_mode(url: str, mode: str, writers: int, seconds: float) -> tuple[float, str]:
    """Commits per second, and what a reader paging meanwhile missed (feed modes only)."""
    queue: mp.Queue = mp.Queue()
    with psycopg.connect(url, autocommit=True) as conn:  # each run starts from an empty feed
        conn.execute("TRUNCATE records, audit, feed")
    start_at = time.time() + 1.0  # every process connected before the clock starts
    procs = [mp.Process(target=_writer, args=(url, mode, start_at, seconds, queue)) for _ in range(writers)]
    stop, seen_queue = mp.Event(), mp.Queue()
    reader = mp.Process(target=_reader, args=(url, mode, stop, seen_queue)) if mode != "none" else None
    for p in procs + ([reader] if reader else []):
        p.start()
    counts = [queue.get() for _ in procs]
    for p in procs:
        p.join()
    failed = [c for c in counts if isinstance(c, Exception)]
    if failed:
        raise RuntimeError(f"{len(failed)} writer(s) failed: {failed[0]!r}")
    check = ""
    if reader:
        stop.set()
        answer = seen_queue.get()
        reader.join()
        if isinstance(answer, Exception):
            raise RuntimeError(f"the reader failed: {answer!r}")
        seen, cursor = answer
        with psycopg.connect(url) as conn:
            written = set(r[0] for r in conn.execute("SELECT seq FROM feed"))
        # Skipped: below the reader's cursor and never sent, so never to be. Not yet: above it.
        skipped = len({n for n in written if n <= cursor} - set(seen))
        waiting = len({n for n in written if n > cursor})
        twice = len(seen) - len(set(seen))
        check = f"reader: {len(seen)} sent, {skipped} skipped, {twice} twice" + (
            f", {waiting} not yet (watermark held back)" if waiting else "")
    return sum(counts) / seconds, check


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pg", default=os.environ.get("TEST_DATABASE_URL",
                                                       "postgresql://postgres@127.0.0.1:5432/postgres"))
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--rounds", type=int, default=2, help="each mode this many times, interleaved; best kept")
    args = parser.parse_args()
    target = Throwaway(args.pg, "feed_lock")
    settings = {k: target.setting(k) for k in ("fsync", "synchronous_commit")}
    url = target.conninfo
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(SCHEMA)
        print(f"PostgreSQL, {args.writers} writers, {args.seconds:g}s per run, best of {args.rounds} "
              f"(fsync={settings['fsync']}, synchronous_commit={settings['synchronous_commit']})")
        best: dict[str, float] = {}
        checks: dict[str, list[str]] = {}
        for _ in range(args.rounds):
            for mode in ("counter", "watermark", "sequence", "none"):
                rate, check = run_mode(url, mode, args.writers, args.seconds)
                best[mode] = max(best.get(mode, 0.0), rate)
                checks.setdefault(mode, []).append(check)
        single, _check = run_mode(url, "counter", 1, args.seconds)
        for mode, rate in best.items():
            print(f"  {mode:9s} {rate:8.0f} commits/s   {'; '.join(c for c in checks[mode] if c)}")
        print(f"  one writer, counter: {single:.0f} commits/s")
        print(f"watermark / counter: {best['watermark'] / best['counter']:.2f}x; "
              f"watermark / none: {best['watermark'] / best['none']:.2f}x")
    finally:
        target.drop()


if __name__ == "__main__":
    main()
