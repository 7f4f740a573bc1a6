"""Password hashing with Argon2id (argon2-cffi's RFC 9106 low-memory profile in production), and
the password rule.

The rule follows NIST SP 800-63B section 5.1.1.2: a minimum length and a check against passwords
that are common, guessable or taken from the account's own e-mail or name, with no composition
rules. The check is zxcvbn (Dropbox's estimator: frequency lists of breached passwords, English
words, names, keyboard patterns, dates, repeats), so the list is a maintained one, not ours.
"""
from __future__ import annotations

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from flask import current_app
from zxcvbn import zxcvbn

from ..errors import ValidationFailed

MIN_LENGTH = 12
MAX_LENGTH = 256
# zxcvbn score 3 means "safely unguessable: moderate protection from offline slow-hash attacks"
# (about 10^8 guesses or more); scores 0-2 are the common, patterned and dictionary passwords.
MIN_SCORE = 3
# zxcvbn's own ceiling: its matching is quadratic in length, and a longer tail only adds strength.
_SCORED_PREFIX = 72

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


def needs_rehash(password_hash: str) -> bool:
    """True when the stored hash was made with other parameters than today's (argon2 upgrade)."""
    try:
        return _hasher().check_needs_rehash(password_hash)
    except (InvalidHashError, ValueError):
        return True


def password_problems(password: str, user_inputs: list[str] = ()) -> list[str]:
    """Why `password` is not acceptable (empty when it is). `user_inputs` are the account's own
    words (e-mail, its local part, name): a password built from them is as guessable as a common one."""
    if len(password) < MIN_LENGTH:
        return [f"Use at least {MIN_LENGTH} characters."]
    if len(password) > MAX_LENGTH:
        return [f"Use at most {MAX_LENGTH} characters."]
    words = []
    for value in user_inputs:
        if value:
            words.append(value)
            words.extend(part for part in value.replace("@", " ").replace(".", " ").split() if len(part) > 2)
    result = zxcvbn(password[:_SCORED_PREFIX], user_inputs=words)
    if result["score"] >= MIN_SCORE:
        return []
    feedback = result.get("feedback") or {}
    hint = feedback.get("warning") or "This password is too easy to guess."
    advice = " ".join(feedback.get("suggestions") or ["Try a few uncommon words together."])
    return [f"{hint} {advice}".strip()]


def check_password(password: str, *, email: str | None = None, name: str | None = None,
                   field: str = "password") -> None:
    """422 validation_error on `field` unless the password meets the rule."""
    problems = password_problems(password, [email or "", name or ""])
    if problems:
        raise ValidationFailed("The password is too short or too easy to guess.", errors={field: problems})
