"""Sign-in limits (README "Sign-in limits").

Three counts guard a password check, each counting failures only:
- per client address, LOGIN_RATE_LIMIT: one client trying many accounts;
- per account and client address, LOGIN_RATE_LIMIT: one client trying one account.
  Both live in the limiter's storage (RATELIMIT_STORAGE_URI) and refuse that client only: the
  account's owner, from anywhere else, still signs in.
- per account, from every address: beyond FREE_FAILURES consecutive failures each attempt waits for
  its turn, the wait doubling from a second up to MAX_DELAY_SECONDS; the account is slowed, never
  locked, and a success starts the count again (NIST SP 800-63B 5.2.2). This count is in the database
  (LoginThrottle), so every API process sees it whatever the limiter storage is.

"Client address" is request.remote_addr: the peer, or with TRUSTED_PROXIES set the address the
trusted proxies name (werkzeug's ProxyFix, applied in create_app).

A refused attempt answers 429 with Retry-After and is written to the audit log in a transaction of
its own: the refused request's own transaction is rolled back, the audit row stays.
"""
from __future__ import annotations

import math
import time
from datetime import datetime, timedelta, timezone
from typing import Any, Callable, TypeVar

import sqlalchemy as sa
from flask import current_app, request
from flask.wrappers import Response
from limits import parse_many
from sqlalchemy.dialects import postgresql, sqlite

from .. import audit
from ..errors import error_response
from ..extensions import db, limiter
from .models import LoginThrottle, User

FREE_FAILURES = 20
MAX_DELAY_SECONDS = 60
# A count untouched this long starts again: an account nobody has tried for a day is no longer
# under attack, and the rows of e-mails that never signed in do not pile up.
QUIET_RESET = timedelta(hours=24)
PURGE_BATCH = 100

T = TypeVar("T")
_table = LoginThrottle.__table__


def _wall_now() -> datetime:
    """The throttle runs on the wall clock, like the limiter's windows and the tokens, not on the
    Town's business clock (clock.now) that tests set to other days."""
    return datetime.now(timezone.utc)


def client_address() -> str:
    return request.remote_addr or "-"


def apart(work: Callable[[], T]) -> T:
    """Run `work` in a transaction of its own and commit it, whatever becomes of the request. The
    request's transaction is rolled back first: it holds nothing to keep (the attempt is refused or
    has failed, or has not begun), and on SQLite a second writer would wait on its lock."""
    db.session.rollback()
    try:
        result = work()
        db.session.commit()
    except Exception:
        db.session.rollback()
        raise
    return result


# --- windows per client (limiter storage) ---------------------------------------------------------
def _items():
    return parse_many(current_app.config["LOGIN_RATE_LIMIT"])


def window_wait(*identifiers: str) -> int | None:
    """Seconds until `identifiers` are back under every LOGIN_RATE_LIMIT window; None while under."""
    if not limiter.enabled:
        return None
    waits = []
    for item in _items():
        if not limiter.limiter.test(item, *identifiers):
            reset_at, _remaining = limiter.limiter.get_window_stats(item, *identifiers)
            waits.append(max(1, math.ceil(reset_at - time.time())))
    return max(waits, default=None)


def count_in_windows(*identifiers: str) -> None:
    if limiter.enabled:
        for item in _items():
            limiter.limiter.hit(item, *identifiers)


def _address_key(address: str) -> tuple[str, ...]:
    return ("login-address", address)


def _pair_key(account: str, address: str) -> tuple[str, ...]:
    return ("login-account", account, address)


# --- the account's consecutive failures (database) ------------------------------------------------
def _delay(failures: int) -> timedelta:
    """The wait after `failures` consecutive failures: none up to FREE_FAILURES, then 1 s doubling
    with each further failure, at most MAX_DELAY_SECONDS (one attempt a minute)."""
    beyond = failures - FREE_FAILURES
    return timedelta(seconds=min(MAX_DELAY_SECONDS, 2 ** (beyond - 1))) if beyond > 0 else timedelta(0)


def _seconds(delta: timedelta) -> int:
    return max(1, math.ceil(delta.total_seconds()))


