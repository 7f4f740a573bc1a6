"""The Town's clock reads the configured zone (TIMEZONE) in an app, the Town's own outside one."""
from __future__ import annotations

from datetime import date, datetime, timezone

from inspect_api import clock, create_app
from inspect_api.config import TestConfig

# 13:00 UTC on 4 May 2026: 09:00 on 4 May in Fairhaven, 01:00 on 5 May in Auckland.
MOMENT = datetime(2026, 5, 4, 13, 0, tzinfo=timezone.utc)


def test_today_is_the_configured_zones_day_in_an_app_and_the_towns_outside_one(monkeypatch, tmp_path):
    monkeypatch.setattr(clock, "now", lambda: MOMENT)
    assert clock.town_zone().key == "America/New_York" and clock.today() == date(2026, 5, 4)
    elsewhere = create_app(TestConfig(SQLALCHEMY_DATABASE_URI=f"sqlite:///{tmp_path / 'zone.db'}",
                                      TIMEZONE="Pacific/Auckland"))
    with elsewhere.app_context():
        assert clock.town_zone().key == "Pacific/Auckland"
        assert clock.today() == date(2026, 5, 5)
        assert clock.local_date(datetime(2026, 5, 4, 11, 59, tzinfo=timezone.utc)) == date(2026, 5, 4)
    home = create_app(TestConfig(SQLALCHEMY_DATABASE_URI=f"sqlite:///{tmp_path / 'home.db'}"))
    with home.app_context():
        assert clock.town_zone().key == "America/New_York" and clock.today() == date(2026, 5, 4)
    assert clock.today() == date(2026, 5, 4)
