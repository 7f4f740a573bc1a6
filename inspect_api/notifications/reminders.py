"""The daily reminders, run by the worker at REMINDER_HOUR Town time, or by an operator
(`inspect-api reminders run [--date]`).

A pass reads what may be due from the agenda (inspect_api/agenda: the same items the Deadlines view
lists), asks rules.py which are due a reminder today, and writes one message per item, recipient and
Town day through the outbox under the key (kind, record, recipient, day). The key is unique in the
database (notifications.dedupe_key), so a second pass the same day, a restarted worker, or two workers
at once write each reminder once: an insert that hits the key does nothing. A finding's overdue notice
is keyed without a day: once per finding, ever.

If the worker was down at the hour, its first pass after starting finds no ReminderRun row for the
day and runs the day's pass then.
"""
from __future__ import annotations

import logging
from datetime import date, datetime, timedelta
from typing import Any, Callable

from flask import current_app
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from .. import clock
from ..agenda import services as agenda
from ..agenda.rules import Item as AgendaItem
from ..auth.models import User
from ..bonds.models import Bond
from ..extensions import db
from ..permits.models import Party
from . import events, outbox, rules
from .reminder_models import ReminderRun

log = logging.getLogger(__name__)

# The agenda's kinds, the reminders' names for them, and the record each reminder's key names. Both are
# part of every dedupe_key already stored (reminder:<kind>:<record>:<day>|<recipient>), so neither
# changes with the agenda: a reminder renamed, or keyed by another record, would be sent again after an
# upgrade. One agenda item may be due two reminders: a finding due tomorrow, and once newly overdue.
REMINDERS: dict[str, tuple[tuple[str, ...], Callable[[AgendaItem], str]]] = {
    "finding_due": (("finding_due", "finding_overdue"), lambda item: item.record_id),
    "order_due": (("order_deadline",), lambda item: item.record_id),
    # The permit, whether or not a report was started: the applicant is reminded of the permit's report.
    "final_report_due": (("final_report_due",), lambda item: item.permit_id),
    "cost_notice_due": (("cost_notice_due",), lambda item: item.record_id),
    # R-O3: each recipient's own window, so the notice to that recipient.
    "protest_window_ends": (("protest_window",), lambda item: item.records["notice"].id),
    "certificate_waiting": (("certificate_waiting",), lambda item: item.permit_id),
    "bond_phase_release": (("bond_release_waiting",), lambda item: item.record_id),
    "bond_full_release": (("bond_release_waiting",), lambda item: item.record_id),
}

# How far the pass reads the agenda. Ahead: as far as the furthest reminder, the final report's 60 days
# (R-F2); a window's are 7, an order's 3, and a finding's "tomorrow" (the next business day) is at most a
# week away. Back: a finding overdue longer than the look-back is not newly overdue. An item that waits
# (a certificate, a release) is read however long it has waited.
DAYS_AHEAD = max(rules.FINAL_REPORT_DAYS_AHEAD + rules.WINDOW_DAYS_LEFT + (rules.ORDER_DAYS_AHEAD, 7))


def due_items(today: date) -> list[tuple[rules.Item, AgendaItem]]:
    """Everything due a reminder on `today`, in a fixed order (concurrent passes then take the
    database's unique keys in the same order and wait for each other instead of deadlocking)."""
    found = agenda.items(today + timedelta(days=DAYS_AHEAD + 1), today, REMINDERS,
                         since=today - timedelta(days=rules.OVERDUE_LOOKBACK_DAYS))
    due = []
    for entry in found:
        names, record_of = REMINDERS[entry.kind]
        for name in names:
            item = rules.Item(name, record_of(entry), entry.due_on)
            if rules.due_today(item, today):
                due.append((item, entry))
    # One bond may wait on several phases: its reminders are told apart by the phase.
    return sorted(due, key=lambda pair: (pair[0].kind, pair[0].record_id,
                                         str(pair[1].records.get("row", {}).get("phase_id") or "")))


