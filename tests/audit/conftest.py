"""Audit rows written on chosen Town days, and raw SQL past the append-only guards (the ORM's and, on
PostgreSQL, the trigger's: only a transaction that sets inspect_api.audit_maintenance gets past it)."""
from __future__ import annotations

from datetime import date, time

import pytest
import sqlalchemy as sa

from inspect_api import audit
from inspect_api.audit import MAINTENANCE_SETTING
from inspect_api.extensions import db

from ..town_clock import TownClock


@pytest.fixture
def town_clock(monkeypatch):
    return TownClock(monkeypatch)


def write_rows(town_clock: TownClock, day: date, count: int, *, at: time = time(12, 0), record_id: str = "r",
               permit_id: str | None = None, per_commit: int = 1) -> list[str]:
    """`count` audit rows stamped on `day`, `per_commit` to a transaction; their ids."""
    town_clock.set(day, at)
    ids = []
    for n in range(count):
        entry = audit.record("test.write", "thing", f"{record_id}{n}", {"n": n, "day": day.isoformat()},
                             permit_id=permit_id)
        db.session.flush()
        ids.append(entry.id)
        if (n + 1) % per_commit == 0:
            db.session.commit()
    db.session.commit()
    return ids


def tamper(sql: str, **params) -> None:
    """Run SQL on the audit tables as someone with the database's password would, past every guard
    (the test's session is closed first: its rows stay readable, detached, as they were loaded)."""
    db.session.close()
    with db.engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.exec_driver_sql(MAINTENANCE_SETTING)
        conn.execute(sa.text(sql), params)
