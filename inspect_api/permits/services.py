"""Permit operations: load, check, change, flush (never commit).

Editing rules (R-C1, R-C2; "Nothing approved is edited in place"):
- the applicant edits their own application while it is a draft; once submitted it is the
  Stormwater Authority's to review, and the applicant may only withdraw it;
- a supervisor edits the application while it is draft, submitted or under review (a revised plan);
  after the decision the application is locked (409 `permit_locked`), conditions and phases live on
  as sub-resources;
- inspectors read every permit and edit none; admins see no permit content.
Every change recomputes the determination when an input changed (R-A5), bumps the version and
writes an audit row.
"""
from __future__ import annotations

from typing import Any

from flask import current_app
from sqlalchemy import Select, bindparam, func, or_, select

from .. import clock
from .. import audit
from ..auth.models import User
from ..auth.permissions import current_device_id
from ..errors import Conflict, Forbidden, NotFound, ValidationFailed
from ..extensions import db
from ..paging import load_collections, named_filters, page_of
from ..numbering import next_number
from ..records import bump, check_version, existing_for_create
from . import cases, rules
from .access import (VIEWER, get_visible_permit, permit_scoped, permits_assigned_to, scope_of, scope_values,
                     visible_permits)
from ..clock import today as local_today
from .determination import (INPUT_COLUMNS, UNDER_REVIEW, recompute_determination, recompute_project,
                            refresh_determination)
from .models import Assignment, Permit
from .numbering import assign_number
from .views import dump_permit, shown, shown_all
from .workflow import close_permit, record_event, transition

__all__ = ["create_permit", "update_permit", "get_permit", "visible_permits", "dump_permit", "transition",
           "close_permit", "assign_inspector", "unassign_inspector", "force_status", "list_permits",
           "recompute_determination", "set_cease_and_desist"]

SIMPLE_COLUMNS = INPUT_COLUMNS + ("proposed_use", "description")
APPLICANT_EDITABLE = ("draft",)
SUPERVISOR_EDITABLE = ("draft", "submitted", "under_review")


# ---- reading ------------------------------------------------------------------------------------
# What a permit's answer shows of its parts, loaded for a whole page at once.
SHOWN_PARTS = (Permit.conditions, Permit.phases, Permit.documents, Permit.exemptions, Permit.assignments,
               Permit.parties)


def get_permit(user: User, permit_id: str, *, for_update: bool = False) -> Permit:
    """A permit the user may see; one about to be changed first has its determination brought up to
    date and stored (a read leaves the stored one alone and shows it as of today)."""
    permit = get_visible_permit(user, permit_id, for_update=for_update)
    if for_update:
        refresh_determination(permit)
    return permit


def list_permits(user: User, args: dict[str, Any]) -> tuple[list[Permit], int]:
    values: dict[str, Any] = {**scope_values(user), **named_filters(args, ("review_level",))}
    if args.get("status"):
        values["statuses"] = [s.strip() for s in args["status"].split(",")]
    if args.get("q"):
        values["like"] = "%" + args["q"].lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
    shape = (scope_of(user), "statuses" in values, "review_level" in values, args.get("assigned_to") == "me",
             "like" in values)
    records, total = page_of(_permits_page, shape, values, args)
    load_collections(records, *SHOWN_PARTS)
    return records, total


def _permits_page(scope: str, by_status: bool, by_level: bool, assigned_to_me: bool, searching: bool) -> Select:
    """The permits list for any caller of `scope` (paging.page_of), newest first."""
    query = select(Permit).where(permit_scoped(Permit.id, scope, bindparam(VIEWER)))
    if by_status:
        query = query.where(Permit.status.in_(bindparam("statuses", expanding=True)))
    if by_level:
        query = query.where(Permit.review_level == bindparam("review_level"))
    if assigned_to_me:
        query = query.where(Permit.id.in_(permits_assigned_to(bindparam(VIEWER))))
    if searching:
        query = query.where(or_(*(func.lower(col).like(bindparam("like"), escape="\\") for col in (
            Permit.number, Permit.site_address, Permit.parcel_id, Permit.owner_name, Permit.proposed_use))))
    return query.order_by(Permit.created_at.desc(), Permit.id)


# ---- create and edit ----------------------------------------------------------------------------
def _columns(data: dict[str, Any]) -> dict[str, Any]:
    """The permit columns a create or patch body sets."""
    out = {key: data[key] for key in SIMPLE_COLUMNS if key in data}
    site = data.get("site") or {}
    for key, column in (("address", "site_address"), ("parcel_id", "parcel_id"), ("limit_of_work", "limit_of_work")):
        if key in site:
            out[column] = site[key]
    if "location" in site:
        out["site_lat"], out["site_lon"] = site["location"]["lat"], site["location"]["lon"]
    owner = data.get("owner") or {}
    for key in ("name", "email", "phone"):
        if key in owner:
            out[f"owner_{key}"] = owner[key]
    return out


