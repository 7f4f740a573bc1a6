"""Register, login, refresh, logout, /me and admin user management (API.md "Auth")."""
import pytest

from tests.factories import PASSWORD

from ..permits.conftest import assert_error


def _register(client, email="new.applicant@example.org", **extra):
    return client.post("/api/v1/auth/register", json={"email": email, "password": "long enough pw", "name": "New One",
                                                      **extra})


def test_register_makes_an_applicant(client):
    r = _register(client)
    body = r.get_json()
    assert r.status_code == 201
    assert (body["email"], body["name"], body["role"], body["active"]) == ("new.applicant@example.org", "New One",
                                                                           "applicant", True)
    assert "password" not in body and "password_hash" not in body


def test_register_cannot_choose_a_role(client):
    assert_error(_register(client, role="supervisor"), 422, "validation_error", field="role")


def test_register_duplicate_email_is_409_case_insensitive(client):
    _register(client)
    assert_error(_register(client, email="New.Applicant@Example.org"), 409, "email_taken")


@pytest.mark.parametrize("body, field", [({"email": "not-an-email", "password": "long enough pw", "name": "A"}, "email"),
                                         ({"email": "a@example.org", "password": "short", "name": "A"}, "password"),
                                         ({"email": "a@example.org", "password": "long enough pw"}, "name")])
def test_register_validation(client, body, field):
    assert_error(client.post("/api/v1/auth/register", json=body), 422, "validation_error", field=field)


def test_login_returns_tokens_and_user(client, factory):
    user = factory.user("inspector")
    r = client.post("/api/v1/auth/login", json={"email": user.email.upper(), "password": PASSWORD,
                                                "device_name": "Tablet 3"})
    body = r.get_json()
    assert r.status_code == 200
    assert body["user"] == {"id": user.id, "email": user.email, "name": user.name, "role": "inspector", "active": True}
    assert body["access_token"].count(".") == 2 and body["refresh_token"].count(".") == 2


@pytest.mark.parametrize("email_kind", ["wrong_password", "unknown_email", "disabled"])
def test_bad_credentials_401(client, factory, email_kind):
    user = factory.user("applicant", active=email_kind != "disabled")
    email = "nobody@example.org" if email_kind == "unknown_email" else user.email
    password = "wrong password" if email_kind == "wrong_password" else PASSWORD
    body = assert_error(client.post("/api/v1/auth/login", json={"email": email, "password": password}),
                        401, "invalid_credentials")
    assert body["message"] == "E-mail or password is wrong."


def test_refresh_gives_a_working_access_token(client, factory):
    user = factory.user("applicant")
    tokens = factory.login(user)
    r = client.post("/api/v1/auth/refresh", headers={"Authorization": f"Bearer {tokens['refresh_token']}"})
    assert r.status_code == 200 and set(r.get_json()) == {"access_token"}
    me = client.get("/api/v1/me", headers={"Authorization": f"Bearer {r.get_json()['access_token']}"})
    assert me.status_code == 200 and me.get_json()["id"] == user.id


def test_access_token_cannot_refresh_and_refresh_token_cannot_call_api(client, factory):
    tokens = factory.login(factory.user("applicant"))
    assert_error(client.post("/api/v1/auth/refresh", headers={"Authorization": f"Bearer {tokens['access_token']}"}),
                 401, "invalid_token")
    assert_error(client.get("/api/v1/me", headers={"Authorization": f"Bearer {tokens['refresh_token']}"}),
                 401, "invalid_token")


def test_logout_revokes_this_device_only(client, factory):
    user = factory.user("inspector")
    tablet, phone = factory.login(user, device_id="tablet-1"), factory.login(user, device_id="phone-1")
    bearer = lambda t: {"Authorization": f"Bearer {t}"}  # noqa: E731
    r = client.post("/api/v1/auth/logout", headers=bearer(tablet["refresh_token"]))
    assert r.status_code == 204 and r.data == b""
    assert_error(client.get("/api/v1/me", headers=bearer(tablet["access_token"])), 401, "token_revoked")
    assert_error(client.post("/api/v1/auth/refresh", headers=bearer(tablet["refresh_token"])), 401, "token_revoked")
    assert client.get("/api/v1/me", headers=bearer(phone["access_token"])).status_code == 200
    assert client.post("/api/v1/auth/refresh", headers=bearer(phone["refresh_token"])).status_code == 200


