"""The counts the MS4 general permit annual report asks for under its construction site stormwater runoff
control measure: site plan reviews, inspections and enforcement actions, for a date range.

Each count says what it counts: reviews received are submissions recorded in the permit's status history
(R-C2), reviews decided are approvals, issues and denials in that history; inspections are counted by the
day they started, once recorded (submitted, approved or returned: never a draft); orders by the day
issued; citations by the day written; findings by the day observed and the day verified fixed (or closed); the inspection program's obligations by the Town day they fell due,
as due, done on time, done late, or past due and not done, and of those not done the ones missed (that can no longer be done:
a pre-construction inspection once work has commenced); reports from the public (the permit's "procedures for receipt and
consideration of information submitted by the public", 40 CFR 122.34(b)(4)(ii)) by the day received, with what became of
each of them so far. Both ends of the range are included, in Fairhaven calendar days.
"""
from __future__ import annotations

from datetime import date
from typing import Any

from sqlalchemy import select

from .. import clock
from ..completion.models import Certificate
from ..enforcement.models import Citation, Order
from ..enforcement.rules import ORDER_KINDS
from ..errors import ValidationFailed
from ..extensions import db
from ..inspections.models import INSPECTION_KINDS, Finding, Inspection
from ..permits.access import permit_visible
from ..clock import local_date
from ..permits.models import Permit, PermitEvent
from ..program.services import RECORDED, month_counts
from ..public.triage import ms4_counts as public_report_counts
from . import rules
from .services import live_clause, within_days

REVIEW_LEVELS = ("administrative_review", "land_disturbance_permit")
DECISIONS = ("approved", "issued", "denied")


def _site_plan_reviews(user, start: date, end: date) -> dict[str, Any]:
    rows = db.session.execute(
        select(PermitEvent.permit_id, PermitEvent.to_status, Permit.review_level)
        .join(Permit, Permit.id == PermitEvent.permit_id)
        .where(permit_visible(PermitEvent.permit_id, user),
               PermitEvent.to_status.in_(("submitted", *DECISIONS)), within_days(PermitEvent.at, start, end))).all()
    received = {(r.permit_id, r.review_level) for r in rows if r.to_status == "submitted"}
    decided = [r for r in rows if r.to_status in DECISIONS]
    return {"received": len(received),
            "received_by_level": rules.count_by((level for _id, level in received), REVIEW_LEVELS),
            "decided": len(decided),
            "decided_by_outcome": rules.count_by((r.to_status for r in decided), DECISIONS)}


def _inspections(user, start: date, end: date) -> dict[str, Any]:
    """Recorded inspections only: a draft is the inspector's working copy, not an inspection made yet."""
    kinds = db.session.scalars(select(Inspection.kind).where(
        permit_visible(Inspection.permit_id, user), live_clause(Inspection),
        Inspection.status.in_(RECORDED), within_days(Inspection.started_at, start, end))).all()
    return {"total": len(kinds), "by_kind": rules.count_by(kinds, INSPECTION_KINDS)}


def _enforcement(user, start: date, end: date) -> dict[str, Any]:
    kinds: list[str] = []
    orders = citations = 0
    for order_kinds in db.session.scalars(select(Order.kinds).where(
            permit_visible(Order.permit_id, user), live_clause(Order),
            Order.issued_on >= start, Order.issued_on <= end)):
        orders += 1
        kinds += list(order_kinds or [])
    citations = len(db.session.scalars(select(Citation.id).where(
        permit_visible(Citation.permit_id, user), live_clause(Citation),
        within_days(Citation.created_at, start, end))).all())
    return {"total": orders + citations, "orders": orders, "orders_by_kind": rules.count_by(kinds, ORDER_KINDS),
            "citations": citations}


def _findings(user, start: date, end: date) -> dict[str, Any]:
    rows = db.session.execute(select(Finding.observed_on, Finding.status, Finding.verified_fixed_on,
                                     Finding.closed_at).where(permit_visible(Finding.permit_id, user),
                                                              live_clause(Finding))).all()
    opened = sum(1 for r in rows if start <= r.observed_on <= end)
    closed_days = [r.verified_fixed_on or local_date(r.closed_at) for r in rows
                   if r.status == "closed" and (r.verified_fixed_on or r.closed_at)]
    return {"opened": opened, "closed": sum(1 for day in closed_days if start <= day <= end)}


def _inspection_program(user, start: date, end: date) -> list[dict[str, Any]]:
    """Inspections due, done on time, done late, not done and missed per kind and month of the due day (R-I1
    program)."""
    return month_counts(select(Permit).where(permit_visible(Permit.id, user)), start, end)


def ms4_annual_report(user, start: date, end: date) -> dict[str, Any]:
    problem = rules.range_problem(start, end)
    if problem:
        raise ValidationFailed(problem, errors={"to": [problem]})
    certificates = len(db.session.scalars(select(Certificate.id).where(
        permit_visible(Certificate.permit_id, user), Certificate.issued_on >= start,
        Certificate.issued_on <= end)).all())
    return {"start": start, "end": end, "generated_at": clock.now(),
            "site_plan_reviews": _site_plan_reviews(user, start, end),
            "inspections": _inspections(user, start, end),
            "enforcement_actions": _enforcement(user, start, end),
            "findings": _findings(user, start, end),
            "inspection_program": _inspection_program(user, start, end),
            "public_reports": public_report_counts(user, start, end),
            "certificates_of_completion": certificates}
