"""Password hashing with Argon2id (argon2-cffi's RFC 9106 low-memory profile in production)."""
from __future__ import annotations

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from flask import current_app

_strong = PasswordHasher()
# Tests create hundreds of users; a cheap profile keeps the suite fast and is never used in production.
_fast = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)
# Verifying against a dummy hash for unknown e-mails keeps login timing from revealing who has an account.
_DUMMY = _strong.hash("no-such-user-password")


def _hasher() -> PasswordHasher:
    return _fast if current_app.config.get("PASSWORD_HASH_FAST") else _strong


def hash_password(password: str) -> str:
    return _hasher().hash(password)


def verify_password(password_hash: str | None, password: str) -> bool:
    try:
        return _hasher().verify(password_hash or _DUMMY, password) and password_hash is not None
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False
