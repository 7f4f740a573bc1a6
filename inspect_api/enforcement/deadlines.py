"""The supervisors' deadlines view: everything due before a day, soonest first (API and CLI alike).

Findings (inspections), final reports (completion) and bond phases (bonds) are read through their
domains' own functions.
"""
from __future__ import annotations

from datetime import date, timedelta
from typing import Any, Iterable

from sqlalchemy import select

from ..bonds.services import bond_phases_awaiting_release
from ..completion.reports import final_reports_due
from ..extensions import db
from ..inspections.models import Finding
from ..program.services import overdue_inspections
from ..permits.models import Permit
from .. import clock
from . import rules
from .models import CostRecovery, Order

DEFAULT_DAYS_AHEAD = 7


def default_before(today: date) -> date:
    """The next seven days: items due on or before today + 7."""
    return today + timedelta(days=DEFAULT_DAYS_AHEAD + 1)


def _item(due_on: date, kind: str, permit_id: str | None, record_type: str, record_id: str, summary: str,
          today: date, overdue: bool | None = None) -> dict[str, Any]:
    return {"due_on": due_on, "kind": kind, "permit_id": permit_id, "permit_number": None,
            "record_type": record_type, "record_id": str(record_id), "summary": summary,
            "overdue": rules.is_overdue(due_on, today) if overdue is None else overdue}


def _clip(text: str | None, length: int = 90) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= length else text[: length - 3] + "..."


def _findings(before: date, today: date) -> Iterable[dict[str, Any]]:
    query = select(Finding).where(Finding.status == "open", Finding.deleted_at.is_(None), Finding.due_on < before)
    return [_item(f.due_on, "finding_due", f.permit_id, "finding", f.id,
                  f"{f.kind.replace('_', ' ')} ({f.severity}): {_clip(f.required_action or f.description)}", today)
            for f in db.session.scalars(query)]


def _orders(before: date, today: date) -> Iterable[dict[str, Any]]:
    query = select(Order).where(Order.status == "open", Order.deadline < before)
    return [_item(o.deadline, "order_due", o.permit_id, "order", o.id,
                  f"{o.number} ({', '.join(k.replace('_', ' ') for k in o.kinds)}): "
                  f"{_clip(o.requirements[0]['text'] if o.requirements else '')}", today)
            for o in db.session.scalars(query)]


def _cost_windows(before: date, today: date) -> Iterable[dict[str, Any]]:
    items = []
    query = select(CostRecovery).where(CostRecovery.decision.is_(None), CostRecovery.court_decision_on.is_(None))
    for record in db.session.scalars(query):
        if not any(n.sent_on for n in record.recipients):
            due = rules.notice_due_by(record.abatement_completed_on)
            if due < before:
                items.append(_item(due, "cost_notice_due", record.permit_id, "cost_recovery", record.id,
                                   f"Notify the costs of the abatement completed {record.abatement_completed_on}",
                                   today))
            continue
        # R-O3: each recipient's window runs from their own receipt.
        for notice in record.recipients:
            if not notice.received_on or notice.protest_filed_on is not None:
                continue
            ends = rules.protest_window_ends(notice.received_on)
            # A window that has ended is no longer anyone's deadline: the costs are then a lien if unpaid.
            if today <= ends < before:
                items.append(_item(ends, "protest_window_ends", record.permit_id, "cost_recovery", record.id,
                                   f"Protest window of {notice.name} ({notice.role}) on the costs notified "
                                   f"{notice.sent_on} ends", today))
    return items


def _final_reports(before: date, today: date) -> Iterable[dict[str, Any]]:
    # Rows are reports not yet submitted; overdue is judged by this view's clock like every other row.
    return [_item(row["due_on"], "final_report_due", row["permit_id"],
                  "final_report" if row.get("final_report_id") else "permit",
                  row.get("final_report_id") or row["permit_id"],
                  f"Final report due (work completed {row.get('work_completed_on')})"
                  + (f", last one {row['final_report_status']}" if row.get("final_report_status") else ""),
                  today)
            for row in final_reports_due(before)]


