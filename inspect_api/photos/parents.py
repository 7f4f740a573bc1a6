"""Photo parents: the check made when a photo arrives (PUT /photos/{id} and tus alike), and the
query that says when a stored photo counts for its parent record.

A parent the server does not have yet is allowed (devices upload whatever is ready first), but
such a photo counts for nothing until its parent exists on the same permit and its uploader had
the right to edit that kind of record there (`attached`). That is evaluated when photos are read,
never stored, so it cannot go stale: the moment the parent arrives the photo shows with it. Until
then it is seen only by its uploader and supervisors, and it is in no report.

The uploader's right is judged as of the upload: an inspector's photos stay evidence after the
inspector is taken off the site, but a photo from an account that never had the right (an
applicant's "inspection photo", an unassigned inspector's) never counts.
"""
from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy import ColumnElement, event, exists, select
from sqlalchemy.orm import Session

from .. import changes
from ..auth.models import User
from ..errors import Conflict, Forbidden, ValidationFailed
from ..extensions import db
from ..paging import chunks
from ..inspections import rules as inspection_rules
from ..inspections.models import Finding, Inspection
from ..permits.access import is_assigned, permit_visible
from ..permits.models import Assignment, Permit
from . import parent_rules
from .models import Photo, PhotoAnnotation


# parent_type -> the model of that record. Filled by the app factory (register_parent): some of those
# domains sit beside photos or above it (sampling, completion) and may not be imported from here.
_PARENT_MODELS: dict[str, type] = {}


def register_parent(parent_type: str, model: type) -> None:
    if parent_type not in (*parent_rules.FIELD_PARENTS, *parent_rules.FILED_PARENTS):
        raise RuntimeError(f"{parent_type!r} is not a photo parent type (photos/parent_rules.py)")
    _PARENT_MODELS[parent_type] = model


def check_parents() -> None:
    """Stop the start when a parent type has no model: its photos could never count."""
    missing = [kind for kind in (*parent_rules.FIELD_PARENTS, *parent_rules.FILED_PARENTS) if kind not in _PARENT_MODELS]
    if missing:
        raise RuntimeError(f"Photo parent types without a model: {', '.join(missing)}")


def parent_models() -> dict[str, type]:
    return _PARENT_MODELS


def _locked(parent_type: str, record) -> bool:
    if parent_rules.parent_locked(
            parent_type, status=getattr(record, "status", None),
            deleted=getattr(record, "deleted_at", None) is not None,
            revoked=getattr(record, "revoked_at", None) is not None):
        return True
    owner_id = getattr(record, "inspection_id", None) if parent_type == "finding" else None
    owner = db.session.get(Inspection, owner_id) if owner_id else None
    return owner is not None and parent_rules.owner_locked(
        parent_type, owner_status=owner.status, owner_deleted=owner.deleted_at is not None)


def check_attach(user, permit: Permit, parent_type: str | None, parent_id: str | None) -> None:
    """May `user` add a photo to `permit` under this parent? Raises 409 record_locked (closed permit,
    locked parent), 403 forbidden (no right to edit that kind of record here), 422 (a parent the
    caller can see on another permit). A parent on a permit the caller cannot see answers exactly
    like one not yet synced, so the check reveals nothing of other permits."""
    if parent_rules.permit_locked(permit.status):
        raise Conflict(f"The permit is {permit.status}; it takes no new photos.", error="record_locked")
    assigned = user.role == "inspector" and is_assigned(user, permit)
    if not parent_rules.may_attach(parent_type, user.role, assigned=assigned,
                                   owns_permit=permit.applicant_id == user.id):
        raise Forbidden(parent_rules.refusal(parent_type, user.role))
    if parent_type is None:
        return
    record = db.session.get(parent_models()[parent_type], str(parent_id))
    if record is None:
        return  # not synced yet: allowed, and counted only once it arrives (see `attached`)
    if record.permit_id != permit.id:
        if db.session.scalar(select(Permit.id).where(Permit.id == record.permit_id,
                                                     permit_visible(Permit.id, user))) is not None:
            raise ValidationFailed("The parent record belongs to another permit.",
                                   errors={"parent_id": ["Must be a record of this permit."]})
        return
    if _locked(parent_type, record):
        raise Conflict(f"This {parent_rules.words(parent_type)} is locked; it takes no new photos.",
                       error="record_locked")


def photo_locked(photo: Photo, permit: Permit) -> bool:
    """Is the record `photo` is evidence of locked (check_attach's 409 record_locked): a closed permit,
    or a parent that exists on the permit and is locked? A parent not synced yet locks nothing."""
    if parent_rules.permit_locked(permit.status):
        return True
    if photo.parent_type is None or photo.parent_type not in parent_models():
        return False
    record = db.session.get(parent_models()[photo.parent_type], str(photo.parent_id))
    if record is None or record.permit_id != photo.permit_id:
        return False
    return _locked(photo.parent_type, record)


