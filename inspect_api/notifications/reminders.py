"""The daily reminders (issue 15 point 3), run by the worker at REMINDER_HOUR Town time, or by an
operator (`inspect-api reminders run [--date]`).

A pass reads what may be due (items), asks rules.py which are due today, and writes one message per
item, recipient and Town day through the outbox under the key (kind, record, recipient, day). The key
is unique in the database (notifications.dedupe_key), so a second pass the same day, a restarted
worker, or two workers at once write each reminder once: an insert that hits the key does nothing.
A finding's overdue notice is keyed without a day: once per finding, ever.

If the worker was down at the hour, its first pass after starting finds no ReminderRun row for the
day and runs the day's pass then.
"""
from __future__ import annotations

import logging
from datetime import date, datetime, timedelta
from typing import Any, Iterable

from flask import current_app
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from .. import clock
from ..extensions import db
from . import events, outbox, rules
from .reminder_models import ReminderRun

log = logging.getLogger(__name__)


def _supervisors() -> list[outbox.Recipient]:
    from ..auth.models import User
    return [outbox.Recipient.from_user(u) for u in db.session.scalars(
        select(User).where(User.role == "supervisor", User.active.is_(True)).order_by(User.email))]


def _permit(permit_id: str):
    from ..permits.models import Permit
    return db.session.get(Permit, permit_id)


def _parties(ids: Iterable[str]) -> list[outbox.Recipient]:
    from ..permits.models import Party
    ids = [str(i) for i in ids or []]
    parties = {p.id: p for p in db.session.scalars(select(Party).where(Party.id.in_(ids)))} if ids else {}
    return [outbox.Recipient.from_party(parties[i]) for i in ids if i in parties]


# --- what may be due ------------------------------------------------------------------------------
def _findings(today: date) -> list[tuple[rules.Item, dict[str, Any]]]:
    from ..inspections.models import Finding
    low = today - timedelta(days=rules.OVERDUE_LOOKBACK_DAYS)
    high = today + timedelta(days=7)  # the next business day is at most a week away
    found = []
    for finding in db.session.scalars(select(Finding).where(
            Finding.status == "open", Finding.deleted_at.is_(None), Finding.due_on >= low, Finding.due_on <= high)
            .order_by(Finding.id)):
        for kind in ("finding_due", "finding_overdue"):
            found.append((rules.Item(kind, finding.id, finding.due_on), {"finding": finding}))
    return found


def _orders(today: date) -> list[tuple[rules.Item, dict[str, Any]]]:
    from ..enforcement.models import Order
    query = select(Order).where(Order.status == "open",
                                Order.deadline == today + timedelta(days=rules.ORDER_DAYS_AHEAD)).order_by(Order.id)
    return [(rules.Item("order_deadline", o.id, o.deadline), {"order": o}) for o in db.session.scalars(query)]


def _final_reports(today: date) -> list[tuple[rules.Item, dict[str, Any]]]:
    from ..completion.reports import final_reports_due
    before = today + timedelta(days=max(rules.FINAL_REPORT_DAYS_AHEAD) + 1)
    return [(rules.Item("final_report_due", row["permit_id"], row["due_on"]), {"row": row})
            for row in final_reports_due(before) if row["due_on"] >= today]


def _cost_windows(today: date) -> list[tuple[rules.Item, dict[str, Any]]]:
    """R-O3: the Town's notice due within 30 days of abatement (none sent yet), and each
    recipient's protest window from their own receipt (no protest filed)."""
    from ..enforcement import rules as enforcement_rules
    from ..enforcement.models import CostRecovery
    found = []
    query = select(CostRecovery).where(CostRecovery.decision.is_(None), CostRecovery.court_decision_on.is_(None))
    for record in db.session.scalars(query.order_by(CostRecovery.id)):
        if not any(n.sent_on for n in record.recipients):
            found.append((rules.Item("cost_notice_due", record.id,
                                     enforcement_rules.notice_due_by(record.abatement_completed_on)),
                          {"record": record}))
            continue
        for notice in record.recipients:
            if notice.received_on and notice.protest_filed_on is None:
                found.append((rules.Item("protest_window", notice.id,
                                         enforcement_rules.protest_window_ends(notice.received_on)),
                              {"record": record, "notice": notice}))
    return found


