"""Daily seals over the audit log, and the verification that recomputes them.

What a seal covers. Rows are numbered as audit.py says (`seq`: a transaction's block, then 0, 1, 2
... within it); numbers are not handed out in commit order, so a seal covers a range of numbers, not
a span of clock time:

- Seal N covers every row numbered first_seq..last_seq, where first_seq is one above the last
  number of seal N-1 (1 for the first seal) and last_seq is the highest number, among the rows whose
  numbers are final when the seal is made, of a row stamped (`at`) on or before the seal's Town day
  (clock.py: the Town's calendar, not UTC). So the ranges of the seals follow each other with no
  gap and no overlap, and every row numbered inside a sealed range is in that seal.
- Final: on PostgreSQL a number is final once it lies below the watermark of this database's
  transactions (final_through: every transaction below it has ended; changes.py does the same for
  the whole server): a transaction still open when the seal is made has a block above the
  watermark, so its rows can never fall inside a sealed range, and the seal stops below it. On SQLite (one
  writer at a time) every committed number is final.
- Late rows: a row stamped on day D whose transaction committed after D's seal was made (its
  number lies above that seal's range) is in the next seal; a row stamped D+1 with a number inside
  D's range (a transaction that began earlier and committed later) is in D's seal. Either way a row
  is in exactly one seal, found by its number.
- A day with no rows is sealed too (row_count 0, the empty tree's root), so the chain has one link
  per finished day from the first day with a row; a seal is made only for a day that has ended.

`seal_finished_days()` (the `inspect-api audit seal` command and every pass of the worker) seals
every finished day not yet sealed and is idempotent: a day is sealed once (a unique day, and on
PostgreSQL an advisory lock keeps two sealers from racing). Each new seal is announced with
signals.audit_day_sealed; the notifications layer e-mails it to AUDIT_SEAL_TO.

`verify()` recomputes every row hash, every seal's root, count and hash, and the chain of seals,
and names the first row changed, removed or inserted.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from typing import Iterable, Iterator

import sqlalchemy as sa

from . import clock, signals
from .audit import SPAN, AuditEntry, AuditSeal
from .audit_chain import GENESIS, ROW_FIELDS, merkle_root, row_hash_of, seal_hash_of
from .extensions import db

SEALER_LOCK = 0x61756469  # pg_advisory_xact_lock key: one sealer at a time ("audi")


def day_end(day: date) -> datetime:
    """The instant the Town's day ends (its next midnight, local time)."""
    return datetime.combine(day + timedelta(days=1), time(0), tzinfo=clock.town_zone())


_RUNNING = sa.text(
    "SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint AS xmax, "
    "(SELECT array_agg(backend_xid::text::bigint) FROM pg_stat_activity "
    " WHERE datname = current_database() AND backend_xid IS NOT NULL) AS running")


def final_through(session=None) -> int | None:
    """Every number at or below this is final (None: every committed number is, on SQLite).

    On PostgreSQL: SPAN times the oldest transaction id still running in this database (audit rows
    are written in no other), or, with none running, the next id to be given out, minus one. Unlike
    the change feed's watermark (the whole server's oldest transaction), a long transaction in
    another database of the server does not hold the seals back."""
    session = session or db.session()
    if session.get_bind().dialect.name != "postgresql":
        return None
    row = session.execute(_RUNNING).one()
    lowest = row.xmax
    epoch = row.xmax & ~0xFFFFFFFF
    for xid in row.running or ():
        full = epoch | xid  # pg_stat_activity gives 32-bit ids: put them in the epoch of xmax
        if full > row.xmax:
            full -= 1 << 32
        lowest = min(lowest, full)
    return lowest * SPAN - 1


def runs(seqs: Iterable[int]) -> list[list[int]]:
    """Numbers in order as [first, count] runs of consecutive numbers."""
    out: list[list[int]] = []
    for s in seqs:
        if out and out[-1][0] + out[-1][1] == s:
            out[-1][1] += 1
        else:
            out.append([s, 1])
    return out