def test_logout_with_the_access_token_also_ends_the_session(client, factory):
    tokens = factory.login(factory.user("applicant"))
    bearer = {"Authorization": f"Bearer {tokens['access_token']}"}
    assert client.post("/api/v1/auth/logout", headers=bearer).status_code == 204
    assert_error(client.post("/api/v1/auth/refresh", headers={"Authorization": f"Bearer {tokens['refresh_token']}"}),
                 401, "token_revoked")


def test_me(client, factory):
    user, headers = factory.as_role("supervisor")
    body = client.get("/api/v1/me", headers=headers).get_json()
    assert body == {"id": user.id, "email": user.email, "name": user.name, "role": "supervisor", "active": True}


def test_admin_manages_users(client, factory):
    _, admin = factory.as_role("admin")
    r = client.post("/api/v1/users", headers=admin, json={"email": "insp@example.org", "password": "long enough pw",
                                                          "name": "Ines Inspector", "role": "inspector"})
    created = r.get_json()
    assert r.status_code == 201 and created["role"] == "inspector"
    assert_error(client.post("/api/v1/users", headers=admin, json={"email": "INSP@example.org", "password": "long enough pw",
                                                                   "name": "Dup", "role": "inspector"}), 409, "email_taken")
    assert_error(client.post("/api/v1/users", headers=admin, json={"email": "x@example.org", "password": "long enough pw",
                                                                   "name": "X", "role": "king"}), 422, "validation_error",
                 field="role")
    assert "insp@example.org" in [u["email"] for u in client.get("/api/v1/users", headers=admin).get_json()]
    assert client.get(f"/api/v1/users/{created['id']}", headers=admin).get_json() == created
    assert_error(client.get("/api/v1/users/no-such-id", headers=admin), 404, "not_found")
    login = client.post("/api/v1/auth/login", json={"email": "insp@example.org", "password": "long enough pw"}).get_json()
    r = client.patch(f"/api/v1/users/{created['id']}", headers=admin, json={"role": "supervisor", "name": "Ines S."})
    assert r.status_code == 200 and (r.get_json()["role"], r.get_json()["name"]) == ("supervisor", "Ines S.")
    # a role change ends the user's sessions, so no token carries the old role
    assert_error(client.get("/api/v1/me", headers={"Authorization": f"Bearer {login['access_token']}"}),
                 401, "token_revoked")
    d = client.delete(f"/api/v1/users/{created['id']}", headers=admin)
    assert d.status_code == 204
    assert client.get(f"/api/v1/users/{created['id']}", headers=admin).get_json()["active"] is False
    assert_error(client.post("/api/v1/auth/login", json={"email": "insp@example.org", "password": "long enough pw"}),
                 401, "invalid_credentials")


def test_admin_cannot_deactivate_themselves(client, factory):
    admin, headers = factory.as_role("admin")
    assert_error(client.delete(f"/api/v1/users/{admin.id}", headers=headers), 409, "own_account")


@pytest.mark.parametrize("role", ["applicant", "inspector", "supervisor"])
def test_user_management_is_for_admins(client, factory, role):
    user, headers = factory.as_role(role)
    assert_error(client.get("/api/v1/users", headers=headers), 403, "forbidden")
    assert_error(client.post("/api/v1/users", headers=headers, json={"email": "z@example.org", "password": "long enough pw",
                                                                     "name": "Z", "role": "admin"}), 403, "forbidden")
    assert_error(client.patch(f"/api/v1/users/{user.id}", headers=headers, json={"role": "admin"}), 403, "forbidden")
    assert_error(client.delete(f"/api/v1/users/{user.id}", headers=headers), 403, "forbidden")


def test_admin_sees_sessions(client, factory):
    _, admin = factory.as_role("admin")
    user = factory.user("inspector")
    factory.login(user, device_id="tablet-9")
    sessions = client.get(f"/api/v1/users/{user.id}/sessions", headers=admin).get_json()
    assert [(s["device_id"], s["revoked_at"]) for s in sessions] == [("tablet-9", None)]
