"""The town's calendar day. Dates in the bylaw (expiry of an order of conditions, the year of a
permit number, the day work commenced) are Fairhaven dates, not UTC dates."""
from __future__ import annotations

from datetime import date, datetime
from zoneinfo import ZoneInfo

from flask import current_app, has_app_context

from ..db import utcnow

DEFAULT_TIMEZONE = "America/New_York"


def town_zone() -> ZoneInfo:
    name = current_app.config.get("TIMEZONE", DEFAULT_TIMEZONE) if has_app_context() else DEFAULT_TIMEZONE
    return ZoneInfo(name)


def local_date(at: datetime | None = None) -> date:
    return (at or utcnow()).astimezone(town_zone()).date()


def local_today() -> date:
    return local_date()
