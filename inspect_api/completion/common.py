"""What completion notices, final reports and certificates share: the town's calendar, the permit a
close-out record belongs to, who may file one, and the review step (R-F3)."""
from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from .. import audit
from ..errors import Conflict, Forbidden, InvalidTransition, ValidationFailed
from .. import clock
from ..extensions import db
from ..permits.access import files_for, get_visible_permit
from ..permits.models import Permit
from . import rules


def as_utc(moment: datetime | None) -> datetime | None:
    """Device clocks arrive with their own offset; answers show every time in UTC, as stored."""
    return moment.astimezone(timezone.utc) if moment is not None else None


def require_filer(user, permit: Permit | str) -> None:
    """Applicants file their own close-out records; a supervisor may file one received on paper. A party
    linked to someone else's permit sees it but files nothing on it."""
    if isinstance(permit, str):
        permit = db.session.get(Permit, permit)
    if permit is None or not files_for(user, permit):
        raise Forbidden("Only the applicant (or a supervisor on their behalf) files completion records.")


def require_supervisor(user) -> None:
    if user.role != "supervisor":
        raise Forbidden("Only supervisors review completion records and issue certificates.")


def closeout_permit(user, permit_id: str, kind: str):
    """The permit a new notice or report is filed for: visible to the user (else 404), of the review level
    that closes with this kind of record (R-F1/R-F2), with work under way or complete."""
    # Locked, so two devices filing for the same permit at once get one record and one `*_exists` answer.
    permit = get_visible_permit(user, permit_id, for_update=True)
    require_filer(user, permit)
    expected = rules.closeout_kind(permit.review_level)
    if expected != kind:
        wanted = {"completion_notice": "a completion notice", "final_report": "a final report"}.get(expected)
        raise Conflict(f"This project closes with {wanted or 'no close-out record'}, not a "
                       f"{kind.replace('_', ' ')} (R-F1, R-F2).", error="wrong_closeout_kind")
    if permit.status not in rules.CLOSEOUT_PERMIT_STATUSES:
        raise Conflict(f"The permit is {permit.status.replace('_', ' ')}; completion records are filed once work "
                       "is active or complete.", error="permit_not_active")
    return permit


def review_view(record) -> dict[str, Any] | None:
    if record.decision is None:
        return None
    return {"decision": record.decision, "reasons": record.review_reasons,
            "reviewed_at": record.reviewed_at, "reviewed_by": record.reviewed_by}


def apply_review(user, record, record_type: str, decision: str, reasons: str | None) -> None:
    """R-F3: a supervisor accepts a submitted notice or report, or returns it with reasons."""
    require_supervisor(user)
    problems = rules.review_problems(decision, reasons)
    if problems:
        raise ValidationFailed("A return needs reasons.", errors=problems)
    if record.status != "submitted":
        raise InvalidTransition(f"Only a submitted {record_type.replace('_', ' ')} can be reviewed; this one is "
                                f"{record.status}.")
    record.status = "accepted" if decision == "accept" else "returned"
    record.decision = decision
    record.review_reasons = (reasons or "").strip() or None
    record.reviewed_at = clock.now()
    record.reviewed_by = user.id
    record.bump_version()
    audit.record(f"{record_type}.review", record_type, record.id,
                 {"decision": decision, "reasons": record.review_reasons}, actor=user, permit_id=record.permit_id)


def require_editable(record, record_type: str, editable: tuple[str, ...]) -> None:
    if record.status not in editable:
        raise Conflict(f"A {record.status} {record_type.replace('_', ' ')} can no longer be changed.",
                       error="record_locked")
