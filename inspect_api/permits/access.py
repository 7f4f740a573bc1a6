"""Who may see and touch which permit: the one query helper every domain scopes by.

- applicant: only permits they applied for, and permits or enforcement cases naming them as a party
  through their account (R-O0); a violator with no account sees nothing through the API;
- inspector and supervisor: every permit (inspectors record field work only where assigned);
- admin: manages accounts and devices, and sees no records' content (DOMAIN.md "Who uses it").
A permit the caller may not see answers 404, never 403, so ids cannot be probed.
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Iterable, Iterator

import sqlalchemy as sa
from sqlalchemy import ColumnElement, CompoundSelect, Select, event, select
from sqlalchemy.orm import Session

from ..auth.models import STAFF_ROLES
from ..errors import Forbidden, NotFound
from ..extensions import db
from ..paging import chunks
from .models import Assignment, Party, Permit


# The kinds of scope a caller has (`scope_of`): every permit, their own (and those naming them as a
# party), or none.
STAFF_SCOPE, APPLICANT_SCOPE, NO_SCOPE = "staff", "applicant", "none"
# The bound parameter that holds the caller's id in a scope built for any caller of its kind.
VIEWER = "viewer_id"


def scope_of(user) -> str:
    if user.role == "applicant":
        return APPLICANT_SCOPE
    return STAFF_SCOPE if user.role in STAFF_ROLES else NO_SCOPE


def scope_values(user) -> dict[str, str]:
    """The values a scope built with `bindparam(VIEWER)` needs for `user` (paging.page_of)."""
    return {VIEWER: user.id}


def visible_permit_ids(user) -> Select | CompoundSelect:
    """A SELECT of the permit ids `user` may see. To scope a query, use permit_visible, which spares
    staff the walk over every permit."""
    return scoped_permit_ids(scope_of(user), user.id)


def scoped_permit_ids(scope: str, viewer) -> Select | CompoundSelect:
    """The permit ids a caller of `scope` may see, `viewer` their id (a value, or `bindparam(VIEWER)`
    for a statement built once for every caller of the scope).

    An applicant's are the permits they applied for and those naming them as a party, as the UNION of
    the two (each read through its own index), not as one scan of permits with an OR: PostgreSQL
    guessed half of all permits would match that OR, and then read an applicant's page by walking
    every finding in order (benchmarks/visibility.py)."""
    if scope == APPLICANT_SCOPE:
        return sa.union(select(Permit.id).where(Permit.applicant_id == viewer),
                        select(Party.permit_id).where(Party.user_id == viewer))
    if scope == STAFF_SCOPE:
        return select(Permit.id)
    return select(Permit.id).where(sa.false())


def permit_visible(permit_id: ColumnElement, user) -> ColumnElement[bool]:
    """The criterion that the permit a record names (`permit_id`, a column of permit ids) is one `user`
    may see: `.where(permit_visible(Model.permit_id, user))`."""
    return permit_scoped(permit_id, scope_of(user), user.id)


def permit_scoped(permit_id: ColumnElement, scope: str, viewer) -> ColumnElement[bool]:
    """permit_visible for any caller of `scope`, `viewer` their id (a value, or `bindparam(VIEWER)`).

    Staff see every permit, so for them it asks only that the record names one (the column is a
    foreign key to permits, enforced on every database, and permits are never deleted: "names a
    permit" and "names a permit there is" are the same). Asking `IN (SELECT id FROM permits)` instead
    made SQLite look each permit's records up and sort all of them before it cut a page: a staff
    list's cost grew with the Town's every permit (benchmarks/visibility.py). Anyone else is asked
    against the ids they may see (scoped_permit_ids)."""
    if scope == STAFF_SCOPE:
        return permit_id.is_not(None)
    return permit_id.in_(scoped_permit_ids(scope, viewer))


def visible_permits(user) -> Select:
    return select(Permit).where(permit_visible(Permit.id, user))


def get_visible_permit(user, permit_id: str, *, for_update: bool = False) -> Permit:
    batch = _batch(user)
    if batch is not None and not for_update:
        permit = batch["permits"].get(str(permit_id))
        if permit is not None:
            return permit
    query = visible_permits(user).where(Permit.id == str(permit_id))
    if for_update:
        query = query.with_for_update()
    permit = db.session.scalar(query)
    if permit is None:
        raise NotFound("No such permit.")
    return permit


def files_for(user, permit: Permit) -> bool:
    """Who files on a permit (close-out records, their documents): its own applicant, or a supervisor
    entering one received on paper. A party linked to the permit (contractor, owner) reads it but never
    files for the applicant (DOMAIN.md "Who uses it")."""
    if user.role == "supervisor":
        return True
    return user.role == "applicant" and permit.applicant_id is not None and permit.applicant_id == user.id


def assigned_permit_ids(user) -> Select:
    return permits_assigned_to(user.id)


def permits_assigned_to(inspector) -> Select:
    """The ids of the permits an inspector is assigned to now: `inspector` their id, or
    `bindparam(VIEWER)` for a statement built once for every caller (paging.page_of)."""
    return select(Assignment.permit_id).where(Assignment.inspector_id == inspector, Assignment.removed_at.is_(None))


def is_assigned(user, permit: Permit) -> bool:
    batch = _batch(user)
    if batch is not None:
        return str(permit.id) in batch["assigned"]
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


# --- a batch that reads who sees what once (sync push) ----------------------------------------------
# A push of a hundred records on a few permits would ask, per record, whether the caller sees the
# permit and (an inspector) is assigned to it. batch_access answers both from one query each for the
# whole batch. Only what the database said is kept: a permit not found is asked again (it may be made
# by an earlier mutation of the batch), and any flush that writes a permit, a party or an assignment
# drops the lot, so a change made inside the batch is seen by the next check exactly as before.
_BATCH = "access_batch"


@contextmanager
def batch_access(user, permit_ids: Iterable[str], chunk: int = 1000) -> Iterator[None]:
    session = db.session()
    if session.info.get(_BATCH) is not None:  # nested: the outer batch's answers stand
        yield
        return
    session.info[_BATCH] = _load(user, permit_ids, chunk)
    try:
        yield
    finally:
        session.info.pop(_BATCH, None)


def _load(user, permit_ids: Iterable[str], chunk: int) -> dict:
    ids = sorted({str(i) for i in permit_ids if i})
    permits: dict[str, Permit] = {}
    for part in chunks(ids, chunk):
        permits.update({p.id: p for p in db.session.scalars(
            visible_permits(user).where(Permit.id.in_(part)))})
    assigned = set(db.session.scalars(assigned_permit_ids(user)))
    return {"user": (user.id, user.role), "permits": permits, "assigned": assigned, "ids": ids, "chunk": chunk,
            "who": user}


def _batch(user) -> dict | None:
    batch = db.session.info.get(_BATCH)
    if batch is None or batch["user"] != (user.id, user.role):
        return None
    if batch.get("stale"):
        fresh = _load(batch["who"], batch["ids"], batch["chunk"])
        batch.clear()
        batch.update(fresh)
    return batch


@event.listens_for(Session, "after_flush")
def _access_changed(session: Session, _flush_context) -> None:
    batch = session.info.get(_BATCH)
    if batch is None or batch.get("stale"):
        return
    for objects in (session.new, session.dirty, session.deleted):  # each read once (a new set per access)
        if any(isinstance(obj, (Permit, Party, Assignment)) for obj in objects):
            batch["stale"] = True  # reloaded (one query each) at the next check, not inside the flush
            return
