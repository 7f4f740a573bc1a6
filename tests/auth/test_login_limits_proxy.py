"""Sign-in limits that fit a real deployment: behind a trusted proxy each client is counted on its own
address; the limits refuse a client, never an account everywhere; an account under a long run of
failures is slowed, never locked (NIST SP 800-63B 5.2.2); refusals are audited; and a change to
another admin's role, password or status needs the acting admin's own password."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
import sqlalchemy as sa

from inspect_api.audit import AuditEntry
from inspect_api.auth import services
from inspect_api.auth.models import AuthSession, User
from inspect_api.config import TestConfig
from inspect_api.extensions import db
from tests.factories import PASSWORD

from ..permits.conftest import assert_error

PROXY = "10.0.0.1"
WRONG = "wrong password"
NEW_PASSWORD = "lantern quarry marsh 88"


@pytest.fixture
def config(_schema, tmp_path, request):
    """The suite's configuration behind `TRUSTED_PROXIES` proxies (1 unless a test asks otherwise)."""
    return TestConfig(SQLALCHEMY_DATABASE_URI=_schema, STORAGE_URL=(tmp_path / "blobs").as_uri(),
                      TRUSTED_PROXIES=getattr(request, "param", 1))


def _login(client, email, password, forwarded_for=None, *, peer=PROXY):
    headers = {"X-Forwarded-For": forwarded_for} if forwarded_for else {}
    return client.post("/api/v1/auth/login", json={"email": email, "password": password}, headers=headers,
                       environ_base={"REMOTE_ADDR": peer})


def _audit(action):
    db.session.expire_all()
    return db.session.scalars(sa.select(AuditEntry).where(AuditEntry.action == action)
                              .order_by(AuditEntry.at, AuditEntry.id)).all()


def test_behind_a_proxy_one_clients_failures_do_not_stop_another(client, factory):
    victim, other = factory.user("supervisor"), factory.user("inspector")
    for _ in range(10):
        assert _login(client, victim.email, WRONG, "203.0.113.5").status_code == 401
    assert_error(_login(client, victim.email, WRONG, "203.0.113.5"), 429, "too_many_requests")
    # the guessing client is refused, whichever account it names...
    assert_error(_login(client, other.email, PASSWORD, "203.0.113.5"), 429, "too_many_requests")
    # ...while everyone else behind the same proxy signs in, to another account or to the guessed one
    assert _login(client, other.email, PASSWORD, "198.51.100.9").status_code == 200
    assert _login(client, victim.email, PASSWORD, "198.51.100.9").status_code == 200
    assert _login(client, victim.email, WRONG, "198.51.100.10").status_code == 401


@pytest.mark.parametrize("config", [0], indirect=True)
def test_without_trusted_proxies_a_forged_forwarded_for_is_ignored(client, factory):
    user = factory.user("applicant")
    for i in range(10):
        r = _login(client, f"guess{i}@example.org", WRONG, f"198.51.100.{i + 1}", peer="192.0.2.7")
        assert r.status_code == 401
    assert_error(_login(client, "guess-last@example.org", WRONG, "198.51.100.99", peer="192.0.2.7"), 429,
                 "too_many_requests")
    assert [row.ip_address for row in _audit("auth.login_refused")] == ["192.0.2.7"]
    r = _login(client, user.email, PASSWORD, "192.0.2.7", peer="192.0.2.8")  # forging the refused address
    assert r.status_code == 200
    assert [row.ip_address for row in _audit("auth.login")] == ["192.0.2.8"]


@pytest.fixture
def wall(monkeypatch):
    """The sign-in throttle's wall clock, moved by the test."""
    from inspect_api.auth import throttle
    now = [datetime(2026, 6, 1, 12, 0, tzinfo=timezone.utc)]
    monkeypatch.setattr(throttle, "_wall_now", lambda: now[0])
    return now


