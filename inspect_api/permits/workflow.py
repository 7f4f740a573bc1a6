"""The status flow of R-C2 applied to stored permits: each move checked against rules.TRANSITIONS,
recorded as a PermitEvent and an audit row.

Numbers on submission: an administrative review gets ALDR-YYYY-NNNN and a permit LDP-YYYY-NNNN
(the year of the submission day in Fairhaven). A project Part 3 does not cover cannot be submitted
(409 `invalid_transition`: there is nothing to review). A project claiming an exemption is
submitted without a number and reviewed like any other: if the supervisor rejects the claim, or
an order of conditions expires while it is under review, the determination falls back to R-A and
the permit gets the number of its new level then. Approving an exempt project confirms its
accepted exemption.
"""
from __future__ import annotations

from datetime import date

from sqlalchemy import select

from .. import clock
from .. import audit, signals
from ..auth.models import User
from ..errors import Conflict, Forbidden, InvalidTransition, NotFound, ValidationFailed
from ..extensions import db
from ..records import bump, check_version
from . import rules
from ..clock import today as local_today
from .models import Permit, PermitEvent
from .numbering import assign_number
from .commencement import approval_day, commencement_refusal
from .determination import recompute_project, refresh_determination
from .views import dump_permit

DATED_MOVES = {"active": "work_commenced_on", "work_complete": "work_completed_on"}


def record_event(permit: Permit, actor: User | None, from_status: str | None, to_status: str,
                 reason: str | None) -> PermitEvent:
    event = PermitEvent(permit_id=permit.id, from_status=from_status, to_status=to_status,
                        actor_id=getattr(actor, "id", None), at=clock.now(), reason=reason)
    db.session.add(event)
    return event


def _move(permit: Permit, actor: User | None, to: str, reason: str | None, extra: dict) -> Permit:
    from_status = permit.status
    permit.status = to
    bump(permit)
    record_event(permit, actor, from_status, to, reason)
    db.session.flush()
    audit.record("permit.transition", "permit", permit.id,
                 {"status": [from_status, to], "reason": reason, **extra}, actor=actor, permit_id=permit.id)
    return permit


def _visible(user: User, permit: Permit) -> bool:
    return user.is_staff or (user.role == "applicant" and permit.applicant_id == user.id)


def _check_commencement(permit: Permit) -> None:
    """R-O1a, R-A6, R-D1: an open cease-and-desist order, a lapsed exemption-based approval, or
    security required and not yet posted each refuse the move to active (409 with its own code)."""
    refusal = commencement_refusal(permit, local_today())
    if refusal:
        raise Conflict(refusal[1], error=refusal[0])


def _check_plans(permit: Permit) -> None:
    """R-C1: the approval or permit is decided on its plans, so they must be on file (409 `plans_missing`,
    naming the kinds in `errors.documents`)."""
    missing = rules.missing_plans(permit.review_level, (d.kind for d in permit.documents))
    if missing:
        raise Conflict(rules.plans_missing_message(permit.review_level, missing), error="plans_missing",
                       errors={"documents": missing})


def _day_for(to: str, on: date | None, permit: Permit) -> date | None:
    if to not in DATED_MOVES:
        if on is not None:
            raise ValidationFailed(errors={"on": ["A date applies only to the moves to active and work_complete."]})
        return None
    day = on or local_today()
    if day > local_today():
        raise ValidationFailed(errors={"on": ["The day cannot be in the future."]})
    if to == "active":
        problem = rules.commencement_day_problem(day, approval_day(permit))
        if problem:
            raise ValidationFailed(problem, error="before_approval", errors={"on": [problem]})
    if to == "work_complete" and permit.work_commenced_on and day < permit.work_commenced_on:
        raise ValidationFailed(errors={"on": [f"Work commenced on {permit.work_commenced_on}; it cannot be "
                                              "complete before that."]})
    return day


def transition(user: User, permit: Permit, to: str, reason: str | None = None, *, on: date | None = None,
               expected_version: int | None = None) -> Permit:
    """Move a permit along R-C2 as `user` (409 for a move the flow lacks, 403 for a role it excludes)."""
    if not _visible(user, permit):
        raise NotFound("No such permit.")
    check_version(permit, expected_version, dump_permit)
    if permit.status in ("draft", "submitted", "under_review"):
        refresh_determination(permit)
    accepted = any(e.status == "accepted" and e.stands for e in permit.exemptions)
    verdict = rules.check_transition(permit.status, to, user.role, review_level=permit.review_level,
                                     accepted_exemption=accepted)
    if not verdict.allowed:
        raise (Forbidden if verdict.error == "forbidden" else InvalidTransition)(verdict.message)
    if to in ("approved", "issued"):
        _check_plans(permit)
    day = _day_for(to, on, permit)
    if to == "active":
        _check_commencement(permit)
    extra: dict = {}
    if to == "submitted":
        permit.submitted_at = clock.now()
        extra["number"] = assign_number(permit, local_today())
    elif to in ("approved", "issued", "denied"):
        permit.decided_at = clock.now()
    elif to in DATED_MOVES:
        setattr(permit, DATED_MOVES[to], day)
        extra[DATED_MOVES[to]] = day
    moved = _move(permit, user, to, reason, extra)
    if to in ("withdrawn", "denied"):
        # R-A7: a part that ends disturbs nothing; what is left of the project is determined without it.
        recompute_project(moved, user, f"a linked application was {to} and left the project's total (R-A7)")
    signals.permit_moved.send(moved, to=to, reason=reason, actor=user)  # received, or decided (R-C2)
    return moved


def close_permit(permit: Permit, actor: User | None, reason: str | None = None) -> Permit:
    """Close a permit once its certificate of completion is issued (R-F3); the completion area calls this."""
    if permit.status != "work_complete":
        raise InvalidTransition(f"Only a permit whose work is complete can be closed; this one is "
                                f"{permit.status.replace('_', ' ')}.")
    permit.closed_at = clock.now()
    return _move(permit, actor, "closed", reason or "Certificate of completion issued", {})


def list_events(permit: Permit) -> list[PermitEvent]:
    return list(db.session.scalars(select(PermitEvent).where(PermitEvent.permit_id == permit.id)
                                   .order_by(PermitEvent.at, PermitEvent.id)))
