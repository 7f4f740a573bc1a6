"""Sequential record numbers per year (ORD-2026-0001, CIT-2026-0001), without gaps or duplicates.

The counter row is created if missing (INSERT ... ON CONFLICT DO NOTHING) and then incremented with
UPDATE ... RETURNING, which holds its row lock until the issuing transaction ends: a concurrent
issuer waits, and a rolled-back issue gives its number back. On SQLite the transaction already holds
the database's write lock (BEGIN IMMEDIATE).
"""
from __future__ import annotations

from sqlalchemy import update
from sqlalchemy.dialects import postgresql, sqlite

from ..extensions import db
from .models import EnforcementCounter


def next_number(prefix: str, year: int) -> str:
    table = EnforcementCounter.__table__
    dialect = db.session.get_bind().dialect.name
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    db.session.execute(insert(table).values(prefix=prefix, year=year, last=0).on_conflict_do_nothing())
    value = db.session.execute(
        update(table).where(table.c.prefix == prefix, table.c.year == year)
        .values(last=table.c.last + 1).returning(table.c.last)
    ).scalar_one()
    return f"{prefix}-{year}-{value:04d}"