def test_a_long_run_of_failures_slows_the_account_but_never_locks_it(client, factory, wall):
    user = factory.user("supervisor")
    addresses = (f"203.0.113.{i}" for i in range(1, 255))
    for _ in range(21):  # 20 free failures, from addresses that each stay under their own limits
        assert _login(client, user.email, WRONG, next(addresses)).status_code == 401
    waits = []
    for _ in range(8):
        r = _login(client, user.email, PASSWORD, next(addresses))  # even the right password waits its turn
        assert_error(r, 429, "too_many_requests")
        waits.append(int(r.headers["Retry-After"]))
        wall[0] += timedelta(seconds=waits[-1])
        assert _login(client, user.email, WRONG, next(addresses)).status_code == 401
    assert waits == [1, 2, 4, 8, 16, 32, 60, 60]  # growing, capped at one attempt a minute
    wall[0] += timedelta(seconds=30)
    r = _login(client, user.email, PASSWORD, next(addresses))
    assert_error(r, 429, "too_many_requests")
    assert r.headers["Retry-After"] == "30"
    wall[0] += timedelta(seconds=30)
    assert _login(client, user.email, PASSWORD, next(addresses)).status_code == 200
    # the success reset the count: 20 failures again before any slowing
    for _ in range(20):
        assert _login(client, user.email, WRONG, next(addresses)).status_code == 401
    assert _login(client, user.email, PASSWORD, next(addresses)).status_code == 200


def test_a_refusal_is_audited_though_the_refused_request_rolls_back(client, factory, wall):
    user = factory.user("supervisor")
    for i in range(21):
        assert _login(client, user.email, WRONG, f"203.0.113.{i + 1}").status_code == 401
    wall[0] += timedelta(seconds=1)
    assert _login(client, user.email, WRONG, "203.0.113.100").status_code == 401
    r = _login(client, user.email, PASSWORD, "198.51.100.20")
    assert_error(r, 429, "too_many_requests")
    refused = _audit("auth.login_refused")
    assert len(refused) == 1
    row = refused[0]
    assert (row.record_type, row.record_id, row.ip_address, row.actor_id) == ("user", user.id, "198.51.100.20", None)
    assert row.changes["reason"] == "account_slowed" and row.changes["retry_after"] == 2
    # the refused request itself left nothing: no session, no sign-in
    assert db.session.scalar(sa.select(sa.func.count()).select_from(AuthSession)) == 0
    assert _audit("auth.login") == []
    # a client over its own limit is refused, and audited, too
    for _ in range(10):
        assert _login(client, "nobody@example.org", WRONG, "198.51.100.30").status_code == 401
    assert_error(_login(client, "nobody@example.org", WRONG, "198.51.100.30"), 429, "too_many_requests")
    last = _audit("auth.login_refused")[-1]
    assert (last.ip_address, last.changes["reason"], last.changes["email"]) == (
        "198.51.100.30", "address_limit", "nobody@example.org")


def test_a_normal_write_audits_the_forwarded_client_address(client):
    r = client.post("/api/v1/auth/register", json={"email": "new@example.org", "password": NEW_PASSWORD,
                                                   "name": "New Applicant"},
                    headers={"X-Forwarded-For": "192.0.2.200, 203.0.113.77"}, environ_base={"REMOTE_ADDR": PROXY})
    assert r.status_code == 201, r.get_json()
    # one trusted proxy: its own entry (the last) is the client; what the client wrote before it is not trusted
    assert [row.ip_address for row in _audit("user.create")] == ["203.0.113.77"]


# -- a second admin cannot quietly take over the first ----------------------------------------------
@pytest.mark.parametrize("change", [{"role": "supervisor"}, {"active": False}, {"password": NEW_PASSWORD}])
def test_changing_another_admin_needs_the_own_password(client, factory, change):
    _, headers = factory.as_role("admin")
    other = factory.user("admin")
    url = f"/api/v1/users/{other.id}"
    assert_error(client.patch(url, headers=headers, json=change), 403, "confirmation_required",
                 field="current_password")
    assert_error(client.patch(url, headers=headers, json={**change, "current_password": "not my password"}), 422,
                 "invalid_credentials", field="current_password")
    db.session.expire_all()
    kept = db.session.get(User, other.id)
    assert (kept.role, kept.active) == ("admin", True)
    assert _login(client, other.email, PASSWORD, "198.51.100.1").status_code == 200
    r = client.patch(url, headers=headers, json={**change, "current_password": PASSWORD})
    assert r.status_code == 200, r.get_json()


def test_deactivating_another_admin_needs_the_own_password(client, factory):
    _, headers = factory.as_role("admin")
    other = factory.user("admin")
    url = f"/api/v1/users/{other.id}"
    assert_error(client.delete(url, headers=headers), 403, "confirmation_required", field="current_password")
    assert_error(client.delete(url, headers=headers, json={"current_password": "not my password"}), 422,
                 "invalid_credentials")
    assert client.delete(url, headers=headers, json={"current_password": PASSWORD}).status_code == 204
    db.session.expire_all()
    assert db.session.get(User, other.id).active is False


