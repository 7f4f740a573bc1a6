"""Parties and enforcement cases (R-O0), and one project's linked applications (R-A7).

- Every permit or case names its parties: owner, violator(s), applicant, contractor, each with name,
  mailing address and e-mail. Filing an application makes its owner and applicant parties; a
  supervisor adds violators and contractors. A party need not be a user; a party that is a user
  (`user_id`) sees the record as an applicant sees their own.
- A supervisor opens an enforcement case for land disturbed with no application (POST /permits
  without `applicant_id`): status `unpermitted`, numbered ENF-YYYY-NNNN. An application filed later
  for the same site (same parcel id, or the same address) is linked to it (`case_id`).
- Applications that are parts of one project share a `project_id` and are determined on the
  project's total disturbed area; a new application on a parcel with another open application is
  flagged until a supervisor links it or confirms it separate.
Services flush, never commit.
"""
from __future__ import annotations

from typing import Any, Iterable

from sqlalchemy import func, select

from .. import clock
from .. import audit
from ..auth.models import User
from ..auth.permissions import current_device_id
from ..errors import Forbidden, NotFound, ValidationFailed
from ..extensions import db
from ..records import bump, check_version
from .access import get_visible_permit
from .determination import project_members, recompute_determination, refresh_determination
from .models import Party, Permit
from .schemas import PartySchema

CLOSED_STATUSES = ("denied", "withdrawn", "closed")
PARTY_FIELDS = ("role", "name", "mailing_address", "email", "phone", "user_id")


# ---- parties (R-O0) -----------------------------------------------------------------------------
def _party_user(user_id: str | None) -> str | None:
    if not user_id:
        return None
    account = db.session.get(User, str(user_id))
    if account is None or account.role != "applicant" or not account.active:
        raise ValidationFailed(errors={"user_id": ["A party's account is an active applicant account."]})
    return account.id


def add_party(actor: User | None, permit: Permit, data: dict[str, Any], *, audit_it: bool = True) -> Party:
    values = {k: data.get(k) for k in PARTY_FIELDS}
    values["user_id"] = _party_user(values.get("user_id"))
    party = Party(permit_id=permit.id, created_by=getattr(actor, "id", None), device_id=current_device_id(),
                  **values)
    permit.parties.append(party)
    db.session.flush()
    if audit_it:
        audit.record("party.create", "party", party.id, values, actor=actor, permit_id=permit.id)
    return party


def create_party(user: User, permit: Permit, data: dict[str, Any]) -> Party:
    """A supervisor names a party of a permit or case (R-O0)."""
    _require_supervisor(user, "name the parties of a permit or case")
    party = add_party(user, permit, data)
    bump(permit)
    return party


def get_party(permit: Permit, party_id: str) -> Party:
    party = next((p for p in permit.parties if p.id == str(party_id)), None)
    if party is None:
        raise NotFound("No such party on this permit or case.")
    return party


def update_party(user: User, permit: Permit, party: Party, data: dict[str, Any], expected: int | None) -> Party:
    _require_supervisor(user, "change a party")
    check_version(party, expected, PartySchema().dump)
    values = {k: data[k] for k in PARTY_FIELDS if k in data}
    if "user_id" in values:
        values["user_id"] = _party_user(values["user_id"])
    before = {k: getattr(party, k) for k in values}
    changes = audit.diff(before, values)
    if not changes:
        return party
    for key, value in values.items():
        setattr(party, key, value)
    bump(party)
    bump(permit)
    db.session.flush()
    audit.record("party.update", "party", party.id, changes, actor=user, permit_id=permit.id)
    return party


def parties_of(permit: Permit, role: str) -> list[Party]:
    return [p for p in permit.parties if p.role == role]


def sync_owner_party(permit: Permit, data: dict[str, Any]) -> None:
    """The owner given on the application is its first owner party: an edit of the one is an edit of
    the other, so an order is never addressed to an owner the application no longer names."""
    owner = next(iter(parties_of(permit, "owner")), None)
    if owner is None:
        return
    for key in ("name", "email", "phone", "mailing_address"):
        if key in data:
            setattr(owner, key, data[key])
    bump(owner)


# ---- cases (R-O0) -------------------------------------------------------------------------------
def _same_site(query, permit: Permit):
    if permit.parcel_id:
        return query.where(func.lower(Permit.parcel_id) == permit.parcel_id.strip().lower())
    return query.where(func.lower(Permit.site_address) == permit.site_address.strip().lower())