def expand(seq_runs: Iterable[Iterable[int]]) -> Iterator[int]:
    for first, count in seq_runs:
        yield from range(first, first + count)


def seal_finished_days(today: date | None = None) -> list[AuditSeal]:
    """Seal every finished Town day not yet sealed, in order; returns the new seals (flushed, not
    committed: the caller commits)."""
    session = db.session()
    if session.get_bind().dialect.name == "postgresql":
        session.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": SEALER_LOCK})
    today = today or clock.today()
    last = session.scalars(sa.select(AuditSeal).order_by(AuditSeal.number.desc()).limit(1)).first()
    if last is not None:
        day = last.day + timedelta(days=1)
    else:
        first_at = session.scalar(sa.select(sa.func.min(AuditEntry.at)))
        if first_at is None:
            return []
        day = clock.local_date(first_at)
    if day >= today:
        return []
    after = last.last_seq if last is not None else 0
    query = sa.select(AuditEntry.seq, AuditEntry.at, AuditEntry.row_hash).where(AuditEntry.seq > after)
    final = final_through(session)
    if final is not None:
        query = query.where(AuditEntry.seq <= final)
    pending = session.execute(query.order_by(AuditEntry.seq)).all()
    made = []
    while day < today:
        end = day_end(day)
        last_seq = max((r.seq for r in pending if r.at < end), default=after)
        covered = [r for r in pending if r.seq <= last_seq]
        pending = pending[len(covered):]
        last = _seal(day, last, last_seq, covered)
        made.append(last)
        after = last_seq
        day += timedelta(days=1)
    session.flush()
    for seal in made:
        signals.audit_day_sealed.send(seal, fields=seal.fields())
    return made


def _seal(day: date, previous: AuditSeal | None, last_seq: int, rows: list) -> AuditSeal:
    after = previous.last_seq if previous is not None else 0
    fields = dict(number=(previous.number + 1) if previous is not None else 1, day=day, first_seq=after + 1,
                  last_seq=last_seq, row_count=len(rows), merkle_root=merkle_root([r.row_hash for r in rows]),
                  prev_seal_hash=previous.seal_hash if previous is not None else GENESIS)
    seal = AuditSeal(**fields, seal_hash=seal_hash_of(fields), seqs=runs(r.seq for r in rows),
                     sealed_at=clock.now())
    db.session.add(seal)
    return seal


def recent_seals(limit: int = 30) -> list[AuditSeal]:
    return list(db.session.scalars(sa.select(AuditSeal).order_by(AuditSeal.number.desc()).limit(limit)))


# --- verification -----------------------------------------------------------------------------------
@dataclass
class Finding:
    kind: str  # changed | removed | inserted | seal
    message: str
    seq: int | None = None
    row_id: str | None = None


@dataclass
class Report:
    rows: int = 0
    seals: int = 0
    findings: list[Finding] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.findings

    @property
    def first(self) -> Finding | None:
        return min(self.findings, key=lambda f: (f.seq is None, f.seq or 0)) if self.findings else None


