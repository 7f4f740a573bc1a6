"""Business days in Massachusetts: weekends and legal holidays (MGL c.4 §7, clause 18).

Used for corrective-action due dates (R-I4: "by close of the next business day"). Pure: no database,
no Flask, no network, so the PWA can mirror it and tests can pin every holiday.

Legal holidays: New Year's Day (Jan 1), Martin Luther King Jr. Day (3rd Mon Jan), Washington's
Birthday (3rd Mon Feb), Patriots' Day (3rd Mon Apr), Memorial Day (last Mon May), Juneteenth
(Jun 19), Independence Day (Jul 4), Labor Day (1st Mon Sep), Columbus Day (2nd Mon Oct), Veterans
Day (Nov 11), Thanksgiving (4th Thu Nov), Christmas (Dec 25).

Observed days: a fixed-date holiday on a Sunday is also kept on the Monday after (the statute's
"the day following"); one on a Saturday is also kept on the Friday before, as public offices close
then. The statute itself moves only Sunday holidays, so the Friday rule costs the Town at most one
day of a deadline and never shortens a contractor's time to act.
Evacuation Day and Bunker Hill Day are Suffolk County holidays only and do not apply in Fairhaven.
"""
from __future__ import annotations

from datetime import date, timedelta
from functools import lru_cache

MONDAY, THURSDAY, FRIDAY, SATURDAY, SUNDAY = 0, 3, 4, 5, 6

_FIXED = ((1, 1, "New Year's Day"), (6, 19, "Juneteenth Independence Day"), (7, 4, "Independence Day"),
          (11, 11, "Veterans Day"), (12, 25, "Christmas Day"))
JUNETEENTH_FROM = 2021  # St. 2020, c. 253 made June 19 a legal holiday from 2021 on


def _nth_weekday(year: int, month: int, weekday: int, n: int) -> date:
    first = date(year, month, 1)
    return first + timedelta(days=(weekday - first.weekday()) % 7 + 7 * (n - 1))


def _last_weekday(year: int, month: int, weekday: int) -> date:
    last = (date(year + (month == 12), month % 12 + 1, 1)) - timedelta(days=1)
    return last - timedelta(days=(last.weekday() - weekday) % 7)


def _actual_days(year: int) -> dict[date, str]:
    days = {date(year, month, day): name for month, day, name in _FIXED
            if (month, day) != (6, 19) or year >= JUNETEENTH_FROM}
    days.update({
        _nth_weekday(year, 1, MONDAY, 3): "Martin Luther King Jr. Day",
        _nth_weekday(year, 2, MONDAY, 3): "Washington's Birthday",
        _nth_weekday(year, 4, MONDAY, 3): "Patriots' Day",
        _last_weekday(year, 5, MONDAY): "Memorial Day",
        _nth_weekday(year, 9, MONDAY, 1): "Labor Day",
        _nth_weekday(year, 10, MONDAY, 2): "Columbus Day",
        _nth_weekday(year, 11, THURSDAY, 4): "Thanksgiving Day",
    })
    return days


@lru_cache(maxsize=64)
def _holidays_of(year: int) -> dict[date, str]:
    """Holidays (actual and observed) whose date falls in `year`. New Year's Day of the next year on
    a Saturday is observed on Dec 31 of this one, so the neighbouring years are looked at too."""
    days: dict[date, str] = {}
    for y in (year - 1, year, year + 1):
        for day, name in _actual_days(y).items():
            days.setdefault(day, name)
            if day.weekday() == SUNDAY:
                days.setdefault(day + timedelta(days=1), f"{name} (observed)")
            elif day.weekday() == SATURDAY:
                days.setdefault(day - timedelta(days=1), f"{name} (observed)")
    return {day: name for day, name in days.items() if day.year == year}


def holidays_in(year: int) -> dict[date, str]:
    """Every legal holiday and observed day falling in `year`, by date."""
    return dict(sorted(_holidays_of(year).items()))


def holiday_name(d: date) -> str | None:
    return _holidays_of(d.year).get(d)


def is_holiday(d: date) -> bool:
    return d in _holidays_of(d.year)


def is_business_day(d: date) -> bool:
    """Monday to Friday and not a legal holiday or observed day."""
    return d.weekday() < SATURDAY and not is_holiday(d)


def next_business_day(d: date) -> date:
    """The first business day strictly after `d`."""
    d += timedelta(days=1)
    while not is_business_day(d):
        d += timedelta(days=1)
    return d


def add_business_days(d: date, n: int) -> date:
    """`n` business days after `d` (n = 0 gives `d` itself, even if `d` is not a business day)."""
    if n < 0:
        raise ValueError("n must be zero or more")
    for _ in range(n):
        d = next_business_day(d)
    return d