def _certificates(today: date) -> list[tuple[rules.Item, dict[str, Any]]]:
    """R-F3: permits whose work is complete, whose notice or report waits for review (submitted) or
    was accepted and waits for its certificate."""
    from ..completion.certificates import certificate_for_permit, closeout_basis
    from ..permits.models import Permit
    found = []
    for permit in db.session.scalars(select(Permit).where(Permit.status == "work_complete").order_by(Permit.id)):
        basis = closeout_basis(permit)
        if basis is None or basis.status not in ("submitted", "accepted") or certificate_for_permit(permit.id):
            continue
        moment = basis.reviewed_at if basis.status == "accepted" else basis.submitted_at
        since = clock.local_date(moment) if moment else None
        found.append((rules.Item("certificate_waiting", permit.id, since or today),
                      {"permit": permit, "basis": basis, "step": "issue the certificate of completion"
                       if basis.status == "accepted" else f"review the {basis.__tablename__[:-1].replace('_', ' ')}"}))
    return found


def _bond_releases(today: date) -> list[tuple[rules.Item, dict[str, Any]]]:
    """R-D2: a phase's share once the phase is complete in compliance; R-D3: the rest of a bond once
    the certificate of completion is issued."""
    from ..bonds.models import Bond
    from ..bonds.services import bond_phases_awaiting_release
    from ..completion.models import Certificate
    found = [(rules.Item("bond_release_waiting", row["bond_id"], row["completed_on"] or today),
              {"row": {**row, "full": False}}) for row in bond_phases_awaiting_release()]
    for bond, cert in db.session.execute(select(Bond, Certificate).join(
            Certificate, Certificate.permit_id == Bond.permit_id).where(Bond.released_amount < Bond.amount)
            .order_by(Bond.id)):
        row = {"bond_id": bond.id, "permit_id": bond.permit_id, "phase_id": None, "full": True,
               "amount": bond.amount - bond.released_amount, "certificate": cert.number}
        found.append((rules.Item("bond_release_waiting", bond.id, cert.issued_on), {"row": row}))
    return found


SOURCES = (_findings, _orders, _final_reports, _cost_windows, _certificates, _bond_releases)