def open_case_for_site(permit: Permit) -> Permit | None:
    """The open enforcement case on the site of `permit` (same parcel id, else same address)."""
    query = select(Permit).where(Permit.status == "unpermitted", Permit.id != permit.id)
    return db.session.scalar(_same_site(query, permit).order_by(Permit.created_at).limit(1))


def link_to_case(permit: Permit, actor: User, case_id: str | None) -> None:
    """R-O0: an application filed for a site with an enforcement case is linked to that case; a
    supervisor may name the case, otherwise it is found by the site."""
    if case_id:
        case = db.session.get(Permit, str(case_id))
        if case is None or case.status != "unpermitted" or actor.role != "supervisor":
            raise ValidationFailed(errors={"case_id": ["No open enforcement case with this id."]})
    else:
        case = open_case_for_site(permit)
    if case is not None:
        permit.case_id = case.id
        audit.record("permit.case_link", "permit", permit.id, {"case_id": case.id}, actor=actor,
                     permit_id=permit.id)


def check_case_parties(data: dict[str, Any]) -> None:
    """A case names the violator (the owner comes with `owner`): enforcement reaches the person who
    disturbed the land (R-O0, §B(3) "the violator and the property owner")."""
    if not any(p.get("role") == "violator" for p in data.get("parties") or []):
        raise ValidationFailed(errors={"parties": ["An enforcement case names at least one violator."]})


# ---- parcels (R-A7) --------------------------------------------------------------------------
def _flagged(permit: Permit) -> bool:
    return bool(permit.parcel_id) and permit.parcel_reviewed_at is None \
        and permit.status not in CLOSED_STATUSES + ("unpermitted",)


def parcel_flags(permits: Iterable[Permit]) -> dict[str, list[str]]:
    """R-A7, by permit id: ids of other open applications on the same parcel that are not in its
    project, until a supervisor links the application or confirms it separate; [] otherwise. One
    query for all the permits."""
    permits = list(permits)
    flags: dict[str, list[str]] = {p.id: [] for p in permits}
    wanted = [p for p in permits if _flagged(p)]
    if not wanted:
        return flags
    parcels = {p.parcel_id.strip().lower() for p in wanted}
    others = db.session.execute(select(Permit.id, Permit.parcel_id, Permit.project_id).where(
        func.lower(Permit.parcel_id).in_(parcels), Permit.status.not_in(CLOSED_STATUSES + ("unpermitted",)))
        .order_by(Permit.id)).all()
    on_parcel: dict[str, list[tuple[str, str | None]]] = {}
    for other_id, parcel_id, project_id in others:
        on_parcel.setdefault((parcel_id or "").lower(), []).append((other_id, project_id))
    for permit in wanted:
        own_id, project = permit.id, permit.project_id
        flags[own_id] = [other_id for other_id, other_project in on_parcel.get(permit.parcel_id.strip().lower(), ())
                         if other_id != own_id and (not project or other_project != project)]
    return flags


def link_project(user: User, permit: Permit, other_id: str | None, separate: bool) -> Permit:
    """A supervisor links `permit` into the project of another application (R-A7) or confirms it is a
    separate project; every member's determination is recomputed on the project's total."""
    _require_supervisor(user, "link applications into one project")
    if separate:
        permit.parcel_reviewed_at = clock.now()
        bump(permit)
        db.session.flush()
        audit.record("permit.project", "permit", permit.id, {"separate": True}, actor=user, permit_id=permit.id)
        return permit
    if not other_id:
        raise ValidationFailed(errors={"link_to": ["Name the application to link with, or confirm separate."]})
    other = get_visible_permit(user, str(other_id), for_update=True)
    refresh_determination(other)
    if other.id == permit.id or "unpermitted" in (other.status, permit.status):
        raise ValidationFailed(errors={"link_to": ["Link two different applications (not enforcement cases)."]})
    project = other.project_id or permit.project_id or other.id
    for member in {*project_members(permit), *project_members(other), permit, other}:
        member.project_id = project
        member.parcel_reviewed_at = member.parcel_reviewed_at or clock.now()
    db.session.flush()
    for member in project_members(permit):
        before = (member.review_level, member.number)
        recompute_determination(member)
        bump(member)
        audit.record("permit.project", "permit", member.id,
                     {"project_id": project, "review_level": [before[0], member.review_level],
                      "number": [before[1], member.number]}, actor=user, permit_id=member.id)
    db.session.flush()
    return permit


def _require_supervisor(user: User, action: str) -> None:
    if user.role != "supervisor":
        raise Forbidden(f"Only supervisors {action}.")
