"""Reference data every database needs (checklist templates, action levels, fine schedule, ...).

Domains register an idempotent seeder with @seeder; `run_all()` runs them all through db.session.
Tests (after emptying the tables) and the demo load reference data this way. The migrations do NOT:
each revision carries a frozen copy of the data it adds (`op.bulk_insert` on explicit tables), so an
old revision never depends on today's models. tests/test_migrations.py checks that a database
upgraded to head holds exactly what these seeders write: a change to a seeder needs a new revision
that makes the same change.
"""
from __future__ import annotations

from typing import Callable

from .extensions import db

_SEEDERS: list[Callable[[], None]] = []


def seeder(fn: Callable[[], None]) -> Callable[[], None]:
    _SEEDERS.append(fn)
    return fn


def run_all() -> None:
    """Run every seeder; the domains registered theirs when the app factory imported them."""
    for fn in _SEEDERS:
        fn()
    db.session.flush()