def _account_wait(account: str) -> int | None:
    """Seconds the account's next attempt must wait, or None; an attempt let through on a slowed
    account takes its turn (the next one waits), so concurrent attempts cannot share a turn."""
    now = _wall_now()
    row = db.session.execute(sa.select(_table.c.failures, _table.c.last_failed_at, _table.c.next_allowed_at)
                             .where(_table.c.account == account)).one_or_none()
    if row is None or row.failures <= FREE_FAILURES or row.last_failed_at <= now - QUIET_RESET:
        return None
    if row.next_allowed_at is not None and row.next_allowed_at > now:
        return _seconds(row.next_allowed_at - now)

    def take_turn() -> int | None:
        taken = db.session.execute(
            sa.update(_table).where(_table.c.account == account,
                                    sa.or_(_table.c.next_allowed_at.is_(None), _table.c.next_allowed_at <= now))
            .values(next_allowed_at=now + _delay(row.failures))).rowcount
        if taken:
            return None
        # another attempt took this turn between the read and the update
        next_at = db.session.scalar(sa.select(_table.c.next_allowed_at).where(_table.c.account == account))
        return _seconds(next_at - now) if next_at is not None and next_at > now else 1

    return apart(take_turn)


def _count_account_failure(account: str) -> None:
    """One more consecutive failure (or the first of a new count after QUIET_RESET), and the time the
    account may next be tried; one statement, so processes counting at once never lose a failure."""
    now = _wall_now()
    stale = now - QUIET_RESET
    insert = postgresql.insert if db.session.get_bind().dialect.name == "postgresql" else sqlite.insert
    stmt = insert(_table).values(account=account, failures=1, last_failed_at=now, next_allowed_at=None)
    stmt = stmt.on_conflict_do_update(index_elements=[_table.c.account], set_={
        "failures": sa.case((_table.c.last_failed_at <= stale, 1), else_=_table.c.failures + 1),
        "last_failed_at": stmt.excluded.last_failed_at,
    }).returning(_table.c.failures)
    failures = db.session.execute(stmt).scalar_one()
    next_at = now + _delay(failures) if failures > FREE_FAILURES else None
    db.session.execute(sa.update(_table).where(_table.c.account == account).values(next_allowed_at=next_at))
    # Counts gone quiet are dropped a few at a time; rows another attempt holds are left for later
    # (SKIP LOCKED on PostgreSQL), so two failures never wait on each other here.
    quiet = (sa.select(_table.c.account).where(_table.c.last_failed_at <= stale, _table.c.account != account)
             .limit(PURGE_BATCH).with_for_update(skip_locked=True))
    db.session.execute(sa.delete(_table).where(_table.c.account.in_(quiet)))


# --- what the sign-in route calls -----------------------------------------------------------------
def _refusal(action: str, reason: str, wait: int, changes: dict[str, Any], *, record_type: str, record_id: str,
             actor: Any = None) -> Response:
    apart(lambda: audit.record(action, record_type, record_id, {"reason": reason, "retry_after": wait, **changes},
                               actor=actor))
    response = error_response(429, "Too many attempts; wait a little and try again.", "too_many_requests")
    response.headers["Retry-After"] = str(wait)
    return response


def _login_refusal(account: str, reason: str, wait: int) -> Response:
    user_id = db.session.scalar(sa.select(User.id).where(sa.func.lower(User.email) == account))
    return _refusal("auth.login_refused", reason, wait, {"email": account},
                    record_type="user" if user_id else "login", record_id=user_id or "unknown-account")


def admit_login(account: str) -> Response | None:
    """None when this client may try the (normalised) e-mail `account` now, else the 429 to answer.
    The client's own limits come first, so a refused client never takes the account's turn."""
    address = client_address()
    for reason, identifiers in (("address_limit", _address_key(address)),
                                ("account_address_limit", _pair_key(account, address))):
        wait = window_wait(*identifiers)
        if wait is not None:
            return _login_refusal(account, reason, wait)
    wait = _account_wait(account)
    if wait is not None:
        return _login_refusal(account, "account_slowed", wait)
    return None


def login_failed(account: str) -> None:
    """Count a wrong password (or unknown or inactive account) against this client and the account."""
    address = client_address()
    count_in_windows(*_address_key(address))
    count_in_windows(*_pair_key(account, address))
    apart(lambda: _count_account_failure(account))


def login_succeeded(account: str) -> None:
    """A success ends the run of failures (in the request's transaction: it commits with the sign-in)."""
    db.session.execute(sa.delete(_table).where(_table.c.account == account))


# --- an admin confirming their own password -------------------------------------------------------
def _confirm_key(actor: User) -> tuple[str, ...]:
    return ("admin-confirm", actor.id)


def admit_confirmation(actor: User, target: User) -> Response | None:
    """None when `actor` may try their password now, else the 429 to answer. Counted per account:
    whoever holds an admin's token cannot guess that admin's password faster than a sign-in could."""
    wait = window_wait(*_confirm_key(actor))
    if wait is None:
        return None
    actor_id = actor.id
    return _refusal("auth.confirmation_refused", "account_limit", wait, {"actor_id": actor_id},
                    record_type="user", record_id=target.id, actor=actor)


def confirmation_failed(actor: User) -> None:
    count_in_windows(*_confirm_key(actor))
