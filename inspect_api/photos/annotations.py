"""Photo markup (the `photo_annotation` sync entity): load, check, change, flush (never commit).

An annotation is seen by exactly those who may see its photo (services.visible_photos), and made,
changed and deleted as annotation_rules says. Devices push it through POST /sync/push; the API
answers a photo's annotations and the annotated image. Drawing never touches the photo: its
original bytes and SHA-256 stay as uploaded (markup.py draws on a copy of the display rendition).
"""
from __future__ import annotations

from collections import defaultdict
from datetime import timezone
from typing import Any, Iterable

from sqlalchemy import Select, select

from .. import audit, clock, renditions
from ..auth.permissions import current_device_id
from ..errors import Conflict, Forbidden, NotFound
from ..extensions import db
from ..paging import chunks
from ..permits.access import is_assigned
from ..permits.models import Permit
from ..records import add_new, check_version, existing_for_create
from . import annotation_rules as rules, derivation, markup, parents
from .models import Photo, PhotoAnnotation
from .services import get_photo, names_of, rfc3339, visible_photos

ANNOTATED_KIND = "annotated-photo"


# -- queries ---------------------------------------------------------------------------------------
def visible_annotations(user) -> Select:
    """The annotations of the photos `user` may see (not deleted ones)."""
    seen = visible_photos(user).with_only_columns(Photo.id).order_by(None)
    return select(PhotoAnnotation).where(PhotoAnnotation.photo_id.in_(seen), PhotoAnnotation.deleted_at.is_(None))


def get_annotation(user, record_id: str) -> PhotoAnnotation:
    record = db.session.scalar(visible_annotations(user).where(PhotoAnnotation.id == str(record_id)))
    if record is None:
        raise NotFound("No such photo annotation.")
    return record


def annotations_of(photo_ids: Iterable[str]) -> dict[str, list[PhotoAnnotation]]:
    """The annotations of photos the caller has already been allowed to see, by photo id, oldest
    first (the order they are drawn in), in one query per chunk of ids."""
    ids = sorted({str(i) for i in photo_ids})
    found: dict[str, list[PhotoAnnotation]] = defaultdict(list)
    for chunk in chunks(ids):
        for record in db.session.scalars(select(PhotoAnnotation).where(
                PhotoAnnotation.photo_id.in_(chunk), PhotoAnnotation.deleted_at.is_(None))
                .order_by(PhotoAnnotation.created_at, PhotoAnnotation.id)):
            found[record.photo_id].append(record)
    return dict(found)


def markup_of(photo_ids: Iterable[str]) -> dict[str, list[PhotoAnnotation]]:
    """annotations_of, less the markups their authors emptied: what is drawn on each photo."""
    found = {pid: [r for r in records if r.shapes] for pid, records in annotations_of(photo_ids).items()}
    return {pid: records for pid, records in found.items() if records}


def list_for_photo(user, photo_id: str) -> list[PhotoAnnotation]:
    photo = get_photo(user, photo_id)
    return annotations_of([photo.id]).get(photo.id, [])


# -- the JSON shape --------------------------------------------------------------------------------
def dump_annotations(records: Iterable[PhotoAnnotation]) -> list[dict[str, Any]]:
    records = list(records)
    names = names_of({r.created_by for r in records if r.created_by is not None})
    return [{
        "id": r.id, "photo_id": r.photo_id, "permit_id": r.permit_id, "shapes": r.shapes,
        "created_by": r.created_by,
        "drawn_by": {"id": r.created_by, "name": names.get(r.created_by)} if r.created_by else None,
        "device_id": r.device_id, "device_created_at": rfc3339(r.device_created_at), "version": r.version,
        "created_at": rfc3339(r.created_at), "updated_at": rfc3339(r.updated_at),
    } for r in records]


def dump_annotation(record: PhotoAnnotation) -> dict[str, Any]:
    return dump_annotations([record])[0]


# -- checks ----------------------------------------------------------------------------------------
def _photo_for(user, photo_id: str) -> Photo:
    """The photo a new annotation names: one the caller may see, else 404 naming the field (a photo
    not uploaded yet answers the same, so the device sends the markup again once the photo is up)."""
    try:
        return get_photo(user, str(photo_id))
    except NotFound:
        raise NotFound("No such photo: upload the photo before its markup.",
                       errors={"photo_id": ["No photo with this id that you may see."]}) from None


def _check(user, photo: Photo, record: PhotoAnnotation | None = None) -> None:
    """May `user` draw this markup (a new one, or a change to `record`) on `photo`? 403 forbidden
    (not the author, no right to add the photo), 409 record_locked (its record or permit is locked)."""
    if record is not None and not rules.may_change(user.role, author=record.created_by == user.id):
        raise Forbidden("Only the one who drew this markup, or a supervisor, may change or delete it.")
    permit = db.session.get(Permit, photo.permit_id)
    assigned = user.role == "inspector" and is_assigned(user, permit)
    if not rules.may_mark_up(photo.parent_type, user.role, assigned=assigned,
                             owns_permit=permit.applicant_id == user.id):
        raise Forbidden(rules.refusal(photo.parent_type, user.role))
    if rules.refused_by_lock(user.role, locked=parents.photo_locked(photo, permit)):
        what = f"The permit is {permit.status}" if permit.status == "closed" else \
            f"This photo's {(photo.parent_type or 'record').replace('_', ' ')} is locked"
        raise Conflict(f"{what}; its photos take no new or changed markup (a supervisor may still mark them up).",
                       error="record_locked")