def test_other_changes_need_no_confirmation(client, factory):
    _, headers = factory.as_role("admin")
    other, inspector = factory.user("admin"), factory.user("inspector")
    r = client.patch(f"/api/v1/users/{other.id}", headers=headers, json={"name": "Renamed Admin", "role": "admin"})
    assert r.status_code == 200 and r.get_json()["name"] == "Renamed Admin"
    r = client.patch(f"/api/v1/users/{inspector.id}", headers=headers, json={"role": "supervisor"})
    assert r.status_code == 200 and r.get_json()["role"] == "supervisor"
    assert client.delete(f"/api/v1/users/{inspector.id}", headers=headers).status_code == 204


def test_wrong_confirmations_are_limited_like_sign_ins(client, factory):
    _, headers = factory.as_role("admin")
    other = factory.user("admin")
    for _ in range(10):
        r = client.patch(f"/api/v1/users/{other.id}", headers=headers,
                         json={"role": "inspector", "current_password": "not my password"})
        assert_error(r, 422, "invalid_credentials")
    r = client.patch(f"/api/v1/users/{other.id}", headers=headers, json={"role": "inspector", "current_password": PASSWORD})
    assert_error(r, 429, "too_many_requests")
    assert int(r.headers["Retry-After"]) > 0
    assert _audit("auth.confirmation_refused")[-1].changes["reason"] == "account_limit"
    db.session.expire_all()
    assert db.session.get(User, other.id).role == "admin"


@pytest.mark.parametrize("path", ["role", "active", "delete"])
def test_the_last_admin_is_never_demoted_or_deactivated(client, factory, path):
    first, headers = factory.as_role("admin")
    second = factory.user("admin")
    second_headers = factory.headers(second)

    def change(user, as_headers):
        url, body = f"/api/v1/users/{user.id}", {"current_password": PASSWORD}
        if path == "delete":
            return client.delete(url, headers=as_headers, json=body)
        return client.patch(url, headers=as_headers, json={**body, **({"role": "inspector"} if path == "role"
                                                                      else {"active": False})})

    assert change(second, headers).status_code in (200, 204)
    # the demoted admin's sessions ended: they cannot answer in kind
    assert_error(change(first, second_headers), 401, "token_revoked")
    # the one left cannot demote themselves, password or not, and no other account can demote them
    assert_error(change(first, headers), 409, "own_account")
    supervisor = factory.user("supervisor")
    with pytest.raises(services.Conflict) as refused:
        services.update_user(db.session.get(User, first.id), {"role": "inspector"}, supervisor)
    assert refused.value.error == "last_admin"
    db.session.rollback()
    kept = db.session.get(User, first.id)
    assert (kept.role, kept.active) == ("admin", True)


def test_a_count_left_quiet_for_a_day_starts_again_and_quiet_counts_are_dropped(client, factory, wall):
    from inspect_api.auth.models import LoginThrottle
    user = factory.user("inspector")
    for i in range(21):
        assert _login(client, user.email, WRONG, f"203.0.113.{i + 1}").status_code == 401
    assert _login(client, "someone-else@example.org", WRONG, "203.0.113.90").status_code == 401
    assert_error(_login(client, user.email, PASSWORD, "203.0.113.91"), 429, "too_many_requests")
    wall[0] += timedelta(hours=24)
    assert _login(client, user.email, WRONG, "203.0.113.92").status_code == 401  # the first of a new count
    db.session.expire_all()
    rows = {row.account: row.failures for row in db.session.scalars(sa.select(LoginThrottle))}
    assert rows == {user.email: 1}  # the other quiet count went with that failure
    assert _login(client, user.email, PASSWORD, "203.0.113.93").status_code == 200
    db.session.expire_all()
    assert db.session.scalars(sa.select(LoginThrottle)).all() == []


def test_attempts_at_once_on_a_slowed_account_share_no_turn(app, client, factory, wall):
    """Each attempt on a slowed account takes its turn in one statement: of several arriving together
    (other processes, other addresses), one is let through and the rest wait."""
    from concurrent.futures import ThreadPoolExecutor
    user = factory.user("supervisor")
    for i in range(21):
        assert _login(client, user.email, WRONG, f"203.0.113.{i + 1}").status_code == 401
    wall[0] += timedelta(seconds=1)
    email = user.email
    db.session.rollback()  # the test's own session lets go of the database (SQLite: its write lock)

    def attempt(n):  # a thread of its own: its own app context, session and connection
        return _login(app.test_client(), email, WRONG, f"198.51.100.{n}").status_code

    with ThreadPoolExecutor(max_workers=6) as pool:
        codes = sorted(pool.map(attempt, range(1, 7)))
    assert codes == [401] + [429] * 5
