"""Sequential record numbers per prefix and year (LDP-2026-0007, ORD-2026-0001, COC-2026-0002, ...).

The counter row is created if missing (INSERT ... ON CONFLICT DO NOTHING) and incremented with
UPDATE ... RETURNING inside the issuing transaction. On PostgreSQL that UPDATE holds the row lock
until COMMIT or ROLLBACK, so a concurrent issuer waits and then reads the committed value: no two
records share a number, and a rolled-back issue gives its number back (no gaps). On SQLite every
write transaction starts with BEGIN IMMEDIATE, which serialises issuers the same way. Each numbered
table keeps a unique index on its number as the last line of defence.
"""
from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Mapped, mapped_column

from .extensions import db


class NumberCounter(db.Model):
    __tablename__ = "number_counters"

    prefix: Mapped[str] = mapped_column(sa.String(8), primary_key=True)
    year: Mapped[int] = mapped_column(sa.Integer, primary_key=True, autoincrement=False)
    last: Mapped[int] = mapped_column(sa.Integer, nullable=False, default=0)


def format_number(prefix: str, year: int, sequence: int) -> str:
    return f"{prefix}-{year}-{sequence:04d}"


def next_sequence(prefix: str, year: int) -> int:
    table = NumberCounter.__table__
    insert = postgresql.insert if db.session.get_bind().dialect.name == "postgresql" else sqlite.insert
    db.session.execute(insert(table).values(prefix=prefix, year=year, last=0).on_conflict_do_nothing())
    return db.session.execute(
        sa.update(table).where(table.c.prefix == prefix, table.c.year == year)
        .values(last=table.c.last + 1).returning(table.c.last)
    ).scalar_one()


def next_number(prefix: str, year: int) -> str:
    return format_number(prefix, year, next_sequence(prefix, year))
