"""What stands in the way of commencement (R-O1a, R-A6, R-D1), and the security required before it.

A cease-and-desist order sets the permit's own flag (enforcement keeps it, permits.services
.set_cease_and_desist); the security the Town holds is bonds' to say, which is above permits: asked
through SECURITY_HELD, which bonds answers when the app starts.
"""
from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Iterable

from sqlalchemy import select

from .. import audit, clock
from ..auth.models import User
from ..errors import Conflict, Forbidden
from ..extensions import db
from ..questions import Question
from ..records import bump
from . import rules
from .determination import review_level_today
from .models import Permit, PermitEvent


# ---- security before the start (R-D1) ----------------------------------------------------------
SECURITY_HELD = Question("security_held", """R-D1: the security the Town holds for each of `permit_ids`
(received and not released), as {permit_id: Decimal}; a permit with none held may be left out.
Bonds answers.""")


def security_posted(permit_ids: Iterable[str]) -> dict[str, Decimal]:
    """Security received and not released, by permit: only what the Town holds secures the work."""
    ids = list(dict.fromkeys(permit_ids))
    held = SECURITY_HELD(ids) if ids else {}
    return {permit_id: held.get(permit_id, Decimal("0.00")) for permit_id in ids}


def set_security_requirement(user: User, permit: Permit, amount: Decimal | None) -> Permit:
    if user.role != "supervisor":
        raise Forbidden("Only supervisors set the security required before the start.")
    if permit.status in ("active", "work_complete", "closed", "denied", "withdrawn", "unpermitted"):
        raise Conflict("Security is required before land disturbance starts; this record is "
                       f"{permit.status.replace('_', ' ')}.", error="invalid_transition")
    before = permit.security_required_amount
    permit.security_required_amount = amount
    bump(permit)
    db.session.flush()
    audit.record("permit.security_required", "permit", permit.id, {"security_required_amount": [before, amount]},
                 actor=user, permit_id=permit.id)
    return permit


# ---- what stands in the way of commencement -----------------------------------------------------
def approval_day(permit: Permit) -> date | None:
    """R-A6: the Town's calendar day the approval or permit was granted: the day of its decision, else
    of its recorded move to approved or issued (a permit moved by hand); None when neither is known."""
    at = permit.decided_at or db.session.scalar(
        select(PermitEvent.at).where(PermitEvent.permit_id == permit.id,
                                     PermitEvent.to_status.in_(("approved", "issued")))
        .order_by(PermitEvent.at.desc()).limit(1))
    return clock.local_date(at) if at is not None else None


def commencement_refusal(permit: Permit, today: date, posted: Decimal | None = None,
                         level: str | None = None) -> tuple[str, str] | None:
    """(error code, reason) why work may not be recorded as commenced, or None. `posted` is the
    security held and `level` the review level today, when already worked out with others
    (views.shown_all)."""
    if permit.cease_and_desist:
        return ("cease_and_desist", "A cease-and-desist order is open on this site: land-disturbing activity "
                                    "stops until there is compliance (R-O1a).")
    level = review_level_today(permit) if level is None else level
    if rules.approval_lapsed(permit.status, level, permit.number):
        return ("approval_lapsed", "The exemption this approval rested on has lapsed: the project needs "
                                   f"{rules.LEVEL_NAMES.get(level, 'an approval')} before work "
                                   "starts (R-A6).")
    required = permit.security_required_amount
    if required is not None and required > 0:
        posted = security_posted([permit.id])[permit.id] if posted is None else posted
        if posted < required:
            return ("security_required", f"Security of ${required:,.2f} must be posted before land disturbance "
                                         f"starts; ${posted:,.2f} is held (R-D1).")
    return None
