"""Permit numbers: ALDR-YYYY-NNNN and LDP-YYYY-NNNN, sequential per prefix and year.

The counter row is incremented with `UPDATE ... RETURNING` in the submitting transaction. On
PostgreSQL the UPDATE takes the row lock until COMMIT or ROLLBACK, so a concurrent submission waits
and then reads the committed value: no duplicates, and a rolled-back submission gives its number
back (no gaps). On SQLite every write transaction starts with BEGIN IMMEDIATE, which serialises
writers the same way. The unique index on permits.number is the last line of defence.
"""
from __future__ import annotations

from datetime import date

from ..numbering import next_number
from . import rules
from .models import Permit


def assign_number(permit: Permit, today: date) -> str | None:
    """Give the permit the number its review level calls for; a permit whose level changed under
    review (R-A5) gets a number of the new kind and keeps the old one in `former_numbers`."""
    prefix = rules.number_prefix(permit.review_level)
    if prefix is None or (permit.number or "").startswith(prefix + "-"):
        return None
    if permit.number:
        permit.former_numbers = [*(permit.former_numbers or []), permit.number]
    permit.number = next_number(prefix, today.year)
    return permit.number
