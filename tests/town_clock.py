"""The Town's wall clock (America/New_York) set by a test: `set(day)` is noon there unless `at` is
given; `set_utc(moment)` sets an exact instant."""
from __future__ import annotations

from datetime import date, datetime, time, timezone

from inspect_api import clock


class TownClock:
    def __init__(self, monkeypatch) -> None:
        self._monkeypatch = monkeypatch
        self.set(date(2026, 5, 4))

    def set(self, day: date, at: time = time(12, 0)) -> None:
        self.set_utc(datetime.combine(day, at, tzinfo=clock.town_zone()).astimezone(timezone.utc))

    def set_utc(self, moment: datetime) -> None:
        self._monkeypatch.setattr(clock, "now", lambda: moment)
