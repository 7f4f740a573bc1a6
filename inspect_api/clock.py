"""The Town's clock: the one source of "now" and "today" (tests pin `now`). Bylaw deadlines and dates
(an order's deadline, the expiry of an order of conditions, the year of a permit number) are calendar
days in the Town's time zone (configuration TIMEZONE, America/New_York for Fairhaven), never UTC days:
at 22:00 local time UTC is already on the next day. Times are stored and answered in UTC."""
from __future__ import annotations

from contextvars import ContextVar
from datetime import date, datetime, timezone
from functools import lru_cache
from zoneinfo import ZoneInfo

from flask import Flask, current_app, has_app_context

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


# The Town's day as the request being served began (`one_day_per_request`); None outside a request.
_REQUEST_DAY: ContextVar[date | None] = ContextVar("request_day", default=None)


def today() -> date:
    """The Town's calendar day: in a request, the day the request began on, so one answer never holds
    two days (an order answered "open" by its status and overdue by its flag because midnight passed
    between the two); elsewhere (the worker, a command, a test outside a request), the day now."""
    day = _REQUEST_DAY.get()
    return local_date(now()) if day is None else day


def one_day_per_request(app: Flask) -> None:
    """Every `today()` of a request is the Town's day as the request began (worked out once: a page of
    100 orders asked it 200 times, about 5% of the page). Registered before the app's other hooks, so
    the day is set before they run; it is cleared when the request ends, and a request that outlives
    midnight keeps the day it began on."""
    @app.before_request
    def _hold_the_day():
        _REQUEST_DAY.set(local_date(now()))

    @app.teardown_request
    def _release_the_day(_exc):
        _REQUEST_DAY.set(None)
