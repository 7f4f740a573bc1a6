"""Reference data every database needs (checklist templates, action levels, fine schedule, ...).

Domains register an idempotent seeder with @seeder; `run_all()` runs them all through db.session.
The migrations call `run_all(connection)` on Alembic's own connection (inside the migration's
transaction, where the new tables are visible), and tests call it after emptying the tables, so the
schema, the migrations and the tests agree on the same reference data.
"""
from __future__ import annotations

from typing import Callable

from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

_SEEDERS: list[Callable[[], None]] = []


def seeder(fn: Callable[[], None]) -> Callable[[], None]:
    _SEEDERS.append(fn)
    return fn


def run_all(connection: Connection | None = None) -> None:
    from . import import_models
    from .extensions import db
    import_models()
    if connection is None:
        for fn in _SEEDERS:
            fn()
        db.session.flush()
        return
    # Seeders use db.session; point it at the migration's connection for the duration.
    session = Session(bind=connection)
    db.session.registry.set(session)
    try:
        for fn in _SEEDERS:
            fn()
        session.flush()
    finally:
        db.session.registry.clear()
        session.close()
