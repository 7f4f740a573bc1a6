"""The Town's clock: the one source of "now" and "today" (tests pin `now`). Bylaw deadlines and dates
(an order's deadline, the expiry of an order of conditions, the year of a permit number) are calendar
days in the Town's time zone (configuration TIMEZONE, America/New_York for Fairhaven), never UTC days:
at 22:00 local time UTC is already on the next day. Times are stored and answered in UTC."""
from __future__ import annotations

from datetime import date, datetime, timezone
from functools import lru_cache
from zoneinfo import ZoneInfo

from flask import current_app, has_app_context

DEFAULT_TIMEZONE = "America/New_York"


@lru_cache(maxsize=8)
def _zone(name: str) -> ZoneInfo:
    return ZoneInfo(name)


def town_zone() -> ZoneInfo:
    """The configured zone; outside an app (a script, a pure test) the Town's own.

    Lists ask for "today" once or twice a row (an order's or a finding's overdue state), so the app is
    reached once, through `_get_current_object()` (Flask's documented way to the object behind a
    proxy): reading `current_app.config` goes through the proxy's attribute lookup, about three
    times the cost of the rest of this function."""
    if not has_app_context():
        return _zone(DEFAULT_TIMEZONE)
    return _zone(current_app._get_current_object().config.get("TIMEZONE", DEFAULT_TIMEZONE))


def now() -> datetime:
    """The current instant, timezone-aware UTC. Every "now" in the app (column defaults included)
    comes from here, so pinning this one function pins the app's clock."""
    return datetime.now(timezone.utc)


def local_date(at: datetime | None = None) -> date:
    """The Town's calendar day of an instant (of now, without one)."""
    return (at or now()).astimezone(town_zone()).date()


def today() -> date:
    return local_date(now())
