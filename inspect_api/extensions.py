"""Extension objects, created once and bound in create_app()."""
import threading
import time
from collections import OrderedDict

from flask import Flask, current_app
from flask_compress import Compress
from flask_jwt_extended import JWTManager
from flask_jwt_extended.config import config as jwt_config
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from flask_migrate import Migrate
from flask_smorest import Api
from flask_sqlalchemy import SQLAlchemy

from .db import Base, keep_instants_in_utc

db = SQLAlchemy(model_class=Base)
keep_instants_in_utc(db.Model)
migrate = Migrate()


class VerifiedTokens:
    """The tokens one app has verified, by their exact text, with their claims; the most recently
    used `size` of them. A token is kept only if it expires."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._claims: OrderedDict[str, dict] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, token: str) -> dict | None:
        with self._lock:
            claims = self._claims.get(token)
            if claims is not None:
                self._claims.move_to_end(token)
            return claims

    def keep(self, token: str, claims: dict) -> None:
        if not isinstance(claims.get("exp"), (int, float)):
            return
        with self._lock:
            self._claims[token] = claims
            self._claims.move_to_end(token)
            while len(self._claims) > self.size:
                self._claims.popitem(last=False)

    def drop(self, token: str) -> None:
        with self._lock:
            self._claims.pop(token, None)


class RememberingJWTManager(JWTManager):
    """flask-jwt-extended's manager, verifying each token once per process.

    Every signed-in request decoded its access token in full: four parses of its text (PyJWT checks
    each character of each part in Python) and the signature, about 0.3 ms of an empty request. A
    token this app has verified is now remembered by its exact text, so a token changed in any byte
    is verified afresh; what time decides is asked again on every use (a remembered token past its
    `exp`, less the configured leeway, is forgotten and decoded again, which refuses it as expired).
    Nothing else about a token changes with time: its signature, type and claims were checked when
    it was first seen. Signing out and revocation are unaffected: they are asked of the database on
    every request (auth.jwt_callbacks). Each app remembers its own, since apps may have different keys.
    """

    EXTENSION = "inspect_api.verified_tokens"
    REMEMBERED = 4096  # tokens (about 1.5 kB each with their claims)

    def init_app(self, app: Flask, add_context_processor: bool = False) -> None:
        super().init_app(app, add_context_processor=add_context_processor)
        app.extensions[self.EXTENSION] = VerifiedTokens(self.REMEMBERED)

    def _decode_jwt_from_config(self, encoded_token: str, csrf_value=None, allow_expired: bool = False) -> dict:
        if csrf_value is not None or allow_expired:  # neither is asked by this app's requests
            return super()._decode_jwt_from_config(encoded_token, csrf_value, allow_expired)
        verified: VerifiedTokens = current_app.extensions[self.EXTENSION]
        claims = verified.get(encoded_token)
        if claims is not None:
            if claims["exp"] > time.time() - jwt_config.leeway:
                return dict(claims)
            verified.drop(encoded_token)
        claims = super()._decode_jwt_from_config(encoded_token, csrf_value, allow_expired)
        verified.keep(encoded_token, dict(claims))
        return claims


jwt = RememberingJWTManager()


class InspectApi(Api):
    """flask-smorest's Api publishing the error shape the app really answers with (API.md)."""

    from .schemas import ErrorSchema as ERROR_SCHEMA  # noqa: N811


api = InspectApi()
compress = Compress()
limiter = Limiter(key_func=get_remote_address, default_limits=[], headers_enabled=True)
