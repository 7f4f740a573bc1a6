"""The steps that fill the demo database (`inspect-api demo`), registered by the domains.

A domain adds its own demo data by putting a `demo_data.py` in its package with functions decorated
by `@demo_step`; the demo imports those modules and runs their steps after its own (users, permits,
assignments), in the order of demo.DEMO_DOMAINS. Registering here, in the core, is what lets a domain
add demo data without importing the demo, which imports every domain.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any, Callable


@dataclass
class DemoContext:
    """What the steps share: the passwords and accounts made so far, the demo's day, its permits by key."""
    passwords: dict[str, str]
    today: date
    users: dict[str, Any] = field(default_factory=dict)
    other_applicants: list[Any] = field(default_factory=list)
    permits: dict[str, Any] = field(default_factory=dict)


Step = Callable[[DemoContext], None]
_STEPS: list[Step] = []


def demo_step(fn: Step) -> Step:
    """Register a step that adds demo data (domains call this from their demo_data.py)."""
    _STEPS.append(fn)
    return fn


def domain_steps() -> list[Step]:
    return list(_STEPS)
