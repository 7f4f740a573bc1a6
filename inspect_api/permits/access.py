"""Who may see and touch which permit: the one query helper every domain scopes by.

- applicant: only permits they applied for, and permits or enforcement cases naming them as a party
  through their account (R-O0); a violator with no account sees nothing through the API;
- inspector and supervisor: every permit (inspectors record field work only where assigned);
- admin: manages accounts and devices, and sees no records' content (DOMAIN.md "Who uses it").
A permit the caller may not see answers 404, never 403, so ids cannot be probed.
"""
from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy import Select, select

from ..errors import Forbidden, NotFound
from ..extensions import db
from .models import Assignment, Party, Permit


def visible_permit_ids(user) -> Select:
    """A SELECT of the permit ids `user` may see; use it in `.where(Model.permit_id.in_(...))`."""
    query = select(Permit.id)
    if user.role == "applicant":
        return query.where(sa.or_(Permit.applicant_id == user.id,
                                  Permit.id.in_(select(Party.permit_id).where(Party.user_id == user.id))))
    if user.role in ("inspector", "supervisor"):
        return query
    return query.where(sa.false())


def visible_permits(user) -> Select:
    return select(Permit).where(Permit.id.in_(visible_permit_ids(user)))


def get_visible_permit(user, permit_id: str, *, for_update: bool = False) -> Permit:
    query = visible_permits(user).where(Permit.id == str(permit_id))
    if for_update:
        query = query.with_for_update()
    permit = db.session.scalar(query)
    if permit is None:
        raise NotFound("No such permit.")
    return permit


def assigned_permit_ids(user) -> Select:
    return select(Assignment.permit_id).where(Assignment.inspector_id == user.id, Assignment.removed_at.is_(None))


def is_assigned(user, permit: Permit) -> bool:
    return db.session.scalar(
        select(sa.func.count()).select_from(Assignment).where(
            Assignment.permit_id == permit.id, Assignment.inspector_id == user.id, Assignment.removed_at.is_(None))
    ) > 0


def check_field_work(user, permit: Permit) -> None:
    """Inspections, samples and entry authorizations: supervisors anywhere, inspectors where assigned."""
    if user.role == "supervisor":
        return
    if user.role == "inspector" and is_assigned(user, permit):
        return
    if user.role == "inspector":
        raise Forbidden("You are not assigned to this site; ask a supervisor to assign you.")
    raise Forbidden("Only inspectors and supervisors record field work.")