# --- writing them ----------------------------------------------------------------------------------
def _write(item: rules.Item, data: dict[str, Any], today: date) -> list[Any]:
    key = rules.reminder_key(item.kind, item.record_id, today)
    left = rules.days_left(item.day, today)
    common = {"today": today, "day": item.day, "days_left": left}
    if item.kind == "finding_overdue":
        finding = data["finding"]
        return events.finding_overdue(finding, _permit(finding.permit_id))
    if item.kind == "finding_due":
        finding = data["finding"]
        permit = _permit(finding.permit_id)
        return events.send("reminder_finding_due", finding, events.permit_people(permit),
                           {**common, "permit": permit, "finding": finding,
                            "photos": events.photo_links(finding.photo_ids)},
                           permit_id=permit.id, dedupe_key=key, record_type="finding")
    if item.kind == "order_deadline":
        order = data["order"]
        permit = _permit(order.permit_id)
        return events.send("reminder_order_deadline", order, _parties(order.recipient_party_ids),
                           {**common, "permit": permit, "order": order}, permit_id=permit.id, dedupe_key=key,
                           record_type="order")
    if item.kind == "final_report_due":
        permit = _permit(data["row"]["permit_id"])
        return events.send("reminder_final_report_due", permit, events.permit_people(permit, owners=False),
                           {**common, "permit": permit, "completed_on": data["row"]["work_completed_on"]},
                           permit_id=permit.id, dedupe_key=key, record_type="permit",
                           link=lambda _r: f"#/permit/{permit.id}/final-report")
    if item.kind == "cost_notice_due":
        record = data["record"]
        permit = _permit(record.permit_id)
        return events.send("reminder_cost_notice_due", record, _supervisors(),
                           {**common, "permit": permit, "record": record, "order": record.order},
                           permit_id=permit.id, dedupe_key=key, record_type="cost_recovery")
    if item.kind == "protest_window":
        record, notice = data["record"], data["notice"]
        permit = _permit(record.permit_id)
        from ..permits.models import Party
        party = db.session.get(Party, notice.party_id) if notice.party_id else None
        if party is None:
            return []  # a recipient entered by name only has no address to remind
        return events.send("reminder_protest_window", record, [outbox.Recipient.from_party(party)],
                           {**common, "permit": permit, "record": record, "order": record.order, "notice": notice},
                           permit_id=permit.id, dedupe_key=key, record_type="cost_recovery")
    if item.kind == "certificate_waiting":
        permit = data["permit"]
        return events.send("reminder_certificate_waiting", permit, _supervisors(),
                           {**common, "permit": permit, "step": data["step"]}, permit_id=permit.id,
                           dedupe_key=key, record_type="permit", link=lambda _r: f"#/closeout/{permit.id}")
    if item.kind == "bond_release_waiting":
        row = data["row"]
        permit = _permit(row["permit_id"])
        from ..bonds.models import Bond
        bond = db.session.get(Bond, row["bond_id"])
        # One bond may wait on several phases: the key names the phase, so each is reminded.
        return events.send("reminder_bond_release_waiting", bond, _supervisors(),
                           {**common, "permit": permit, "row": row}, permit_id=permit.id,
                           dedupe_key=f"{key}:{row['phase_id'] or 'full'}", record_type="bond",
                           link=lambda _r: f"#/closeout/{permit.id}")
    raise ValueError(item.kind)


def due_items(today: date) -> list[tuple[rules.Item, dict[str, Any]]]:
    """Everything due a reminder on `today`, in a fixed order (concurrent passes then take the
    database's unique keys in the same order and wait for each other instead of deadlocking)."""
    items = [pair for source in SOURCES for pair in source(today) if rules.due_today(pair[0], today)]
    return sorted(items, key=lambda pair: (pair[0].kind, pair[0].record_id))


def run_pass(today: date, worker: str | None = None) -> int:
    """Write the day's reminders and mark the day done, in one transaction; returns how many
    messages were written (0 on a second pass the same day)."""
    written = 0
    for item, data in due_items(today):
        written += len(_write(item, data, today))
    run = db.session.get(ReminderRun, today)
    if run is None:
        try:
            with db.session.begin_nested():
                db.session.add(ReminderRun(local_date=today, worker=worker, written=written))
        except IntegrityError:  # another worker finished the same day's pass first
            pass
    else:
        run.finished_at, run.written = clock.now(), run.written + written
    db.session.commit()
    return written


def pass_due(now: datetime | None = None) -> date | None:
    """The Town day whose pass is due now: today, once the local hour reaches REMINDER_HOUR and no
    pass has finished today (also when the worker was down at the hour and has just started)."""
    local = (now or clock.now()).astimezone(clock.town_zone())
    if local.hour < int(current_app.config.get("REMINDER_HOUR", 7)):
        return None
    day = local.date()
    return None if db.session.get(ReminderRun, day) is not None else day


def cycle(worker: str | None = None) -> int:
    """The worker's hook: run today's pass if it is due; the worker delivers what it wrote."""
    if not current_app.config.get("REMINDERS_ENABLED", True):
        return 0
    day = pass_due()
    db.session.rollback()
    if day is None:
        return 0
    try:
        written = run_pass(day, worker)
    except Exception:  # noqa: BLE001  the day stays undone and the next pass tries again; delivery goes on
        db.session.rollback()
        log.exception("reminder pass for %s failed", day)
        return 0
    log.info("reminders for %s: %d messages written", day, written)
    return written
