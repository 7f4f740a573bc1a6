"""A permit as GET, lists and sync answer it: its columns and what is computed for today, loaded up
front for every permit of an answer (the schema reads; it never queries).

What is computed: the determination as it stands today (R-A5, R-B1), the other open applications on
its parcel (R-A7), the security held (R-D1, asked of bonds) and what stands in the way of
commencement (R-O1a, R-A6, R-D1).
"""
from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Iterable

from ..clock import today as local_today
from . import rules
from .cases import parcel_flags
from .commencement import commencement_refusal, security_posted
from .determination import determination_today
from .models import Permit
from .schemas import PermitSchema


@dataclass(frozen=True)
class PermitToday:
    determination: dict[str, Any] | None
    review_level: str
    parcel_flag: list[str]
    security_posted: Decimal | None
    approval_lapsed: bool
    commencement_blocked: dict[str, str] | None


def shown_all(permits: Iterable[Permit]) -> list[Permit]:
    """`permits`, each with its `today` (PermitToday) loaded: a few queries for all of them."""
    permits = list(permits)
    today = local_today()
    flags = parcel_flags(permits)
    posted = security_posted(p.id for p in permits if p.security_required_amount is not None)
    for permit in permits:
        determination = determination_today(permit)
        level = determination["review_level"] if determination else permit.review_level
        refusal = None
        if permit.status in ("approved", "issued"):
            refusal = commencement_refusal(permit, today, posted.get(permit.id, Decimal("0.00")))
        permit.today = PermitToday(
            determination=determination, review_level=level, parcel_flag=flags[permit.id],
            security_posted=posted.get(permit.id), approval_lapsed=rules.approval_lapsed(permit.status, level,
                                                                                         permit.number),
            commencement_blocked={"error": refusal[0], "message": refusal[1]} if refusal else None)
    return permits


def shown(permit: Permit) -> Permit:
    return shown_all([permit])[0]


_permit_schema = PermitSchema()


def dump_permit(permit: Permit) -> dict:
    return _permit_schema.dump(shown(permit))
