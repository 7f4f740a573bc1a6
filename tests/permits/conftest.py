import pytest

from ..town_clock import TownClock


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


@pytest.fixture
def town_clock(monkeypatch):
    return TownClock(monkeypatch)