def _check_blocks(seqs: list[int], ids: dict[int, str], report: Report, known: set[int], start: int) -> None:
    """Within a transaction's block the numbers run 0, 1, 2 ...: a hole is a row removed (numbers
    below `start`, where the check began, are not looked at)."""
    by_block: dict[int, list[int]] = {}
    for s in seqs:
        by_block.setdefault(s // SPAN, []).append(s)
    for block, numbers in by_block.items():
        expected = max(block * SPAN, start)
        for s in numbers:
            while expected < s:
                if expected not in known:
                    report.findings.append(Finding("removed", f"row seq {expected} was removed (a hole in "
                                                   f"its transaction's numbers, before row {ids[s]})", expected))
                    known.add(expected)
                expected += 1
            expected = s + 1


def verify(since: date | None = None) -> Report:
    """Recompute every row hash from `since` (a Town day; everything without it), every seal from the
    first one covering it, and the seal chain; collect what does not match."""
    session = db.session()
    report = Report()
    seals = list(session.scalars(sa.select(AuditSeal).order_by(AuditSeal.number)))
    if since is not None:
        seals_checked = [s for s in seals if s.day >= since]
        # From the first seal on or after `since`; past the last seal, the rows not yet sealed.
        start_seq = seals_checked[0].first_seq if seals_checked else (seals[-1].last_seq + 1 if seals else 0)
    else:
        seals_checked, start_seq = seals, 0
    # The chain of seals: each names the one before it, and each hash is its fields' hash.
    previous: AuditSeal | None = None
    for seal in seals:
        expected_prev = previous.seal_hash if previous is not None else GENESIS
        expected_first = previous.last_seq + 1 if previous is not None else 1
        expected_number = previous.number + 1 if previous is not None else 1
        if seal.number != expected_number:
            report.findings.append(Finding("seal", f"seal #{expected_number} is missing (next is #{seal.number})"))
        if seal.prev_seal_hash != expected_prev:
            report.findings.append(Finding("seal", f"seal #{seal.number} ({seal.day}) does not name the seal "
                                                   "before it: the chain of seals is broken"))
        if seal.first_seq != expected_first:
            report.findings.append(Finding("seal", f"seal #{seal.number} ({seal.day}) starts at seq "
                                                   f"{seal.first_seq}, not {expected_first}"))
        if seal_hash_of(seal.fields()) != seal.seal_hash:
            report.findings.append(Finding("seal", f"seal #{seal.number} ({seal.day}) was changed: its hash "
                                                   "does not match its fields"))
        previous = seal
    report.seals = len(seals_checked)
    # Every row: its hash, its block's numbers; then each seal's rows against the seal.
    query = sa.select(AuditEntry).where(AuditEntry.seq >= start_seq).order_by(AuditEntry.seq)
    rows = list(session.scalars(query))
    report.rows = len(rows)
    seen: dict[int, AuditEntry] = {}
    for row in rows:
        if row.seq in seen:
            report.findings.append(Finding("inserted", f"row {row.id} was inserted: seq {row.seq} is "
                                                       f"already row {seen[row.seq].id}'s", row.seq, row.id))
            continue
        seen[row.seq] = row
        values = {name: getattr(row, name) for name in ROW_FIELDS}
        if row_hash_of(values) != row.row_hash:
            report.findings.append(Finding("changed", f"row {row.id} (seq {row.seq}, {row.action} on "
                                                      f"{row.record_type} {row.record_id}) was changed: its "
                                                      "content does not match its hash", row.seq, row.id))
    known: set[int] = set()
    for seal in seals_checked:
        _verify_seal(seal, seen, report, known)
    _check_blocks(sorted(seen), {s: r.id for s, r in seen.items()}, report, known, start_seq)
    report.findings.sort(key=lambda f: (f.seq is None, f.seq or 0))
    return report


def _verify_seal(seal: AuditSeal, seen: dict[int, AuditEntry], report: Report, known: set[int]) -> None:
    inside = [s for s in seen if seal.first_seq <= s <= seal.last_seq]
    inside.sort()
    sealed = list(expand(seal.seqs or []))
    sealed_set = set(sealed)
    for s in sealed:
        if s not in seen:
            report.findings.append(Finding("removed", f"row seq {s} was removed: seal #{seal.number} "
                                                      f"({seal.day}) holds it and the log does not", s))
            known.add(s)
    for s in inside:
        if s not in sealed_set:
            row = seen[s]
            report.findings.append(Finding("inserted", f"row {row.id} (seq {s}) was inserted: it lies inside "
                                                       f"seal #{seal.number} ({seal.day}) and is not in it",
                                           s, row.id))
    hashes = [row_hash_of({name: getattr(seen[s], name) for name in ROW_FIELDS}) for s in inside]
    if len(inside) != seal.row_count or merkle_root(hashes) != seal.merkle_root:
        report.findings.append(Finding("seal", f"seal #{seal.number} ({seal.day}): the log holds {len(inside)} "
                                               f"rows with root {merkle_root(hashes)[:16]}..., the seal "
                                               f"{seal.row_count} rows with root {seal.merkle_root[:16]}..."))
