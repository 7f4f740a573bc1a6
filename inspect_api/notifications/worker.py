"""The worker that delivers the outbox (`inspect-api worker [--once]`).

Each message goes through three short transactions, none open while the mail server is talked to
(on SQLite a writer's transaction would hold the database's one write lock for the whole send):

1. claim: due queued messages, `SELECT ... FOR UPDATE SKIP LOCKED` (PostgreSQL; SQLite serialises
   writers with BEGIN IMMEDIATE instead), marked as this worker's until `lease_until`, each given
   its Message-ID the first time;
2. take: right before sending, the lease is renewed and the attempt counted, only if the message is
   still this worker's and its lease has not run out; otherwise another worker owns it now;
3. record: sent (with the server's reply), failed for good (a 5xx, with the reply), or queued again
   with exponential backoff (a 4xx, a connection error, or a server that cannot be spoken to over TLS
   as SMTP_TLS requires, with the reason as its reply) until NOTIFY_MAX_ATTEMPTS.

A worker that dies mid-send leaves its claim to expire; another worker then sends the message again
with the same Message-ID. The lease (NOTIFY_LEASE_SECONDS) is far longer than one send can take
(a few SMTP_TIMEOUT_SECONDS), so a live worker's message is never taken from it.
"""
from __future__ import annotations

import logging
import os
import signal
import socket
import time
import uuid
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Callable

import sqlalchemy as sa
from flask import current_app
from sqlalchemy import select, update

from .. import clock
from ..errors import NotFound
from ..extensions import db
from . import delivery
from .models import Notification

log = logging.getLogger(__name__)

# Work the worker does at the start of each pass, before delivering (so what it enqueues goes out in
# the same pass), e.g. the daily reminders: each a function of no arguments, run inside the app
# context, that commits its own work (reminders go through outbox.enqueue with a dedupe_key, so
# several workers running one hook write each reminder once). `--once` runs them too.
CYCLE_HOOKS: list[Callable[[], None]] = []


def run_hooks() -> None:
    for hook in CYCLE_HOOKS:
        hook()
        db.session.commit()


@dataclass
class Tally:
    sent: int = 0
    failed: int = 0
    retrying: int = 0
    skipped: int = 0
    ids: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        return f"sent {self.sent}, failed {self.failed}, to retry {self.retrying}"


def worker_name() -> str:
    return f"{socket.gethostname()[:40]}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def _setting(name: str) -> int:
    return int(current_app.config[name])


def backoff(attempts: int) -> timedelta:
    """Seconds before the next try after `attempts` tries: the base, doubled each time, capped."""
    seconds = _setting("NOTIFY_RETRY_SECONDS") * (2 ** max(attempts - 1, 0))
    return timedelta(seconds=min(seconds, _setting("NOTIFY_RETRY_MAX_SECONDS")))


def claim(worker: str, limit: int) -> list[str]:
    """Mark up to `limit` due messages as this worker's; other workers skip the rows locked here."""
    now = clock.now()
    query = (select(Notification)
             .where(Notification.status == "queued", Notification.next_attempt_at <= now,
                    sa.or_(Notification.lease_until.is_(None), Notification.lease_until < now))
             .order_by(Notification.next_attempt_at, Notification.id).limit(limit)
             .with_for_update(skip_locked=True))
    messages = list(db.session.scalars(query))
    lease = now + timedelta(seconds=_setting("NOTIFY_LEASE_SECONDS"))
    for message in messages:
        message.claimed_by, message.lease_until = worker, lease
        message.message_id = message.message_id or delivery.new_message_id()
    db.session.commit()
    return [m.id for m in messages]


def _take(message_id: str, worker: str) -> bool:
    now = clock.now()
    result = db.session.execute(
        update(Notification)
        .where(Notification.id == message_id, Notification.claimed_by == worker, Notification.status == "queued",
               Notification.lease_until > now)
        .values(lease_until=now + timedelta(seconds=_setting("NOTIFY_LEASE_SECONDS")), last_attempt_at=now,
                attempts=Notification.attempts + 1)
        .execution_options(synchronize_session=False))
    db.session.commit()
    return result.rowcount == 1


def _record(message_id: str, worker: str, outcome: str, reply: str, reason: str | None = None) -> str:
    message = db.session.get(Notification, message_id, with_for_update=True, populate_existing=True)
    if message is None or message.claimed_by != worker:
        db.session.rollback()  # another worker took it over after our lease ran out: it records
        return "skipped"
    now = clock.now()
    message.smtp_reply, message.claimed_by, message.lease_until = reply, None, None
    if outcome == "sent":
        message.status, message.sent_at, message.failure_reason, message.next_attempt_at = "sent", now, None, None
    elif outcome == "temporary" and message.attempts < _setting("NOTIFY_MAX_ATTEMPTS"):
        message.next_attempt_at = now + backoff(message.attempts)
        message.failure_reason = None
        outcome = "retrying"
    else:
        if outcome == "temporary":
            reason = (f"Not delivered after {message.attempts} attempts; the mail server last answered: {reply}")
        message.status, message.next_attempt_at = "failed", None
        message.failure_reason = reason or f"The recipient's mail server refused the message: {reply}"
        outcome = "failed"
    db.session.commit()
    return outcome