def _applicant_for(user: User, data: dict[str, Any]) -> User | None:
    """The applicant of a new application; None when a supervisor opens an enforcement case (R-O0)."""
    if user.role == "applicant":
        if data.get("applicant_id") not in (None, user.id):
            raise Forbidden("Applicants file applications for themselves only.")
        return user
    if user.role != "supervisor":
        raise Forbidden("Only applicants and supervisors file applications.")
    if not data.get("applicant_id"):
        return None
    applicant = db.session.get(User, str(data["applicant_id"]))
    if applicant is None or applicant.role != "applicant" or not applicant.active:
        raise ValidationFailed(errors={"applicant_id": ["No active applicant with this id."]})
    return applicant


def _check_draft_room(applicant: User) -> None:
    """One account may hold at most MAX_OPEN_DRAFTS unsubmitted applications (409 too_many_drafts):
    drafts cost the Town storage and every supervisor's and inspector's sync, and a real applicant
    files a handful. The applicant's row is locked first so parallel creates count one at a time
    (PostgreSQL; SQLite runs one writing transaction at a time anyway)."""
    limit = current_app.config["MAX_OPEN_DRAFTS"]
    db.session.execute(select(User.id).where(User.id == applicant.id).with_for_update())
    drafts = db.session.scalar(select(func.count()).select_from(Permit).where(
        Permit.applicant_id == applicant.id, Permit.status == "draft"))
    if drafts >= limit:
        raise Conflict(f"This account already has {drafts} draft applications (the limit is {limit}); submit, "
                       "withdraw or finish one of them first.", error="too_many_drafts",
                       errors={"drafts": [drafts], "limit": [limit]})


def create_permit(user: User, data: dict[str, Any]) -> tuple[Permit, bool]:
    """File an application as a draft (R-C1); idempotent on a client-made id. A supervisor naming no
    applicant opens an enforcement case instead (status `unpermitted`, R-O0)."""
    applicant = _applicant_for(user, data)
    columns = _columns(data)
    problem = rules.luhppl_problem(columns.get("luhppl_kind"), columns.get("luhppl_description"))
    if problem:
        raise ValidationFailed(errors={"luhppl_description": [problem]})
    applicant_id = applicant.id if applicant else None
    permit_id = str(data["id"]) if data.get("id") else None
    existing = existing_for_create(Permit, permit_id, lambda p: p.applicant_id == applicant_id and all(
        getattr(p, k) == v for k, v in columns.items()))
    if existing is not None:
        return existing, False
    if applicant is None:
        cases.check_case_parties(data)
    else:
        _check_draft_room(applicant)
    status = "draft" if applicant else "unpermitted"
    permit = Permit(id=permit_id, applicant_id=applicant_id, created_by=user.id, status=status,
                    device_id=current_device_id(), device_created_at=data.get("device_created_at"),
                    former_numbers=[], **columns)
    db.session.add(permit)
    recompute_determination(permit)
    if applicant is None:
        permit.number = next_number("ENF", local_today().year)
    db.session.flush()
    _first_parties(user, permit, data, applicant)
    if applicant is not None:
        cases.link_to_case(permit, user, data.get("case_id"))
    record_event(permit, user, None, status, "Application started" if applicant else "Enforcement case opened")
    audit.record("permit.create" if applicant else "case.open", "permit", permit.id,
                 {**columns, "review_level": permit.review_level, "status": status,
                  "parties": [{"id": p.id, "role": p.role, "name": p.name} for p in permit.parties]},
                 actor=user, permit_id=permit.id)
    return permit, True


def _first_parties(user: User, permit: Permit, data: dict[str, Any], applicant: User | None) -> None:
    """R-O0: the owner named on the record and the applicant are its first parties; then those given."""
    owner = data["owner"]
    cases.add_party(user, permit, {"role": "owner", "name": owner["name"], "email": owner.get("email"),
                                   "phone": owner.get("phone"), "mailing_address": owner.get("mailing_address")},
                    audit_it=False)
    if applicant is not None:
        cases.add_party(user, permit, {"role": "applicant", "name": applicant.name, "email": applicant.email,
                                       "user_id": applicant.id}, audit_it=False)
    for party in data.get("parties") or []:
        if user.role != "supervisor" and party.get("user_id"):
            raise Forbidden("Only supervisors link a party to an account.")
        cases.add_party(user, permit, party, audit_it=False)


