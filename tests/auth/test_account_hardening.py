"""Accounts that one person cannot turn against everyone (API.md "Auth"): a password change
ends the other sessions, admins keep an admin, strong passwords, strong keys, upgraded hashes."""
from __future__ import annotations

import pytest
from argon2 import PasswordHasher

from inspect_api import config as app_config
from inspect_api import create_app
from inspect_api.auth import services
from inspect_api.auth.models import User
from inspect_api.extensions import db
from tests.factories import PASSWORD

from ..permits.conftest import assert_error

NEW_PASSWORD = "lantern quarry marsh 88"


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _me(client, token: str):
    return client.get("/api/v1/me", headers=_bearer(token))


# -- 7. a password change ends every other session -------------------------------------------------
def test_admin_password_reset_ends_every_session_of_the_account(client, factory):
    _, admin = factory.as_role("admin")
    user = factory.user("inspector")
    tablet, phone = factory.login(user, "tablet-1"), factory.login(user)
    r = client.patch(f"/api/v1/users/{user.id}", headers=admin, json={"password": NEW_PASSWORD})
    assert r.status_code == 200, r.get_json()
    for session in (tablet, phone):
        assert_error(_me(client, session["access_token"]), 401, "token_revoked")
        assert_error(client.post("/api/v1/auth/refresh", headers=_bearer(session["refresh_token"])), 401,
                     "token_revoked")
    assert client.post("/api/v1/auth/login", json={"email": user.email, "password": NEW_PASSWORD}).status_code == 200
    assert_error(client.post("/api/v1/auth/login", json={"email": user.email, "password": PASSWORD}), 401,
                 "invalid_credentials")


def test_own_password_change_ends_the_other_sessions_and_keeps_this_one(client, factory):
    user = factory.user("applicant")
    here, stolen = factory.login(user), factory.login(user, "old-laptop")
    r = client.post("/api/v1/me/password", headers=_bearer(here["access_token"]),
                    json={"current_password": PASSWORD, "new_password": NEW_PASSWORD})
    assert r.status_code == 204, r.get_json()
    assert_error(_me(client, stolen["access_token"]), 401, "token_revoked")
    assert_error(client.post("/api/v1/auth/refresh", headers=_bearer(stolen["refresh_token"])), 401, "token_revoked")
    assert _me(client, here["access_token"]).status_code == 200
    assert client.post("/api/v1/auth/refresh", headers=_bearer(here["refresh_token"])).status_code == 200
    assert client.post("/api/v1/auth/login", json={"email": user.email, "password": NEW_PASSWORD}).status_code == 200


def test_own_password_change_needs_the_current_password_and_a_strong_new_one(client, factory):
    user = factory.user("applicant")
    session = factory.login(user)
    other = factory.login(user, "other")
    body = assert_error(client.post("/api/v1/me/password", headers=_bearer(session["access_token"]),
                                    json={"current_password": "not my password", "new_password": NEW_PASSWORD}),
                        422, "invalid_credentials")
    assert "current_password" in body["errors"]
    body = assert_error(client.post("/api/v1/me/password", headers=_bearer(session["access_token"]),
                                    json={"current_password": PASSWORD, "new_password": "password1234"}),
                        422, "validation_error")
    assert "new_password" in body["errors"]
    assert _me(client, other["access_token"]).status_code == 200  # nothing changed, nothing ended
    assert client.post("/api/v1/auth/login", json={"email": user.email, "password": PASSWORD}).status_code == 200


# -- 8. admins keep an admin -----------------------------------------------------------------------
@pytest.mark.parametrize("change", [{"role": "supervisor"}, {"active": False}])
def test_admin_cannot_demote_or_deactivate_themselves(client, factory, change):
    admin, headers = factory.as_role("admin")
    factory.user("admin")  # another admin exists: the refusal is about the own account
    body = assert_error(client.patch(f"/api/v1/users/{admin.id}", headers=headers, json=change), 409, "own_account")
    assert "another admin" in body["message"]
    me = client.get("/api/v1/me", headers=headers)
    assert me.status_code == 200 and (me.get_json()["role"], me.get_json()["active"]) == ("admin", True)


