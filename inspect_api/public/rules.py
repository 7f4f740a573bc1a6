"""What the public may read and send, as pure functions (no database, no Flask).

Decisions where the bylaw and the MS4 permit are silent (README "The public"):
- A permit is public once it is an application the Town has received: never a draft or a withdrawn
  application, and an enforcement case only once it has reached its first order.
- A report's reference is its year's sequence number and four letters drawn at random: the number is
  what the office reads, the letters keep anyone from reading others' reports by counting.
"""
from __future__ import annotations

import math
import secrets
import statistics
from datetime import date, datetime, timedelta
from typing import Iterable

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


# --- reports from residents (README "Reports from residents") --------------------------------------------
# A phone's clock may run a little ahead of the Town's: a report seen "now" on it is not refused.
OBSERVED_AHEAD = timedelta(minutes=5)
ANSWER_MAX = 4000
# The permits the office is shown beside a report, to link it to: site points this close, nearest first.
NEARBY_M = 500
NEARBY_LIMIT = 20
METRES_PER_DEGREE_LAT = 111_320
# What the resident reads after each triage action; every one ends the report's handling as a report (the
# follow-up lives on the permit or case: the complaint inspection, any order).
TRIAGE_ACTIONS = {"link": "linked", "open_case": "case_opened", "close": "closed"}
# A telephone number as people write one: digits, spaces, dashes, dots, brackets, a leading +.
PHONE_PATTERN = r"^\+?\(?[0-9][0-9 ().-]{5,28}[0-9]$"


def observed_problem(observed_at: datetime | None, now: datetime) -> str | None:
    """Why the time the resident saw it cannot be right: only a time in the future is refused."""
    if observed_at is not None and observed_at > now + OBSERVED_AHEAD:
        return "When you saw it cannot be in the future."
    return None


def is_robot(honeypot: str | None) -> bool:
    """The form's hidden field (`website`) is left empty by people, who never see it, and filled by robots."""
    return bool((honeypot or "").strip())


def report_number(reference: str) -> str:
    """The office's number of a report (`R-2026-0042`): its reference less the letters that guard it."""
    return reference.rsplit("-", 1)[0]


def box_around(lat: float, lon: float, metres: float) -> tuple[float, float, float, float]:
    """(south, north, west, east): a box holding every point within `metres` of (lat, lon), for a query
    to narrow down before the exact distance is measured."""
    dlat = metres / METRES_PER_DEGREE_LAT
    dlon = metres / (METRES_PER_DEGREE_LAT * max(math.cos(math.radians(lat)), 0.01))
    return lat - dlat, lat + dlat, lon - dlon, lon + dlon


def erase_closed_before(today: date, contact_days: int) -> date:
    """The first Town day whose closed reports still keep their contact details: a report closed on day D
    keeps them through D + `contact_days` and loses them on the day after."""
    return today - timedelta(days=contact_days)


def median_days(waits: Iterable[timedelta]) -> float | None:
    """The median of `waits` in days, to one decimal; None without any."""
    days = [w.total_seconds() / 86400 for w in waits]
    return round(statistics.median(days), 1) if days else None