def deliver(message_id: str, worker: str, transport) -> str:
    """Send one claimed message; returns sent | retrying | failed | skipped."""
    if not _take(message_id, worker):
        return "skipped"
    message = db.session.get(Notification, message_id, populate_existing=True)
    try:
        mail = delivery.build(message)
    except NotFound:
        db.session.rollback()
        return _record(message_id, worker, "permanent", "not sent",
                       "An attachment of this message is missing from storage; it was not sent.")
    except (ValueError, TypeError, LookupError) as exc:  # one bad message must not stop the others
        log.exception("message %s could not be built", message_id)
        db.session.rollback()
        return _record(message_id, worker, "permanent", "not sent", f"The message could not be built: {exc}")
    recipient = message.recipient_email
    db.session.rollback()  # no transaction stays open while the mail server is talked to
    try:
        reply = transport.send(mail, delivery.envelope_sender(), recipient, name=message_id)
    except delivery.TemporaryFailure as exc:
        return _record(message_id, worker, "temporary", exc.reply)
    except delivery.PermanentFailure as exc:
        return _record(message_id, worker, "permanent", exc.reply)
    except UnicodeError as exc:  # an address or header smtplib cannot put on the wire
        return _record(message_id, worker, "permanent", "not sent", f"The message could not be sent: {exc}")
    return _record(message_id, worker, "sent", reply)


def drain(worker: str | None = None, *, stop: Callable[[], bool] = lambda: False) -> Tally:
    """Deliver every message due now (retries falling due meanwhile included), then return."""
    worker = worker or worker_name()
    tally = Tally()
    transport = delivery.transport()
    try:
        while not stop():
            ids = claim(worker, _setting("NOTIFY_BATCH"))
            if not ids:
                break
            for message_id in ids:
                if stop():
                    break
                outcome = deliver(message_id, worker, transport)
                setattr(tally, outcome, getattr(tally, outcome) + 1)
                tally.ids.append(message_id)
    finally:
        transport.close()
        db.session.rollback()
    return tally


def run(once: bool = False, echo: Callable[[str], None] = print) -> Tally:
    """`--once`: drain and return. Otherwise poll every NOTIFY_POLL_SECONDS until SIGTERM or SIGINT,
    finishing the message in hand before it stops."""
    worker = worker_name()
    if once:
        run_hooks()  # e.g. the day's reminders, so a cron `--once` delivers them too
        return drain(worker)
    stopping = {"now": False}

    def _stop(signum, _frame):
        stopping["now"] = True

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, _stop)
    echo(f"worker {worker} delivering every {_setting('NOTIFY_POLL_SECONDS')} s; stop with Ctrl-C or SIGTERM")
    total = Tally()
    while not stopping["now"]:
        try:
            run_hooks()
            tally = drain(worker, stop=lambda: stopping["now"])
        except Exception:  # the database or the store was away: log, wait, try again
            log.exception("notification worker pass failed")
            db.session.rollback()
            tally = Tally()
        if tally.ids:
            echo(str(tally))
        for name in ("sent", "failed", "retrying"):
            setattr(total, name, getattr(total, name) + getattr(tally, name))
        for _ in range(max(_setting("NOTIFY_POLL_SECONDS"), 1) * 10):
            if stopping["now"]:
                break
            time.sleep(0.1)
    return total


# The daily reminders (reminders.py) run on every pass; they decide themselves whether a day's is due.
from . import reminders as _reminders  # noqa: E402

CYCLE_HOOKS.append(_reminders.cycle)

# The audit trail's daily seals (audit_seals.py): each pass seals any finished day not yet sealed (one
# cheap query when there is none) and notes the seal messages delivered.
from . import audit_seal_mail as _audit_seal_mail  # noqa: E402

CYCLE_HOOKS.append(_audit_seal_mail.cycle)


# Residents' contact details on reports from the public closed PUBLIC_REPORT_CONTACT_DAYS ago are erased on
# every pass (most passes find none); a failure is logged and tried again next pass, never stopping delivery.
from ..public.reports import erase_due_contacts as _erase_due_contacts  # noqa: E402


def erase_public_contacts() -> None:
    try:
        erased = _erase_due_contacts()
        db.session.commit()
    except Exception:  # noqa: BLE001  the next pass tries again; delivery goes on
        db.session.rollback()
        log.exception("erasing residents' contact details failed")
        return
    if erased:
        log.info("contact details erased from %d report(s) from the public", len(erased))


CYCLE_HOOKS.append(erase_public_contacts)
