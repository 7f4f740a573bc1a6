"""The error shape for framework errors, and the login rate limits per address and per account and address."""
from tests.factories import PASSWORD

from ..permits.conftest import assert_error


def test_unknown_route_404_shape(client):
    body = assert_error(client.get("/api/v1/no-such-thing"), 404, "not_found")
    assert body["status"] == "Not Found"


def test_wrong_method_405_shape(client):
    r = client.delete("/api/v1/auth/login")
    assert_error(r, 405, "method_not_allowed")
    assert "POST" in r.headers["Allow"]


def test_malformed_json_is_an_error_shape(client):
    r = client.post("/api/v1/auth/login", data="{not json", content_type="application/json")
    assert r.status_code in (400, 422)
    assert set(r.get_json()) == {"code", "status", "message", "error", "errors"}


def _fail(client, email, addr):
    return client.post("/api/v1/auth/login", json={"email": email, "password": "wrong password"},
                       environ_base={"REMOTE_ADDR": addr})


def test_eleventh_failed_attempt_on_an_account_from_one_address_is_429(client, factory):
    user = factory.user("applicant")
    for _ in range(10):
        assert _fail(client, user.email, "10.0.0.1").status_code == 401
    body = assert_error(_fail(client, user.email, "10.0.0.1"), 429, "too_many_requests")
    assert "Too many attempts" in body["message"]
    r = client.post("/api/v1/auth/login", json={"email": user.email, "password": PASSWORD},
                    environ_base={"REMOTE_ADDR": "10.0.0.1"})
    assert_error(r, 429, "too_many_requests")
    assert int(r.headers["Retry-After"]) > 0
    # the limit refuses that client, not the account: its owner signs in from elsewhere
    r = client.post("/api/v1/auth/login", json={"email": user.email, "password": PASSWORD},
                    environ_base={"REMOTE_ADDR": "10.0.2.1"})
    assert r.status_code == 200


def test_failures_from_many_addresses_do_not_refuse_the_account(client, factory):
    user = factory.user("applicant")
    for i in range(10):
        assert _fail(client, user.email, f"10.0.0.{i + 1}").status_code == 401
    assert _fail(client, user.email, "10.0.1.1").status_code == 401
    r = client.post("/api/v1/auth/login", json={"email": user.email, "password": PASSWORD},
                    environ_base={"REMOTE_ADDR": "10.0.2.1"})
    assert r.status_code == 200


def test_eleventh_failed_attempt_from_an_address_is_429(client, factory):
    for i in range(10):
        assert _fail(client, f"guess{i}@example.org", "192.0.2.7").status_code == 401
    assert_error(_fail(client, "guess-last@example.org", "192.0.2.7"), 429, "too_many_requests")
    other = factory.user("applicant")
    r = client.post("/api/v1/auth/login", json={"email": other.email, "password": PASSWORD},
                    environ_base={"REMOTE_ADDR": "192.0.2.8"})
    assert r.status_code == 200


def test_successful_logins_do_not_count(client, factory):
    user = factory.user("applicant")
    for _ in range(12):
        r = client.post("/api/v1/auth/login", json={"email": user.email, "password": PASSWORD},
                        environ_base={"REMOTE_ADDR": "198.51.100.4"})
        assert r.status_code == 200