class _Addressees:
    """Whom the day's due reminders go to, loaded once for the pass: the parties of the orders and of
    the protest windows, the bonds whose phases wait, and the active supervisors (only if asked)."""

    def __init__(self, due: list[tuple[rules.Item, AgendaItem]]) -> None:
        party_ids: set[str] = set()
        bond_ids: set[str] = set()
        for item, entry in due:
            if item.kind == "order_deadline":
                party_ids.update(str(i) for i in entry.records["order"].recipient_party_ids or [])
            elif item.kind == "protest_window" and entry.records["notice"].party_id:
                party_ids.add(str(entry.records["notice"].party_id))
            elif item.kind == "bond_release_waiting" and "bond" not in entry.records:
                bond_ids.add(entry.record_id)
        self.parties = ({p.id: p for p in db.session.scalars(select(Party).where(Party.id.in_(party_ids)))}
                        if party_ids else {})
        self.bonds = {b.id: b for b in db.session.scalars(select(Bond).where(Bond.id.in_(bond_ids)))} if bond_ids else {}
        self._supervisors: list[outbox.Recipient] | None = None

    def supervisors(self) -> list[outbox.Recipient]:
        if self._supervisors is None:
            self._supervisors = [outbox.Recipient.from_user(u) for u in db.session.scalars(
                select(User).where(User.role == "supervisor", User.active.is_(True)).order_by(User.email))]
        return self._supervisors

    def of(self, ids: Any) -> list[outbox.Recipient]:
        return [outbox.Recipient.from_party(self.parties[str(i)]) for i in ids or [] if str(i) in self.parties]


# --- writing them ----------------------------------------------------------------------------------
def _write(item: rules.Item, entry: AgendaItem, today: date, to: _Addressees) -> list[Any]:
    key = rules.reminder_key(item.kind, item.record_id, today)
    left = rules.days_left(item.day, today)
    common = {"today": today, "day": item.day, "days_left": left}
    permit, data = entry.permit, entry.records
    if item.kind == "finding_overdue":
        return events.finding_overdue(data["finding"], permit)
    if item.kind == "finding_due":
        finding = data["finding"]
        return events.send("reminder_finding_due", finding, events.permit_people(permit),
                           {**common, "permit": permit, "finding": finding,
                            "photos": events.photo_links(finding.photo_ids)},
                           permit_id=permit.id, dedupe_key=key, record_type="finding")
    if item.kind == "order_deadline":
        order = data["order"]
        return events.send("reminder_order_deadline", order, to.of(order.recipient_party_ids),
                           {**common, "permit": permit, "order": order}, permit_id=permit.id, dedupe_key=key,
                           record_type="order")
    if item.kind == "final_report_due":
        return events.send("reminder_final_report_due", permit, events.permit_people(permit, owners=False),
                           {**common, "permit": permit, "completed_on": data["row"]["work_completed_on"]},
                           permit_id=permit.id, dedupe_key=key, record_type="permit",
                           link=lambda _r: f"#/permit/{permit.id}/final-report")
    if item.kind == "cost_notice_due":
        record = data["record"]
        return events.send("reminder_cost_notice_due", record, to.supervisors(),
                           {**common, "permit": permit, "record": record, "order": record.order},
                           permit_id=permit.id, dedupe_key=key, record_type="cost_recovery")
    if item.kind == "protest_window":
        record, notice = data["record"], data["notice"]
        recipients = to.of([notice.party_id] if notice.party_id else [])
        if not recipients:
            return []  # a recipient entered by name only has no address to remind
        return events.send("reminder_protest_window", record, recipients,
                           {**common, "permit": permit, "record": record, "order": record.order, "notice": notice},
                           permit_id=permit.id, dedupe_key=key, record_type="cost_recovery")
    if item.kind == "certificate_waiting":
        return events.send("reminder_certificate_waiting", permit, to.supervisors(),
                           {**common, "permit": permit, "step": data["step"]}, permit_id=permit.id,
                           dedupe_key=key, record_type="permit", link=lambda _r: f"#/closeout/{permit.id}")
    if item.kind == "bond_release_waiting":
        row = {**data["row"], "full": entry.kind == "bond_full_release"}
        bond = data.get("bond") or to.bonds[row["bond_id"]]
        # One bond may wait on several phases: the key names the phase, so each is reminded.
        return events.send("reminder_bond_release_waiting", bond, to.supervisors(),
                           {**common, "permit": permit, "row": row}, permit_id=permit.id,
                           dedupe_key=f"{key}:{row['phase_id'] or 'full'}", record_type="bond",
                           link=lambda _r: f"#/closeout/{permit.id}")
    raise ValueError(item.kind)


def run_pass(today: date, worker: str | None = None) -> int:
    """Write the day's reminders and mark the day done, in one transaction; returns how many
    messages were written (0 on a second pass the same day)."""
    due = due_items(today)
    to = _Addressees(due)
    written = 0
    for item, entry in due:
        written += len(_write(item, entry, today, to))
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
