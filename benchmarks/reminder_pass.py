"""The daily reminder pass against its floor, measured in the same run.

    .venv/bin/python benchmarks/reminder_pass.py [--permits 200] [--rounds 3]

On a fresh SQLite file, N issued permits each get one finding due the next business day (each a
reminder to the applicant and the owner: 2N messages). Per round, on a database emptied of messages:
- floor:  inserting 2N outbox rows with fixed text in one transaction (what any pass must write);
- pass:   reminders.run_pass for that day: find the items, apply the rules, render each message from
          its templates, write it under its unique key;
- again:  the same day's pass once more (every key exists: what a restarted or second worker costs).
Prints the medians and ratios. The pass costs a multiple of the floor (each message is rendered, and
written in a savepoint so that a key another worker wrote first is skipped, not an error); the goal is
that a repeated pass costs clearly less than the first (again <= 0.7x pass), since it renders nothing.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from datetime import date, datetime, time as dtime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from inspect_api import clock, create_app  # noqa: E402
from inspect_api.config import TestConfig  # noqa: E402
from inspect_api.extensions import db  # noqa: E402

DAY = date(2026, 5, 21)  # a Thursday; findings observed today are due Friday


def _world(n: int) -> None:
    from tests.factories import Factory
    from inspect_api.inspections.findings import create_finding
    factory = Factory(None, None)
    applicant = factory.user("applicant")
    for i in range(n):
        permit = factory.permit(applicant, status="issued", disturbed_area_sqft=30000)
        create_finding(permit, kind="deficiency", description=f"Silt fence down, bay {i}", observed_on=DAY,
                       required_action="Re-trench and restake the silt fence")
    db.session.commit()


def _clear() -> None:
    from inspect_api.notifications.models import Notification, ReminderRun
    db.session.query(Notification).delete()
    db.session.query(ReminderRun).delete()
    db.session.commit()


def _floor(count: int) -> float:
    from inspect_api.notifications.models import Notification
    started = time.perf_counter()
    for i in range(count):
        db.session.add(Notification(event="reminder_finding_due", record_type="finding",
                                    record_id=f"00000000-0000-4000-8000-{i:012d}", recipient_kind="address",
                                    recipient_name="Pat", recipient_email="pat@example.org", subject="Reminder",
                                    body_text="Dear Pat," * 40, body_html="<p>Dear Pat,</p>" * 40,
                                    attachments=[], dedupe_key=f"floor:{i}", status="queued",
                                    next_attempt_at=clock.now()))
    db.session.commit()
    return time.perf_counter() - started


def _timed(fn) -> tuple[float, int]:
    started = time.perf_counter()
    result = fn()
    return time.perf_counter() - started, result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--permits", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    from inspect_api import import_models
    from inspect_api.notifications import reminders
    from inspect_api.seed import run_all
    moment = datetime.combine(DAY, dtime(8, 0), tzinfo=clock.town_zone()).astimezone(timezone.utc)
    clock.now = lambda: moment  # the pass's own "today" and every timestamp it writes
    with tempfile.TemporaryDirectory() as folder:
        app = create_app(TestConfig(SQLALCHEMY_DATABASE_URI=f"sqlite:///{folder}/bench.sqlite3", INSTANCE_PATH=folder,
                                    STORAGE_URL=Path(folder, "blobs").as_uri()))
        with app.app_context():
            import_models()
            db.create_all()
            run_all()
            db.session.commit()
            _world(args.permits)
            floors, passes, agains, written = [], [], [], 0
            for _ in range(args.rounds):
                _clear()
                floors.append(_floor(2 * args.permits))
                _clear()
                seconds, written = _timed(lambda: reminders.run_pass(DAY))
                passes.append(seconds)
                agains.append(_timed(lambda: reminders.run_pass(DAY))[0])
    floor, first, again = (statistics.median(x) for x in (floors, passes, agains))
    print(f"{args.permits} permits, {written} reminders written per pass, {args.rounds} rounds (medians)")
    print(f"floor (plain outbox inserts): {floor * 1000:8.1f} ms")
    print(f"pass (find, rule, render, write): {first * 1000:8.1f} ms  = {first / floor:4.1f}x floor "
          "")
    print(f"same day again (all keys exist): {again * 1000:8.1f} ms  = {again / floor:4.1f}x floor, "
          f"{again / first:4.2f}x the first pass (goal <= 0.7x)")


if __name__ == "__main__":
    main()