# -- changes ---------------------------------------------------------------------------------------
def create_annotation(user, data: dict[str, Any]) -> tuple[PhotoAnnotation, bool]:
    """A new markup of a photo; the same id with the same photo and shapes again is (existing, False),
    with anything else 409 conflict."""
    photo = _photo_for(user, data["photo_id"])
    shapes = rules.normalised(data["shapes"])
    record_id = str(data["id"]) if data.get("id") else None
    existing = existing_for_create(PhotoAnnotation, record_id,
                                   lambda r: r.photo_id == photo.id and r.shapes == shapes and r.deleted_at is None)
    if existing is not None:
        return existing, False
    _check(user, photo)
    device_clock = data.get("device_created_at")
    record = PhotoAnnotation(photo_id=photo.id, permit_id=photo.permit_id, shapes=shapes, created_by=user.id,
                             device_id=current_device_id(),
                             device_created_at=device_clock.astimezone(timezone.utc) if device_clock else None)
    if record_id:
        record.id = record_id
    add_new(record)
    audit.record("photo_annotation.create", "photo_annotation", record.id,
                 {"photo_id": photo.id, "photo_sha256": photo.sha256, "drawn_by": record.created_by,
                  **rules.summary(shapes)}, actor=user, permit_id=photo.permit_id)
    return record, True


def update_annotation(user, record: PhotoAnnotation, data: dict[str, Any],
                      expected_version: int | None) -> PhotoAnnotation:
    """Redraw a markup: its shapes as a whole (author or supervisor, photo not locked)."""
    _check(user, db.session.get(Photo, record.photo_id), record)
    db.session.refresh(record, with_for_update=True)
    check_version(record, expected_version, dump_annotation)
    if "shapes" not in data:
        return record
    shapes = rules.normalised(data["shapes"])
    if shapes == record.shapes:
        return record
    before = rules.summary(record.shapes)
    record.shapes = shapes
    record.bump_version()
    db.session.flush()
    audit.record("photo_annotation.update", "photo_annotation", record.id,
                 {"photo_id": record.photo_id, "drawn_by": record.created_by,
                  "before": before, "after": rules.summary(shapes)}, actor=user, permit_id=record.permit_id)
    return record


def delete_annotation(user, record: PhotoAnnotation, expected_version: int | None) -> PhotoAnnotation:
    """Take a markup off its photo (author or supervisor, photo not locked); the row stays as a
    tombstone, with the audit rows of what it showed."""
    _check(user, db.session.get(Photo, record.photo_id), record)
    db.session.refresh(record, with_for_update=True)
    check_version(record, expected_version, dump_annotation)
    record.deleted_at = clock.now()
    record.bump_version()
    db.session.flush()
    audit.record("photo_annotation.delete", "photo_annotation", record.id,
                 {"photo_id": record.photo_id, "drawn_by": record.created_by, **rules.summary(record.shapes)},
                 actor=user, permit_id=record.permit_id)
    return record


# -- the annotated image ---------------------------------------------------------------------------
def render_annotated(photo: Photo, records: list[PhotoAnnotation], *,
                     max_side: int | None = None) -> renditions.Rendered:
    """The display rendition with every annotation drawn on it, as new JPEG bytes; before the worker
    made the display rendition, drawn on one made from the original and not kept (keep=False)."""
    display, stored = derivation.thumbnail_bytes(photo.sha256, photo.original_key, "display", photo.display_key)
    return renditions.Rendered(markup.annotated_jpeg(display, [r.shapes for r in records], max_side=max_side),
                               keep=stored)


def annotated_inputs(photo: Photo, records: list[PhotoAnnotation]) -> dict[str, Any]:
    """What an annotated image is made from, to key its stored rendition: the photo's bytes and every
    annotation's version (and how markup is drawn)."""
    return {"photo": [photo.id, photo.sha256, photo.display_key], "style": markup.STYLE,
            "annotations": [[r.id, r.version] for r in records]}


def annotated_response(user, photo_id: str):
    """GET /photos/{id}/annotated: 404 for a photo the caller may not see and for one without markup
    (its plain display rendition is GET /photos/{id}/thumbnail)."""
    photo = get_photo(user, photo_id)
    records = markup_of([photo.id]).get(photo.id, [])
    if not records:
        raise NotFound("This photo has no markup; its display rendition is GET /photos/{id}/thumbnail.")
    # Everyone who sees the photo sees all of its markup: one rendition serves every viewer.
    return renditions.respond(ANNOTATED_KIND, "viewer", annotated_inputs(photo, records),
                              lambda: render_annotated(photo, records), filename=f"{photo.id}-annotated.jpg",
                              content_type="image/jpeg", extension="jpg")
