"""The audit chain's cost: audit writes per second with and without `seq` and `row_hash`, with several
concurrent writers on PostgreSQL.

    python benchmarks/audit_chain.py --pg postgresql://postgres@127.0.0.1:5432/postgres [--writers 8] [--seconds 5]

Each writer is a process with its own connection, running small transactions shaped like a REST
change: INSERT the record, INSERT its two audit rows, COMMIT. Modes, each run for the same time
against a throwaway database on the server:

  plain    the audit rows as they were before the chain: no number, no hash (the ceiling);
  chain    as inspect_api/audit.py numbers them: the transaction's block from its own id
           (pg_current_xact_id() * 2**20, one query per transaction), its rows 0, 1, 2 ...,
           and each row's hash (audit_chain.row_hash_of, SHA-256 of its canonical JSON) in Python;
           no row or lock shared between writers;
  counter  the numbers from one counter row (UPDATE ... RETURNING, held to COMMIT), the hashes as
           in chain: what one global lock for every writer would cost.

It prints audit rows per second per mode and the ratios chain / plain and chain / counter. The
machine is shared and noisy: only ratios from one run mean anything.
"""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import sys
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path

import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.throwaway import Throwaway  # noqa: E402
from inspect_api.audit_chain import row_hash_of  # noqa: E402

SPAN = 1 << 20
ROWS_PER_TRANSACTION = 2
SCHEMA = """
CREATE TABLE records (id text PRIMARY KEY, body jsonb NOT NULL);
CREATE TABLE audit (id text PRIMARY KEY, at timestamptz NOT NULL, actor_id text, device_id text, ip_address text,
                    action text NOT NULL, record_type text NOT NULL, record_id text NOT NULL, permit_id text,
                    changes json NOT NULL, seq bigint UNIQUE, row_hash text);
CREATE TABLE counter (id int PRIMARY KEY, value bigint NOT NULL);
INSERT INTO counter VALUES (1, 0);
"""
BLOCK = "SELECT pg_current_xact_id()::text::bigint * %s"
INSERT = ("INSERT INTO audit (id, at, actor_id, device_id, ip_address, action, record_type, record_id, permit_id, "
          "changes, seq, row_hash) VALUES (%(id)s, %(at)s, %(actor_id)s, %(device_id)s, %(ip_address)s, %(action)s, "
          "%(record_type)s, %(record_id)s, %(permit_id)s, %(changes)s, %(seq)s, %(row_hash)s)")


def _rows(record_id: str) -> list[dict]:
    now = datetime.now(timezone.utc)
    return [{"id": str(uuid.uuid4()), "at": now, "actor_id": "user-1", "device_id": "device-1",
             "ip_address": "10.0.0.7", "action": action, "record_type": "entry_authorization",
             "record_id": record_id, "permit_id": "permit-1",
             "changes": {"granted_by_name": ["", "Pat Owner"], "scope": [[], ["survey"]]}}
            for action in ("entry_authorization.create", "entry_authorization.scope")]


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
            rows = _rows(record_id)
            with conn.transaction():
                conn.execute("INSERT INTO records VALUES (%s, %s)", (record_id, '{"scope": ["survey"]}'))
                if mode == "chain":
                    first = conn.execute(BLOCK, (SPAN,)).fetchone()[0]  # a fresh block: its number 0
                elif mode == "counter":
                    first = conn.execute("UPDATE counter SET value = value + %s WHERE id = 1 RETURNING value",
                                         (len(rows),)).fetchone()[0] - len(rows) + 1
                for n, row in enumerate(rows):
                    if mode == "plain":
                        row.update(seq=None, row_hash=None)
                    else:
                        row["seq"] = first + n
                        row["row_hash"] = row_hash_of(row)
                    row["changes"] = json.dumps(row["changes"])
                with conn.cursor() as cur:
                    cur.executemany(INSERT, rows)
            done += len(rows)
    return done


def run_mode(url: str, mode: str, writers: int, seconds: float) -> float:
    """Audit rows written per second."""
    queue: mp.Queue = mp.Queue()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("TRUNCATE records, audit")
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
    with psycopg.connect(url) as conn:  # the chain's numbers: unique, and 0, 1 ... within each block
        if mode == "chain":
            holes = conn.execute("SELECT count(*) FROM (SELECT seq / %s AS b, count(*) AS n, min(seq %% %s) AS lo, "
                                 "max(seq %% %s) AS hi FROM audit GROUP BY 1) t WHERE lo <> 0 OR hi <> n - 1",
                                 (SPAN, SPAN, SPAN)).fetchone()[0]
            if holes:
                raise RuntimeError(f"{holes} transaction(s) numbered with a hole")
    return sum(counts) / seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pg", default=os.environ.get("TEST_DATABASE_URL",
                                                       "postgresql://postgres@127.0.0.1:5432/postgres"))
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--rounds", type=int, default=2, help="each mode this many times, interleaved; best kept")
    args = parser.parse_args()
    target = Throwaway(args.pg, "audit_chain")
    settings = {k: target.setting(k) for k in ("fsync", "synchronous_commit")}
    url = target.conninfo
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(SCHEMA)
        print(f"PostgreSQL, {args.writers} writers, {ROWS_PER_TRANSACTION} audit rows per transaction, "
              f"{args.seconds:g}s per run, best of {args.rounds} "
              f"(fsync={settings['fsync']}, synchronous_commit={settings['synchronous_commit']})")
        best: dict[str, float] = {}
        for _ in range(args.rounds):
            for mode in ("plain", "chain", "counter"):
                best[mode] = max(best.get(mode, 0.0), run_mode(url, mode, args.writers, args.seconds))
        for mode, rate in best.items():
            print(f"  {mode:8s} {rate:8.0f} audit rows/s")
        print(f"chain / plain: {best['chain'] / best['plain']:.2f}x; chain / counter: {best['chain'] / best['counter']:.2f}x")
    finally:
        target.drop()


if __name__ == "__main__":
    main()
