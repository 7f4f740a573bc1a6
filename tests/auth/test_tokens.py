"""Every kind of bad token answers 401 in the one error shape."""
import base64
import json
import time
from datetime import timedelta

import jwt as pyjwt
import pytest
from flask_jwt_extended import create_access_token, decode_token

from inspect_api import create_app
from inspect_api.config import TestConfig
from inspect_api.extensions import db

from ..permits.conftest import assert_error


def _b64(data: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()


@pytest.fixture
def token(factory):
    user = factory.user("applicant")
    return factory.login(user)["access_token"], user


def _me(client, raw):
    return client.get("/api/v1/me", headers={"Authorization": raw} if raw is not None else {})


def test_missing(client):
    assert_error(_me(client, None), 401, "unauthorized")


@pytest.mark.parametrize("raw", ["Bearer", "Bearer garbage", "Bearer a.b.c", "Basic dXNlcjpwdw==", "Bearer " + "x" * 5000])
def test_garbage(client, raw):
    r = _me(client, raw)
    body = r.get_json()
    assert r.status_code == 401 and body["code"] == 401 and body["error"] in ("invalid_token", "unauthorized")
    assert set(body) == {"code", "status", "message", "error", "errors"}


def test_tampered_signature(client, token):
    raw, _ = token
    head, payload, sig = raw.split(".")
    flipped = sig[:-2] + ("A" if sig[-2] != "A" else "B") + sig[-1]
    assert_error(_me(client, f"Bearer {head}.{payload}.{flipped}"), 401, "invalid_token")


def test_tampered_payload(client, token, factory):
    raw, _ = token
    other = factory.user("supervisor")
    head, payload, sig = raw.split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    claims["sub"] = other.id
    assert_error(_me(client, f"Bearer {head}.{_b64(claims)}.{sig}"), 401, "invalid_token")


def test_alg_none(client, token, app):
    raw, _ = token
    claims = decode_token(raw)
    forged = f"{_b64({'alg': 'none', 'typ': 'JWT'})}.{_b64(claims)}."
    assert_error(_me(client, f"Bearer {forged}"), 401, "invalid_token")


def test_other_key(client, token):
    raw, _ = token
    claims = decode_token(raw)
    forged = pyjwt.encode(claims, "not-the-server-key-" + "z" * 32, algorithm="HS256")
    assert_error(_me(client, f"Bearer {forged}"), 401, "invalid_token")


def test_expired(client, token):
    raw, user = token
    claims = decode_token(raw)
    expired = create_access_token(identity=user.id, expires_delta=timedelta(seconds=-60),
                                  additional_claims={"sid": claims["sid"], "role": user.role})
    assert_error(_me(client, f"Bearer {expired}"), 401, "token_expired")


def test_revoked(client, token):
    raw, _ = token
    assert client.post("/api/v1/auth/logout", headers={"Authorization": f"Bearer {raw}"}).status_code == 204
    assert_error(_me(client, f"Bearer {raw}"), 401, "token_revoked")


def test_token_without_session_is_refused(client, token):
    _, user = token
    loose = create_access_token(identity=user.id)
    assert_error(_me(client, f"Bearer {loose}"), 401, "token_revoked")


def test_disabled_user_token_is_refused(client, token, app):
    raw, user = token
    from inspect_api.extensions import db
    user.active = False
    db.session.commit()
    assert _me(client, f"Bearer {raw}").status_code == 401


def test_a_token_is_verified_once_and_its_expiry_asked_on_every_use(client, token, monkeypatch):
    """extensions.RememberingJWTManager: a token the app has verified is not decoded again (PyJWT is
    not asked), and is refused as expired once its `exp` has passed, though it was remembered."""
    raw, user = token
    claims = decode_token(raw)
    # exp is a whole second (the instant is cut down to one), so the token lives more than 2 s: time
    # for two requests on a slow machine, and not long to wait for.
    short = create_access_token(identity=user.id, expires_delta=timedelta(seconds=3),
                                additional_claims={"sid": claims["sid"], "role": user.role})
    decoded = []
    real_decode = pyjwt.decode
    monkeypatch.setattr(pyjwt, "decode", lambda *a, **k: decoded.append(1) or real_decode(*a, **k))
    first = _me(client, f"Bearer {short}")
    assert first.status_code == 200 and first.get_json()["id"] == user.id
    assert decoded, "the first use verifies the token"
    seen = len(decoded)
    again = _me(client, f"Bearer {short}")
    assert again.status_code == 200 and again.get_json() == first.get_json()
    assert len(decoded) == seen, "a verified token is remembered"
    deadline = decode_token(short)["exp"]
    while time.time() <= deadline + 0.05:
        time.sleep(0.05)
    assert_error(_me(client, f"Bearer {short}"), 401, "token_expired")
    # A byte changed is a token never seen: verified afresh, and refused.
    head, payload, sig = raw.split(".")
    assert _me(client, f"Bearer {raw}").status_code == 200
    flipped = sig[:-2] + ("A" if sig[-2] != "A" else "B") + sig[-1]
    assert_error(_me(client, f"Bearer {head}.{payload}.{flipped}"), 401, "invalid_token")


def test_a_token_remembered_by_one_app_is_still_verified_by_another(client, token, config):
    """Each app remembers the tokens it verified itself: an app with another key refuses a token
    the first app accepted and remembered."""
    raw, _ = token
    assert _me(client, f"Bearer {raw}").status_code == 200
    other = create_app(TestConfig(SQLALCHEMY_DATABASE_URI=config.SQLALCHEMY_DATABASE_URI,
                                  STORAGE_URL=config.STORAGE_URL, JWT_SECRET_KEY="another-key-" + "q" * 32))
    try:
        assert_error(_me(other.test_client(), f"Bearer {raw}"), 401, "invalid_token")
    finally:
        with other.app_context():
            db.session.remove()
            db.engine.dispose()


def test_the_remembered_tokens_are_bounded_and_only_those_that_expire():
    from inspect_api.extensions import VerifiedTokens
    memo = VerifiedTokens(2)
    memo.keep("a", {"exp": 1})
    memo.keep("b", {"exp": 2})
    assert memo.get("a") == {"exp": 1}  # now the most recently used
    memo.keep("c", {"exp": 3})
    assert (memo.get("a"), memo.get("b"), memo.get("c")) == ({"exp": 1}, None, {"exp": 3})
    memo.keep("forever", {"sub": "x"})
    assert memo.get("forever") is None and memo.get("a") == {"exp": 1}
    memo.drop("a")
    assert memo.get("a") is None
