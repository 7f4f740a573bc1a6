"""What the public may read and send, as pure functions (no database, no Flask).

Decisions where the bylaw and the MS4 permit are silent (README "The public"):
- A permit is public once it is an application the Town has received: never a draft or a withdrawn
  application, and an enforcement case only once it has reached its first order.
- A report's reference is its year's sequence number and four letters drawn at random: the number is
  what the office reads, the letters keep anyone from reading others' reports by counting.
"""
from __future__ import annotations

import secrets

from limits import parse_many

# Letters a person reads back without confusion (no 0/O, 1/I/L).
REFERENCE_LETTERS = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
REFERENCE_CHECK_LENGTH = 4
MAX_PHOTOS = 3
DESCRIPTION_MAX = 4000


def parse_rate_limit(value: str) -> str:
    """A flask-limiter limit string ("5 per hour;20 per day"); refused at start when it does not parse."""
    if not parse_many(str(value)):
        raise ValueError("must be a rate limit such as '5 per hour;20 per day'")
    return str(value)


def reference(number: str, check: str | None = None) -> str:
    """`R-2026-0042` and four random letters: `R-2026-0042-K7QX`."""
    check = check or "".join(secrets.choice(REFERENCE_LETTERS) for _ in range(REFERENCE_CHECK_LENGTH))
    return f"{number}-{check}"


def normal_reference(text: str) -> str:
    """What a resident typed, as stored: upper case, no spaces around it."""
    return (text or "").strip().upper()