def _bond_phases(before: date, today: date) -> Iterable[dict[str, Any]]:
    items = []
    for row in bond_phases_awaiting_release():
        # Awaiting since the phase was completed in compliance; the bylaw sets no release deadline,
        # so these are listed for action and never shown as overdue.
        since = row.get("completed_on") or today
        if since < before:
            items.append(_item(since, "bond_phase_release", row["permit_id"], "bond", row["bond_id"],
                               f"Release {row.get('amount')} for phase {row.get('phase_number')} "
                               f"({row.get('phase_name')}), complete in compliance", today, overdue=False))
    return items


def _lapsed_approvals(before: date, today: date) -> Iterable[dict[str, Any]]:
    """R-A6: approvals resting on a B5/B6 exemption (no ALDR/LDP number) whose order of conditions or
    Planning Board decision expires, listed from the day after its last valid day: from then on the
    project needs a review again. One that would fall back to not covered is not listed once lapsed."""
    from ..permits.models import PermitExemption
    from ..permits.rules import DOCUMENT_EXEMPTIONS, approval_lapsed
    query = select(Permit).where(Permit.status.in_(("approved", "active", "work_complete")), Permit.number.is_(None))
    items = []
    for permit in db.session.scalars(query):
        days = [e.expires_on for e in db.session.scalars(select(PermitExemption).where(
            PermitExemption.permit_id == permit.id, PermitExemption.status == "accepted",
            PermitExemption.kind.in_(DOCUMENT_EXEMPTIONS))) if e.expires_on]
        if not days:
            continue
        lapse = max(days) + timedelta(days=1)
        if lapse >= before:
            continue
        if lapse <= today:  # as it stands today; this view is a read and stores nothing
            if not approval_lapsed(permit.status, permit.review_level_today, permit.number):
                continue
        items.append(_item(lapse, "approval_lapsed", permit.id, "permit", permit.id,
                           f"{permit.site_address}: the exemption under the approval lapses; the project needs "
                           "a review again before work continues (R-A6)", today))
    return items


def _overdue_inspections(before: date, today: date) -> Iterable[dict[str, Any]]:
    # Only overdue ones: what is merely due is the inspectors' list (GET /inspections/due), not a deadline
    # a supervisor has to chase.
    return [_item(row["due_on"], "inspection_overdue", row["permit_id"], row["record_type"], row["record_id"],
                  f"{row['kind'].replace('_', '-')} inspection: {_clip(row['reason'])}", today, overdue=True)
            for row in overdue_inspections(before, today)]


SOURCES = (_findings, _orders, _final_reports, _cost_windows, _bond_phases, _overdue_inspections,
           _lapsed_approvals)


def deadlines(before: date, today: date | None = None) -> list[dict[str, Any]]:
    """Every deadline due strictly before `before`, with overdue ones (due before the Town's today)."""
    today = today or clock.today()
    items = [item for source in SOURCES for item in source(before, today)]
    ids = {item["permit_id"] for item in items if item["permit_id"]}
    numbers = {pid: number for pid, number in db.session.execute(
        select(Permit.id, Permit.number).where(Permit.id.in_(ids)))} if ids else {}
    for item in items:
        item["permit_number"] = numbers.get(item["permit_id"])
    return sorted(items, key=rules.deadline_sort_key)


def as_text(items: list[dict[str, Any]], before: date, today: date) -> str:
    """A plain table for a daily cron mail."""
    head = f"Deadlines before {before.isoformat()} (today {today.isoformat()}, {clock.town_zone().key}): {len(items)}"
    if not items:
        return head + "\nNothing due."
    width = max(len(i["permit_number"] or "-") for i in items)
    lines = [head, f"{'due on':<10}  {'':<7}  {'kind':<19}  {'permit':<{width}}  summary"]
    for i in items:
        flag = "OVERDUE" if i["overdue"] else ""
        lines.append(f"{i['due_on'].isoformat():<10}  {flag:<7}  {i['kind']:<19}  "
                     f"{(i['permit_number'] or '-'):<{width}}  {i['summary']}")
    return "\n".join(lines)
