"""A permit as GET, lists and sync answer it: its columns and what is computed for today, loaded up
front for every permit of an answer (the schema reads; it never queries).

What is computed: the determination as it stands today (R-A5, R-B1), the other open applications on
its parcel (R-A7), the security held (R-D1, asked of bonds) and what stands in the way of
commencement (R-O1a, R-A6, R-D1).

The other applications on the parcel and the enforcement case it is linked to name other permits, so
they are shown as the viewer may see them: an id of a permit (or case) the viewer may see as it is,
the rest as one entry "other" in `parcel_flag` and as null `case_id` (permits/access.py decides).
Staff see every id; an applicant sees their own and those naming them as a party.

The parties' contact details (mailing address, e-mail, phone; the owner's on the record too) are
shown only to whom R-O0 gives them (rules.contacts_shown): supervisors, the inspectors assigned to
the permit, and an applicant for what they entered themselves. To anyone else they are null, with
`contact_withheld: true`, so an app can say why they are missing.
"""
from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Iterable

from flask import has_request_context
from flask_jwt_extended import get_current_user
from sqlalchemy import select

from ..clock import today as local_today
from ..extensions import db
from ..paging import chunks
from . import rules
from .access import assigned_permit_ids, permit_visible
from .cases import parcel_flags
from .commencement import commencement_refusal, security_posted
from .determination import determination_today
from .models import Party, Permit
from .schemas import PermitSchema


@dataclass(frozen=True)
class PermitToday:
    determination: dict[str, Any] | None
    review_level: str
    parcel_flag: list[str]
    case_id: str | None
    security_posted: Decimal | None
    approval_lapsed: bool
    commencement_blocked: dict[str, str] | None
    owner: dict[str, Any]
    parties: list[dict[str, Any]]


OTHER = "other"  # a permit on the parcel the viewer may not see: that one exists, never which


def _seen_by(viewer, ids: set[str]) -> set[str]:
    """Those of `ids` the viewer may see, in one query; none without a viewer."""
    if viewer is None or not ids:
        return set()
    return set(db.session.scalars(select(Permit.id).where(
        Permit.id.in_(sorted(ids)), permit_visible(Permit.id, viewer))))


def _as_seen(flag: list[str], seen: set[str]) -> list[str]:
    shown = [other for other in flag if other in seen]
    return shown + [OTHER] if len(shown) < len(flag) else shown


PARTY_COLUMNS = ("id", "permit_id", "role", "name", "user_id", "version", "created_at", "updated_at")
CONTACT_COLUMNS = ("mailing_address", "email", "phone")


def _assigned_among(viewer, permit_ids: list[str]) -> set[str]:
    """Those of `permit_ids` the viewer is assigned to as an inspector, in one query per chunk."""
    if viewer is None or viewer.role != "inspector" or not permit_ids:
        return set()
    found: set[str] = set()
    for chunk in chunks(permit_ids):
        assigned = assigned_permit_ids(viewer).subquery()
        found.update(db.session.scalars(select(assigned.c.permit_id).where(
            assigned.c.permit_id.in_(chunk))))
    return found


def _party_as_seen(party: Party, shown: bool) -> dict[str, Any]:
    seen = {column: getattr(party, column) for column in PARTY_COLUMNS}
    seen.update({column: getattr(party, column) if shown else None for column in CONTACT_COLUMNS})
    seen["contact_withheld"] = not shown
    return seen


def _contacts_as_seen(permit: Permit, viewer, assigned: bool) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The owner on the record and the parties, with the contact details the viewer may see (R-O0)."""
    role, viewer_id = (viewer.role, viewer.id) if viewer is not None else (None, None)
    owner_shown = rules.contacts_shown(role, viewer_id, assigned=assigned, entered_by=permit.created_by)
    owner = {"name": permit.owner_name, "email": permit.owner_email if owner_shown else None,
             "phone": permit.owner_phone if owner_shown else None, "contact_withheld": not owner_shown}
    parties = [_party_as_seen(p, rules.contacts_shown(role, viewer_id, assigned=assigned, entered_by=p.created_by,
                                                      party_user_id=p.user_id)) for p in permit.parties]
    return owner, parties


def parties_as_seen(permit: Permit, viewer) -> list[dict[str, Any]]:
    """The permit's parties as `viewer` may see them (the parties route)."""
    return _contacts_as_seen(permit, viewer, str(permit.id) in _assigned_among(viewer, [str(permit.id)]))[1]


def shown_all(permits: Iterable[Permit], viewer) -> list[Permit]:
    """`permits`, each with its `today` (PermitToday) loaded as `viewer` may see it: a few queries for
    all of them."""
    permits = list(permits)
    today = local_today()
    flags = parcel_flags(permits)
    seen = _seen_by(viewer, {i for flag in flags.values() for i in flag} | {p.case_id for p in permits if p.case_id})
    posted = security_posted(p.id for p in permits if p.security_required_amount is not None)
    assigned = _assigned_among(viewer, [str(p.id) for p in permits])
    for permit in permits:
        determination = determination_today(permit)
        level = determination["review_level"] if determination else permit.review_level
        refusal = None
        if permit.status in ("approved", "issued"):
            refusal = commencement_refusal(permit, today, posted.get(permit.id, Decimal("0.00")), level)
        owner, parties = _contacts_as_seen(permit, viewer, str(permit.id) in assigned)
        permit.today = PermitToday(
            determination=determination, review_level=level, parcel_flag=_as_seen(flags[permit.id], seen),
            case_id=permit.case_id if permit.case_id in seen else None,
            security_posted=posted.get(permit.id), approval_lapsed=rules.approval_lapsed(permit.status, level,
                                                                                         permit.number),
            commencement_blocked={"error": refusal[0], "message": refusal[1]} if refusal else None,
            owner=owner, parties=parties)
    return permits


def shown(permit: Permit, viewer) -> Permit:
    return shown_all([permit], viewer)[0]


_permit_schema = PermitSchema()


def _request_viewer():
    """The signed-in caller of this request, or None (no request, or none signed in)."""
    if not has_request_context():
        return None
    try:
        return get_current_user()
    except RuntimeError:  # a request that verified no token (a CLI-made request context)
        return None


def dump_permit(permit: Permit, viewer=None) -> dict:
    """The permit as `viewer` sees it; by default the request's caller. Sync pull, a push's conflict
    and a version conflict dump inside the caller's request, so a device is shown exactly what GET
    shows its user; with nobody signed in no other permit is named."""
    return _permit_schema.dump(shown(permit, viewer if viewer is not None else _request_viewer()))
