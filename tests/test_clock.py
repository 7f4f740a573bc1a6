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


def test_a_request_asks_one_day_however_long_it_runs(monkeypatch, tmp_path):
    """Every "today" of a request is the day it began on (so an order's status and its overdue flag,
    each asking the day, can never disagree across midnight); the next request, and code outside a
    request, have the new day."""
    app = create_app(TestConfig(SQLALCHEMY_DATABASE_URI=f"sqlite:///{tmp_path / 'day.db'}"))
    before_midnight = datetime(2026, 5, 5, 3, 59, 59, tzinfo=timezone.utc)  # 23:59:59 on 4 May in Fairhaven
    after_midnight = datetime(2026, 5, 5, 4, 0, 1, tzinfo=timezone.utc)
    monkeypatch.setattr(clock, "now", lambda: before_midnight)

    @app.get("/days")
    def days():
        first = clock.today()
        monkeypatch.setattr(clock, "now", lambda: after_midnight)  # midnight passes mid-request
        return {"first": first.isoformat(), "later": clock.today().isoformat(),
                "local_date_now": clock.local_date().isoformat()}

    client = app.test_client()
    assert client.get("/days").get_json() == {"first": "2026-05-04", "later": "2026-05-04",
                                              "local_date_now": "2026-05-05"}
    assert client.get("/days").get_json()["first"] == "2026-05-05"  # the next request starts a new day
    with app.app_context():
        assert clock.today() == date(2026, 5, 5)
    assert clock.today() == date(2026, 5, 5)
