from datetime import date, datetime, time, timezone

import pytest

from inspect_api import clock


@pytest.fixture
def supervisor(factory):
    return factory.as_role("supervisor")


@pytest.fixture
def applicant(factory):
    return factory.as_role("applicant")


@pytest.fixture
def inspector(factory):
    return factory.as_role("inspector")


def square(lon=-70.9036, lat=41.6376, d=0.0005):
    return {"type": "Polygon", "coordinates": [[[lon - d, lat - d], [lon + d, lat - d], [lon + d, lat + d],
                                                 [lon - d, lat + d], [lon - d, lat - d]]]}


def assert_error(response, code, error, *, field=None):
    body = response.get_json()
    assert response.status_code == code, body
    assert body["code"] == code and body["error"] == error and isinstance(body["message"], str) and body["message"]
    assert set(body) == {"code", "status", "message", "error", "errors"}
    if field:
        assert field in body["errors"], body
    return body


class TownClock:
    """Sets the Town's wall clock (America/New_York): `set(day)` is noon there unless `at` is given."""

    def __init__(self, monkeypatch) -> None:
        self._monkeypatch = monkeypatch
        self.set(date(2026, 5, 4))

    def set(self, day: date, at: time = time(12, 0)) -> None:
        moment = datetime.combine(day, at, tzinfo=clock.town_zone()).astimezone(timezone.utc)
        self._monkeypatch.setattr(clock, "now", lambda: moment)


@pytest.fixture
def town_clock(monkeypatch):
    return TownClock(monkeypatch)
