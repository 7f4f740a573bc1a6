"""The Town's clock. Bylaw deadlines and dates (an order's deadline, the expiry of an order of
conditions, the year of a permit number) are calendar days in Fairhaven, America/New_York, never UTC
days: at 22:00 local time UTC is already on the next day. Times are stored and answered in UTC."""
from __future__ import annotations

from datetime import date, datetime, timezone
from zoneinfo import ZoneInfo

from flask import current_app, has_app_context

DEFAULT_TIMEZONE = "America/New_York"
TOWN_TZ = ZoneInfo(DEFAULT_TIMEZONE)


def town_zone() -> ZoneInfo:
    name = current_app.config.get("TIMEZONE", DEFAULT_TIMEZONE) if has_app_context() else DEFAULT_TIMEZONE
    return TOWN_TZ if name == DEFAULT_TIMEZONE else ZoneInfo(name)


def now() -> datetime:
    return datetime.now(timezone.utc)


def local_date(at: datetime | None = None) -> date:
    return (at or now()).astimezone(town_zone()).date()


def today() -> date:
    return local_date(now())
