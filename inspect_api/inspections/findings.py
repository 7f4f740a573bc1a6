"""Findings and corrective actions (R-I4): the one way any domain raises a finding, and the one
query that scopes them by user."""
from __future__ import annotations

from datetime import date
from typing import Any, Iterable

import sqlalchemy as sa
from sqlalchemy import Select, select

from .. import clock
from .. import audit
from ..changes import touch
from ..extensions import db
from ..permits.access import APPLICANT_SCOPE, permit_scoped, scope_of
from . import rules
from .models import FINDING_KINDS, SEVERITIES, Finding, Inspection

STATUS_FILTERS = ("open", "overdue", "closed")


def create_finding(permit, *, kind: str, description: str, observed_on: date, needs_new_control: bool = False,
                   severity: str = "moderate", inspection_id: str | None = None, sample_id: str | None = None,
                   item_key: str | None = None, parameter: str | None = None, required_action: str | None = None,
                   photo_ids: Iterable[str] = (), actor: Any = None, record_id: str | None = None,
                   device_id: str | None = None, device_created_at=None) -> Finding:
    """Add an open finding to `permit` with its due date from R-I4, audited; flushes, never commits."""
    if kind not in FINDING_KINDS:
        raise ValueError(f"unknown finding kind {kind!r}")
    if severity not in SEVERITIES:
        raise ValueError(f"unknown severity {severity!r}")
    finding = Finding(
        id=record_id, permit_id=permit.id, inspection_id=inspection_id, sample_id=sample_id, item_key=item_key,
        parameter=parameter, kind=kind, severity=severity, description=description,
        required_action=required_action, needs_new_control=bool(needs_new_control), observed_on=observed_on,
        due_on=rules.finding_due_on(observed_on, bool(needs_new_control)), status="open",
        photo_ids=[str(p) for p in photo_ids], created_by=getattr(actor, "id", None),
        device_id=device_id, device_created_at=device_created_at,
    )
    db.session.add(finding)
    db.session.flush()
    audit.record("finding.create", "finding", finding.id,
                 {"kind": kind, "severity": severity, "due_on": finding.due_on, "inspection_id": inspection_id,
                  "sample_id": sample_id, "item_key": item_key, "parameter": parameter},
                 actor=actor, permit_id=permit.id)
    return finding


def touch_inspection(finding: Finding) -> None:
    """An inspection shows its findings; when one changes on its own, devices should re-read the inspection."""
    if finding.inspection_id:
        inspection = db.session.get(Inspection, finding.inspection_id)
        if inspection is not None:
            touch(inspection)


def open_findings_query(user, *, permit_id: str | None = None, status: str | None = None,
                        on: date | None = None) -> Select:
    """Findings `user` may see, newest due last. `status`: None (every status), "open", "closed", or
    "overdue" (open and due before `on`, which defaults to today in America/New_York)."""
    return scoped_findings(scope_of(user), user.id, permit=None if permit_id is None else str(permit_id),
                           status=status, due_before=(on or clock.today()) if status == "overdue" else None)


def scoped_findings(scope: str, viewer: Any, *, permit: Any = None, status: str | None = None,
                    due_before: Any = None) -> Select:
    """open_findings_query for a caller of `scope` whose id is `viewer`, of the permit `permit` (None:
    every permit), "overdue" meaning due before `due_before`: each of the three a value, or a bound
    parameter for a statement built once for every such caller (paging.page_of)."""
    query = select(Finding).where(permit_scoped(Finding.permit_id, scope, viewer), Finding.deleted_at.is_(None))
    if scope == APPLICANT_SCOPE:
        # A draft or returned inspection is the inspector's working copy (hidden from the applicant),
        # and so is everything recorded on it (rules.shown_to_applicant).
        seen = select(Inspection.id).where(Inspection.shown_to_applicant(), Inspection.deleted_at.is_(None))
        query = query.where(sa.or_(Finding.inspection_id.is_(None), Finding.inspection_id.in_(seen)))
    if permit is not None:
        query = query.where(Finding.permit_id == permit)
    if status == "overdue":
        query = query.where(Finding.status == "open", Finding.due_on < due_before)
    elif status in ("open", "closed"):
        query = query.where(Finding.status == status)
    elif status is not None:
        raise ValueError(f"unknown finding status filter {status!r}")
    return query.order_by(Finding.due_on, Finding.created_at, Finding.id)