def test_admin_may_still_rename_themselves_and_demote_another_admin(client, factory):
    admin, headers = factory.as_role("admin")
    other = factory.user("admin")
    r = client.patch(f"/api/v1/users/{admin.id}", headers=headers, json={"name": "Ada Admin", "role": "admin"})
    assert r.status_code == 200 and r.get_json()["name"] == "Ada Admin"
    r = client.patch(f"/api/v1/users/{other.id}", headers=headers, json={"role": "supervisor",
                                                                        "current_password": PASSWORD})
    assert r.status_code == 200 and r.get_json()["role"] == "supervisor"


@pytest.mark.parametrize("change", [{"role": "inspector"}, {"active": False}])
def test_the_last_active_admin_is_neither_demoted_nor_deactivated(app, factory, change):
    last = factory.user("admin")
    factory.user("admin", active=False)  # an inactive admin does not count
    supervisor = factory.user("supervisor")
    with pytest.raises(services.Conflict) as refused:
        services.update_user(last, change, supervisor)
    assert refused.value.error == "last_admin"
    db.session.rollback()
    assert (db.session.get(User, last.id).role, db.session.get(User, last.id).active) == ("admin", True)
    second = factory.user("admin")
    services.update_user(last, change, second)  # with another active admin it is allowed
    db.session.commit()


# -- 10. passwords, keys, hashes -------------------------------------------------------------------
@pytest.mark.parametrize("password, why", [
    ("Tr0ub4dor&3", "at least 12"),               # 11 characters
    ("password1234", "common"),                   # on every breached-password list
    ("qwertyuiop12", "common"),                   # a keyboard row
    ("aaaaaaaaaaaaaaaa", "repeat"),
    ("newapplicant2026", "own e-mail"),           # built from the account's own e-mail
])
def test_weak_passwords_are_refused_on_register(client, password, why):
    r = client.post("/api/v1/auth/register", json={"email": "newapplicant@example.org", "password": password,
                                                   "name": "New Applicant"})
    body = assert_error(r, 422, "validation_error")
    assert "password" in body["errors"], (why, body)


@pytest.mark.parametrize("route", ["create", "reset"])
def test_weak_passwords_are_refused_for_admin_created_and_reset_accounts(client, factory, route):
    _, admin = factory.as_role("admin")
    if route == "create":
        r = client.post("/api/v1/users", headers=admin, json={"email": "i@example.org", "password": "iloveyou1234",
                                                              "name": "I", "role": "inspector"})
    else:
        r = client.patch(f"/api/v1/users/{factory.user('inspector').id}", headers=admin,
                         json={"password": "iloveyou1234"})
    assert "password" in assert_error(r, 422, "validation_error")["errors"]


def test_a_long_uncommon_password_is_accepted(client):
    r = client.post("/api/v1/auth/register", json={"email": "ok@example.org", "password": NEW_PASSWORD,
                                                   "name": "Okay"})
    assert r.status_code == 201, r.get_json()


@pytest.mark.parametrize("name", ["SECRET_KEY", "JWT_SECRET_KEY"])
def test_short_keys_stop_the_app_in_production(name):
    config = app_config.Config()
    config.SECRET_KEY, config.JWT_SECRET_KEY = "k" * 32, "j" * 32
    setattr(config, name, "s" * 31)
    with pytest.raises(RuntimeError, match=f"{name} must be at least 32 bytes"):
        create_app(config)
    setattr(config, name, None)
    with pytest.raises(RuntimeError, match=f"{name} must be set"):
        config.check()
    setattr(config, name, "é" * 16)  # 32 bytes in UTF-8
    config.check()


def test_argon2_hash_is_upgraded_on_sign_in_when_parameters_change(client, factory):
    old = PasswordHasher(time_cost=2, memory_cost=2048, parallelism=1)
    user = factory.user("applicant")
    user.password_hash = old.hash(PASSWORD)
    db.session.commit()
    before = user.password_hash
    assert client.post("/api/v1/auth/login", json={"email": user.email, "password": PASSWORD}).status_code == 200
    db.session.expire_all()
    after = db.session.get(User, user.id).password_hash
    assert after != before and "m=2048" in before and "m=2048" not in after
    assert not services.needs_rehash(after)
    # a wrong password changes nothing
    assert client.post("/api/v1/auth/login", json={"email": user.email, "password": "wrong password!"}).status_code == 401
    assert client.post("/api/v1/auth/login", json={"email": user.email, "password": PASSWORD}).status_code == 200
    db.session.expire_all()
    assert db.session.get(User, user.id).password_hash == after
