"""The agenda's items, read through each domain's own functions and models.

One query (or one per domain function) for each kind of source, whatever the number of items, and one
for all their permits: a reader of an item (the Deadlines view, a reminder) finds what it needs on it.
"""
from __future__ import annotations

from collections import defaultdict
from datetime import date, timedelta
from typing import Any, Callable, Iterable, Optional

from sqlalchemy import select
from sqlalchemy.orm import selectinload

from .. import clock
from ..bonds.models import Bond
from ..bonds.services import bond_phases_awaiting_release
from ..completion import rules as completion_rules
from ..completion.models import Certificate, CompletionNotice, FinalReport
from ..completion.reports import final_reports_due
from ..enforcement import rules as enforcement_rules
from ..enforcement.models import CostRecovery, Order
from ..extensions import db
from ..inspections.models import Finding
from ..permits import rules as permit_rules
from ..permits.determination import review_level_today
from ..permits.models import Permit, PermitExemption
from ..program.services import overdue_inspections
from . import rules
from .rules import Item, clip

Source = Callable[[date, date, Optional[date]], list[Item]]  # (before, today, since)


def _item(kind: str, due_on: date, permit_id: str | None, record_type: str, record_id: Any, summary: str,
          today: date, **records: Any) -> Item:
    return Item(due_on=due_on, kind=kind, permit_id=permit_id, record_type=record_type, record_id=str(record_id),
                summary=summary, overdue=rules.is_overdue(kind, due_on, today), records=records)


def _findings(before: date, today: date, since: date | None) -> list[Item]:
    """R-I4: open findings by their due day."""
    query = select(Finding).where(Finding.status == "open", Finding.deleted_at.is_(None), Finding.due_on < before)
    if since is not None:
        query = query.where(Finding.due_on >= since)
    return [_item("finding_due", f.due_on, f.permit_id, "finding", f.id,
                  f"{f.kind.replace('_', ' ')} ({f.severity}): {clip(f.required_action or f.description)}", today,
                  finding=f)
            for f in db.session.scalars(query.order_by(Finding.id))]


def _orders(before: date, today: date, since: date | None) -> list[Item]:
    """R-O1, §B(2): open orders by their deadline."""
    query = select(Order).where(Order.status == "open", Order.deadline < before)
    if since is not None:
        query = query.where(Order.deadline >= since)
    return [_item("order_due", o.deadline, o.permit_id, "order", o.id,
                  f"{o.number} ({', '.join(k.replace('_', ' ') for k in o.kinds)}): "
                  f"{clip(o.requirements[0]['text'] if o.requirements else '')}", today, order=o)
            for o in db.session.scalars(query.order_by(Order.id))]


def _final_reports(before: date, today: date, since: date | None) -> list[Item]:
    """R-F2: final reports not yet submitted, due two years after the work was completed."""
    return [_item("final_report_due", row["due_on"], row["permit_id"],
                  "final_report" if row.get("final_report_id") else "permit",
                  row.get("final_report_id") or row["permit_id"],
                  f"Final report due (work completed {row.get('work_completed_on')})"
                  + (f", last one {row['final_report_status']}" if row.get("final_report_status") else ""),
                  today, row=row)
            for row in final_reports_due(before)]


def _cost_windows(before: date, today: date, since: date | None) -> list[Item]:
    """R-O3: the Town's notice of costs, due within 30 days of the abatement while none is sent, and
    each recipient's protest window, 30 days from their own receipt while they have not protested."""
    items = []
    query = (select(CostRecovery).options(selectinload(CostRecovery.recipients), selectinload(CostRecovery.order))
             .where(CostRecovery.decision.is_(None), CostRecovery.court_decision_on.is_(None))
             .order_by(CostRecovery.id))
    for record in db.session.scalars(query):
        if not any(n.sent_on for n in record.recipients):
            items.append(_item("cost_notice_due", enforcement_rules.notice_due_by(record.abatement_completed_on),
                               record.permit_id, "cost_recovery", record.id,
                               f"Notify the costs of the abatement completed {record.abatement_completed_on}",
                               today, record=record))
            continue
        for notice in record.recipients:
            if not notice.received_on or notice.protest_filed_on is not None:
                continue
            items.append(_item("protest_window_ends", enforcement_rules.protest_window_ends(notice.received_on),
                               record.permit_id, "cost_recovery", record.id,
                               f"Protest window of {notice.name} ({notice.role}) on the costs notified "
                               f"{notice.sent_on} ends", today, record=record, notice=notice))
    return items


def _bond_releases(before: date, today: date, since: date | None) -> list[Item]:
    """R-D2: a phase's share once the phase is complete in compliance (listed from the day it was
    completed); R-D3: the rest of a bond once the certificate of completion is issued."""
    items = []
    for row in bond_phases_awaiting_release():
        items.append(_item("bond_phase_release", row.get("completed_on") or today, row["permit_id"], "bond",
                           row["bond_id"], f"Release {row.get('amount')} for phase {row.get('phase_number')} "
                           f"({row.get('phase_name')}), complete in compliance", today, row=row))
    query = (select(Bond, Certificate).join(Certificate, Certificate.permit_id == Bond.permit_id)
             .where(Bond.released_amount < Bond.amount).order_by(Bond.id))
    for bond, cert in db.session.execute(query):
        row = {"bond_id": bond.id, "permit_id": bond.permit_id, "phase_id": None,
               "amount": bond.amount - bond.released_amount, "certificate": cert.number}
        items.append(_item("bond_full_release", cert.issued_on, bond.permit_id, "bond", bond.id,
                           f"Release {row['amount']} in full, certificate of completion {cert.number} issued",
                           today, row=row, bond=bond, certificate=cert))
    return items


