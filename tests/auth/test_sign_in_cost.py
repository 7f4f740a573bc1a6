"""Signing a request in (API.md "Auth"): the token's login session and its account are read in one
statement, and every reason to refuse the token still refuses it."""
from __future__ import annotations

from datetime import timedelta

from flask_jwt_extended import create_access_token, decode_token

from inspect_api.auth.models import AuthSession, User
from inspect_api.extensions import db

from ..permits.conftest import assert_error
from ..sql_count import counting


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_a_signed_in_request_reads_its_session_and_account_in_one_statement(app, client, factory):
    user = factory.user("inspector", email="ines@example.org")
    token = factory.login(user)["access_token"]
    with counting() as statements:
        r = client.get("/api/v1/me", headers=_bearer(token))
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["email"] == "ines@example.org" and r.get_json()["id"] == user.id
    signing_in = [s for s in statements if "auth_sessions" in s or "FROM users" in s]
    assert len(signing_in) == 1, signing_in
    assert "auth_sessions" in signing_in[0] and "users" in signing_in[0]


def test_a_token_naming_another_accounts_session_is_refused(app, client, factory):
    owner, other = factory.user("inspector"), factory.user("supervisor")
    session_id = decode_token(factory.login(owner)["access_token"])["sid"]
    forged = create_access_token(identity=other.id, additional_claims={"sid": session_id, "role": "supervisor"})
    assert_error(client.get("/api/v1/me", headers=_bearer(forged)), 401, "token_revoked")


def test_an_expired_or_revoked_session_and_a_disabled_account_are_refused(app, client, factory):
    user = factory.user("inspector")
    expired, revoked, disabled = (factory.login(user, f"device-{n}")["access_token"] for n in range(3))
    sessions = {token: db.session.get(AuthSession, decode_token(token)["sid"]) for token in (expired, revoked)}
    sessions[expired].expires_at = sessions[expired].created_at - timedelta(seconds=1)
    sessions[revoked].revoked_at = sessions[revoked].created_at
    db.session.commit()
    assert_error(client.get("/api/v1/me", headers=_bearer(expired)), 401, "token_revoked")
    assert_error(client.get("/api/v1/me", headers=_bearer(revoked)), 401, "token_revoked")
    assert client.get("/api/v1/me", headers=_bearer(disabled)).status_code == 200
    db.session.get(User, user.id).active = False
    db.session.commit()
    r = client.get("/api/v1/me", headers=_bearer(disabled))
    assert_error(r, 401, "unauthorized")
    assert "disabled" in r.get_json()["message"]
