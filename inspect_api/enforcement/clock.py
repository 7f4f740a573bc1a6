"""The Town's clock: bylaw deadlines count calendar days in Fairhaven, i.e. America/New_York.

A deadline of 2026-05-09 is met all through that day on the Town's wall clock, so "today" is never
taken from UTC (at 22:00 local time UTC is already on the next day).
"""
from __future__ import annotations

from datetime import date, datetime, timezone
from zoneinfo import ZoneInfo

TOWN_TZ = ZoneInfo("America/New_York")


def now() -> datetime:
    return datetime.now(timezone.utc)


def today() -> date:
    return now().astimezone(TOWN_TZ).date()