def _certificates(before: date, today: date, since: date | None) -> list[Item]:
    """R-F3: permits whose work is complete and whose completion notice or final report waits for a
    review (submitted) or, accepted, for its certificate; waiting since it was submitted or accepted."""
    query = (select(Permit, CompletionNotice, FinalReport)
             .outerjoin(CompletionNotice, CompletionNotice.permit_id == Permit.id)
             .outerjoin(FinalReport, FinalReport.permit_id == Permit.id)
             .outerjoin(Certificate, Certificate.permit_id == Permit.id)
             .where(Permit.status == completion_rules.CERTIFICATE_PERMIT_STATUS, Certificate.id.is_(None))
             .order_by(Permit.id))
    items = []
    for permit, notice, report in db.session.execute(query):
        basis = {"completion_notice": notice, "final_report": report}.get(
            completion_rules.closeout_kind(permit.review_level) or "")
        if basis is None or basis.status not in ("submitted", "accepted"):
            continue
        moment = basis.reviewed_at if basis.status == "accepted" else basis.submitted_at
        since_day = clock.local_date(moment) if moment else None
        step = ("issue the certificate of completion" if basis.status == "accepted"
                else f"review the {basis.__tablename__[:-1].replace('_', ' ')}")
        items.append(_item("certificate_waiting", since_day or today, permit.id, "permit", permit.id,
                           step[0].upper() + step[1:], today, basis=basis, step=step))
    return items


def _overdue_inspections(before: date, today: date, since: date | None) -> list[Item]:
    # Only overdue ones: what is merely due is the inspectors' list (GET /inspections/due), not a deadline
    # a supervisor has to chase.
    return [_item("inspection_overdue", row["due_on"], row["permit_id"], row["record_type"], row["record_id"],
                  f"{row['kind'].replace('_', '-')} inspection: {clip(row['reason'])}", today, row=row)
            for row in overdue_inspections(before, today)]


def _lapsed_approvals(before: date, today: date, since: date | None) -> list[Item]:
    """R-A6: approvals resting on a B5/B6 exemption (no ALDR/LDP number) whose order of conditions or
    Planning Board decision expires, listed from the day after its last valid day: from then on the
    project needs a review again. One that would fall back to not covered is not listed once lapsed."""
    permits = list(db.session.scalars(select(Permit).where(
        Permit.status.in_(("approved", "active", "work_complete")), Permit.number.is_(None)).order_by(Permit.id)))
    expiries: dict[str, list[date]] = defaultdict(list)
    if permits:
        for exemption in db.session.scalars(select(PermitExemption).where(
                PermitExemption.permit_id.in_([p.id for p in permits]), PermitExemption.status == "accepted",
                PermitExemption.kind.in_(permit_rules.DOCUMENT_EXEMPTIONS), PermitExemption.expires_on.is_not(None))):
            expiries[exemption.permit_id].append(exemption.expires_on)
    items = []
    for permit in permits:
        if not expiries[permit.id]:
            continue
        lapse = max(expiries[permit.id]) + timedelta(days=1)
        if lapse >= before:
            continue
        if lapse <= today:  # as it stands today; the agenda is a read and stores nothing
            if not permit_rules.approval_lapsed(permit.status, review_level_today(permit), permit.number):
                continue
        items.append(_item("approval_lapsed", lapse, permit.id, "permit", permit.id,
                           f"{permit.site_address}: the exemption under the approval lapses; the project needs "
                           "a review again before work continues (R-A6)", today))
    return items


# Each source and the kinds it yields: a reader asking for some kinds runs only the sources of those.
SOURCES: tuple[tuple[tuple[str, ...], Source], ...] = (
    (("finding_due",), _findings),
    (("order_due",), _orders),
    (("final_report_due",), _final_reports),
    (("cost_notice_due", "protest_window_ends"), _cost_windows),
    (("bond_phase_release", "bond_full_release"), _bond_releases),
    (("certificate_waiting",), _certificates),
    (("inspection_overdue",), _overdue_inspections),
    (("approval_lapsed",), _lapsed_approvals),
)


def items(before: date, today: date | None = None, kinds: Iterable[str] = rules.DEADLINE_KINDS, *,
          since: date | None = None) -> list[Item]:
    """Every item of `kinds` due strictly before `before` (and not before `since`, for the kinds with a
    deadline), soonest first, each with its permit; overdue is judged by the Town's `today`."""
    today = today or clock.today()
    wanted = set(kinds)
    unknown = wanted - set(rules.KINDS)
    if unknown:
        raise ValueError(f"not a kind of the agenda: {sorted(unknown)}")
    found = [item for yields, source in SOURCES if wanted.intersection(yields)
             for item in source(before, today, since)
             if item.kind in wanted and rules.in_window(item.kind, item.due_on, today, before, since)]
    ids = {item.permit_id for item in found if item.permit_id}
    permits = {p.id: p for p in db.session.scalars(select(Permit).where(Permit.id.in_(ids)))} if ids else {}
    for item in found:
        item.permit = permits.get(item.permit_id)
    return sorted(found, key=rules.sort_key)


def deadlines(before: date, today: date | None = None) -> list[Item]:
    """The supervisors' Deadlines view: every published kind due before `before`, overdue ones included."""
    return items(before, today, rules.DEADLINE_KINDS)