def attached() -> ColumnElement[bool]:
    """SQL, correlated to Photo: the photo counts for its parent (or has none)."""
    role = select(User.role).where(User.id == Photo.created_by).correlate(Photo).scalar_subquery()
    was_assigned = exists().where(
        Assignment.permit_id == Photo.permit_id, Assignment.inspector_id == Photo.created_by,
        Assignment.assigned_at <= Photo.created_at,
        sa.or_(Assignment.removed_at.is_(None), Assignment.removed_at > Photo.created_at)).correlate(Photo)
    owns_permit = exists().where(Permit.id == Photo.permit_id, Permit.applicant_id == Photo.created_by).correlate(Photo)
    field_right = sa.or_(role == "supervisor", sa.and_(role == "inspector", was_assigned))
    filed_right = sa.or_(role == "supervisor", sa.and_(role == "applicant", owns_permit))
    branches = [Photo.parent_type.is_(None)]
    for kind, model in parent_models().items():
        conditions = [model.id == Photo.parent_id, model.permit_id == Photo.permit_id]
        if hasattr(model, "deleted_at"):
            conditions.append(model.deleted_at.is_(None))
        right = field_right if kind in parent_rules.FIELD_PARENTS else filed_right
        branches.append(sa.and_(Photo.parent_type == kind, exists().where(*conditions).correlate(Photo), right))
    return sa.or_(*branches)


def is_attached(photo: Photo) -> bool:
    return bool(db.session.scalar(select(sa.literal(True)).select_from(Photo)
                                  .where(Photo.id == photo.id, attached())))


# -- sync: a photo that starts to count is sent again ------------------------------------------------
# Whether a photo counts is read, not stored, so nothing about the photo row changes when its parent
# arrives, or when an inspection becomes the applicant's to see (a draft submitted, a returned one
# approved: inspections.rules.shown_to_applicant) and so do its findings and photos. Devices pull by change, so those rows are marked changed then (changes.touch's
# bookkeeping) and every device that skipped them receives them on its next pull.


def _awakened(session: Session) -> tuple[list[tuple[str, str]], list[str]]:
    """(parent_type, id) of parents that just appeared, and ids of inspections the applicant now sees."""
    kinds = {model: kind for kind, model in parent_models().items()}
    parents, submitted = [], []
    for obj in session.new:
        kind = kinds.get(type(obj))
        if kind is not None:
            parents.append((kind, str(obj.id)))
    for obj in session.dirty:
        if isinstance(obj, Inspection):
            history = sa.inspect(obj).attrs.status.history
            if history.deleted and inspection_rules.shown_to_applicant(obj.status, False):
                submitted.append(str(obj.id))
    return parents, submitted


_AWAKENED = "photos_awakened_parents"


@event.listens_for(Session, "after_flush")
def _resend_children(session: Session, _flush_context) -> None:
    parents, submitted = _awakened(session)
    if parents or submitted:
        seen = session.info.setdefault(_AWAKENED, ({}, {}))
        seen[0].update(dict.fromkeys(parents))
        seen[1].update(dict.fromkeys(submitted))


def _touch_children(session: Session) -> None:
    """The photos (and a submitted inspection's findings) of what the transaction's flushes made
    appear, looked up once at COMMIT rather than once per flush: a sync push flushes once per record.
    Runs before the change feed numbers the transaction (registered first), so they are numbered in it."""
    if session.in_nested_transaction():
        return  # a SAVEPOINT release; the real COMMIT comes later
    session.flush()
    found = session.info.pop(_AWAKENED, None)
    if not found:
        return
    parents, submitted = list(found[0]), list(found[1])
    with session.no_autoflush:
        if submitted:
            for finding_id, permit_id in session.execute(select(Finding.id, Finding.permit_id).where(
                    Finding.inspection_id.in_(submitted))):
                changes.touch_row(Finding, finding_id, permit_id, session)
                parents.append(("finding", str(finding_id)))
            parents += [("inspection", i) for i in submitted]
        by_kind: dict[str, list[str]] = {}
        for kind, pid in parents:
            by_kind.setdefault(kind, []).append(pid)
        photo_ids: list[str] = []
        for kind, ids in by_kind.items():  # one IN list per kind, not an OR of a pair per parent
            for chunk in chunks(ids, 400):
                for photo_id, permit_id in session.execute(select(Photo.id, Photo.permit_id).where(
                        Photo.parent_type == kind, Photo.parent_id.in_(chunk))):
                    changes.touch_row(Photo, photo_id, permit_id, session)
                    photo_ids.append(photo_id)
        # A photo's markup is seen by exactly those who see the photo: it is sent again with it.
        for chunk in chunks(photo_ids, 400):
            for annotation_id, permit_id in session.execute(select(PhotoAnnotation.id, PhotoAnnotation.permit_id).where(
                    PhotoAnnotation.photo_id.in_(chunk))):
                changes.touch_row(PhotoAnnotation, annotation_id, permit_id, session)


# insert=True: ahead of the change feed's and the snapshots' commit hooks, which number what this touches.
event.listen(Session, "before_commit", _touch_children, insert=True)


@event.listens_for(Session, "after_rollback")
def _forget_awakened(session: Session) -> None:
    if not session.in_transaction():
        session.info.pop(_AWAKENED, None)