def check_can_edit(user: User, permit: Permit) -> None:
    if user.role == "applicant" and permit.applicant_id == user.id:
        allowed = APPLICANT_EDITABLE
    elif user.role == "supervisor":
        allowed = SUPERVISOR_EDITABLE
    else:
        raise Forbidden("Only the applicant and supervisors edit an application.")
    if permit.status not in allowed:
        raise Conflict(f"The application is {permit.status.replace('_', ' ')} and can no longer be edited"
                       + (" by the applicant." if user.role == "applicant" else "."), error="permit_locked")


def update_permit(user: User, permit: Permit, data: dict[str, Any], expected_version: int | None) -> Permit:
    check_can_edit(user, permit)
    check_version(permit, expected_version, dump_permit)
    columns = _columns(data)
    kind = columns.get("luhppl_kind", permit.luhppl_kind)
    if kind != "other" and "luhppl_kind" in columns:
        columns.setdefault("luhppl_description", None)
    problem = rules.luhppl_problem(kind, columns.get("luhppl_description", permit.luhppl_description))
    if problem:
        raise ValidationFailed(errors={"luhppl_description": [problem]})
    before = {key: getattr(permit, key) for key in columns}
    changes = audit.diff(before, columns)
    if not changes:
        return permit
    for key, value in columns.items():
        setattr(permit, key, value)
    if data.get("owner"):
        cases.sync_owner_party(permit, data["owner"])
    level_before = (permit.review_level, permit.number)
    if any(key in INPUT_COLUMNS for key in changes):
        recompute_determination(permit)
        if "disturbed_area_sqft" in changes:
            recompute_project(permit, user, "the disturbed area of a linked application changed (R-A7)")
    if (permit.review_level, permit.number) != level_before:
        changes["review_level"] = [level_before[0], permit.review_level]
        changes["number"] = [level_before[1], permit.number]
    bump(permit)
    db.session.flush()
    audit.record("permit.update", "permit", permit.id, changes, actor=user, permit_id=permit.id)
    return permit


def force_status(permit: Permit, status: str) -> None:
    """Set a status without the transition rules: for fixtures and demo data only."""
    permit.status = status
    if status in UNDER_REVIEW or (status not in ("draft", "withdrawn") and permit.number is None):
        assign_number(permit, local_today())
    bump(permit)
    db.session.flush()


def set_cease_and_desist(permit: Permit, flag: bool, actor: User | None = None) -> None:
    """Raised while a cease-and-desist order is open (R-O1(a)); every device warns on this site."""
    if permit.cease_and_desist != flag:
        permit.cease_and_desist = flag
        bump(permit)
        db.session.flush()
        audit.record("permit.cease_and_desist", "permit", permit.id, {"cease_and_desist": [not flag, flag]},
                     actor=actor, permit_id=permit.id)


# ---- assignments --------------------------------------------------------------------------------
def active_assignment(permit: Permit, inspector_id: str) -> Assignment | None:
    return next((a for a in permit.assignments if a.inspector_id == inspector_id and a.removed_at is None), None)


def assign_inspector(permit: Permit, inspector_id: str, actor: User) -> Assignment:
    """Assign an inspector to the site; assigning twice answers the existing assignment."""
    existing = active_assignment(permit, inspector_id)
    if existing is not None:
        return existing
    inspector = db.session.get(User, inspector_id)
    if inspector is None or inspector.role != "inspector" or not inspector.active:
        raise ValidationFailed(errors={"inspector_id": ["No active inspector with this id."]})
    if permit.status in ("denied", "withdrawn", "closed"):
        raise Conflict(f"The permit is {permit.status}; there is no site work to assign.")
    assignment = Assignment(permit_id=permit.id, inspector_id=inspector_id, assigned_by=actor.id, assigned_at=clock.now())
    permit.assignments.append(assignment)
    bump(permit)
    db.session.flush()
    audit.record("permit.assign", "permit", permit.id, {"inspector_id": inspector_id}, actor=actor, permit_id=permit.id)
    return assignment


def unassign_inspector(permit: Permit, inspector_id: str, actor: User) -> Assignment:
    """End an assignment (kept, with removed_at, so devices drop the site on their next pull)."""
    assignment = active_assignment(permit, inspector_id)
    if assignment is None:
        raise NotFound("This inspector is not assigned to the permit.")
    assignment.removed_at, assignment.removed_by = clock.now(), actor.id
    bump(assignment)
    bump(permit)
    db.session.flush()
    audit.record("permit.unassign", "permit", permit.id, {"inspector_id": inspector_id}, actor=actor,
                 permit_id=permit.id)
    return assignment
