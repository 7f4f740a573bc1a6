"""Reference data every database needs (checklist templates, action levels, fine schedule, ...).

Domains register an idempotent seeder with @seeder; `run_all()` runs them all. The migrations call
the same seeders, and tests call them after building a fresh schema, so all three agree.
"""
from __future__ import annotations

from typing import Callable

_SEEDERS: list[Callable[[], None]] = []


def seeder(fn: Callable[[], None]) -> Callable[[], None]:
    _SEEDERS.append(fn)
    return fn


def run_all() -> None:
    from . import import_models
    import_models()
    for fn in _SEEDERS:
        fn()
