"""Photo operations: load, check, change, flush (never commit).

Photos arrive only as bytes (PUT /photos/{id} or a finished resumable upload), both through
`ingest_received`, so one code path decides what is accepted. Sync carries photo records for
reading (`visible_photos`, `dump_photo`); it never creates them.

An upload is answered once the original is verified and stored (read_image: type, limits, a whole
container, EXIF; no pixel decoded); its thumbnails are a job for the worker (derivation.py), or
made within the request when PHOTO_DERIVE_INLINE is set.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any, Iterable

from flask import current_app
import sqlalchemy as sa
from sqlalchemy import Select, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm.util import identity_key

from .. import audit, clock
from ..auth.models import User
from ..auth.permissions import current_device_id
from ..errors import ChecksumMismatch, Conflict, NotFound, PayloadTooLarge, UnsupportedMediaType, ValidationFailed
from ..extensions import db
from ..inspections.finding_services import visible_findings
from ..inspections.models import Inspection, Finding
from ..inspections.services import visible_inspections
from ..paging import chunks, page_query
from ..permits.access import get_visible_permit, permit_visible
from ..permits.models import Permit
from ..records import valid_uuid
from ..storage import blob_key, get_storage
from ..uploads import Received, temp_dir
from . import derivation, imaging, parents, rules
from .models import Photo

log = logging.getLogger(__name__)

# Declared types accepted at the door; "image/heif" is the same container as "image/heic".
DECLARED_TYPES = {"image/jpeg": "image/jpeg", "image/png": "image/png", "image/webp": "image/webp",
                  "image/heic": "image/heic", "image/heif": "image/heic"}
API = "/api/v1"


# -- queries ---------------------------------------------------------------------------------------
def visible_photos(user) -> Select:
    """Photos of the permits `user` may see (applicants: their own permits only), and of those only
    the ones that count for their parent (parents.attached), except to their uploader and to
    supervisors, who see a photo still waiting for its parent (or one that will never count).
    A photo belongs with its record: one on an inspection the caller may not see (an applicant and
    a draft), or on a finding of one, stays hidden with it."""
    query = select(Photo).where(permit_visible(Photo.permit_id, user))
    if user.role != "supervisor":
        query = query.where(sa.or_(Photo.created_by == user.id, parents.attached()))
    if user.role == "applicant":
        seen = visible_inspections(user).with_only_columns(Inspection.id)
        seen_findings = visible_findings(user).with_only_columns(Finding.id).order_by(None)
        query = query.where(sa.or_(Photo.parent_type.is_(None), Photo.parent_type.notin_(("inspection", "finding")),
                                   sa.and_(Photo.parent_type == "inspection", Photo.parent_id.in_(seen)),
                                   sa.and_(Photo.parent_type == "finding", Photo.parent_id.in_(seen_findings))))
    return query


def list_photos(user, args: dict[str, Any]) -> tuple[list[Photo], int]:
    query = visible_photos(user)
    for field in ("permit_id", "parent_type", "parent_id"):
        if args.get(field):
            query = query.where(getattr(Photo, field) == str(args[field]))
    return page_query(query.order_by(Photo.created_at, Photo.id), args)


def photo_seen_on_permit(user, permit_id: str, photo_id: str) -> bool:
    """Is `photo_id` a photo of `permit_id` the caller may see (permits.parts.PHOTO_SEEN_ON_PERMIT)?"""
    return db.session.scalar(visible_photos(user).with_only_columns(Photo.id).where(
        Photo.id == str(photo_id), Photo.permit_id == str(permit_id))) is not None


def get_photo(user, photo_id: str) -> Photo:
    photo = db.session.scalar(visible_photos(user).where(Photo.id == str(photo_id)))
    if photo is None:
        raise NotFound("No such photo.")
    return photo


def photos_of(user, parent_type: str, parent_id: str) -> list[Photo]:
    query = visible_photos(user).where(Photo.parent_type == parent_type, Photo.parent_id == str(parent_id))
    return list(db.session.scalars(query.order_by(Photo.created_at)))


# -- the JSON shape --------------------------------------------------------------------------------
def rfc3339(value: datetime | None, offset_min: int | None = None) -> str | None:
    if value is None:
        return None
    if offset_min:
        return value.astimezone(timezone(timedelta(minutes=offset_min))).isoformat()
    return value.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")


def dump_photos(photos: Iterable[Photo]) -> list[dict[str, Any]]:
    """The photos as answers give them, with their uploaders' names loaded for all of them at once."""
    photos = list(photos)
    names = _uploader_names({p.created_by for p in photos if p.created_by is not None})
    return [_dump(photo, names) for photo in photos]


def dump_photo(photo: Photo) -> dict[str, Any]:
    return dump_photos([photo])[0]


def _dump(photo: Photo, names: dict[str, str | None]) -> dict[str, Any]:
    # Every fix is the one GpsFix shape; parts the photo never had are left out.
    exif_gps = ({"lat": photo.exif_lat, "lon": photo.exif_lon,
                 **({"altitude_m": photo.exif_alt} if photo.exif_alt is not None else {})}
                if photo.exif_lat is not None else None)
    device_gps = ({"lat": photo.device_lat, "lon": photo.device_lon,
                   **({"accuracy_m": photo.device_accuracy_m} if photo.device_accuracy_m is not None else {})}
                  if photo.device_lat is not None else None)
    location = ({"lat": photo.location_lat, "lon": photo.location_lon, "source": photo.location_source}
                if photo.location_source else None)
    base = f"{API}/photos/{photo.id}"
    return {
        "id": photo.id, "permit_id": photo.permit_id, "parent_type": photo.parent_type, "parent_id": photo.parent_id,
        "sha256": photo.sha256, "content_type": photo.content_type, "width": photo.width, "height": photo.height,
        "bytes": photo.bytes, "orientation": photo.orientation,
        "camera_make": photo.camera_make, "camera_model": photo.camera_model,
        "taken_at": rfc3339(photo.taken_at, photo.taken_at_offset_min), "captured_at": rfc3339(photo.captured_at),
        "exif_gps": exif_gps, "device_gps": device_gps, "location": location,
        "distance_to_site_m": photo.distance_to_site_m, "within_site": photo.within_site,
        "far_from_site": photo.far_from_site,
        "url": f"{base}/original", "thumbnail_url": f"{base}/thumbnail",
        "small_thumbnail_url": f"{base}/thumbnail?size=small",
        "version": photo.version, "created_at": rfc3339(photo.created_at), "updated_at": rfc3339(photo.updated_at),
        "created_by": photo.created_by, "uploaded_by": _uploaded_by(photo, names), "device_id": photo.device_id,
        "device_created_at": rfc3339(photo.device_created_at),
    }


def _uploader_names(user_ids: set[str]) -> dict[str, str | None]:
    """The uploaders' names: those the session holds already (the caller, often) as they are, the rest
    in one query."""
    names: dict[str, str | None] = {}
    for user_id in user_ids:
        user = db.session.identity_map.get(identity_key(User, user_id))
        if user is not None and "name" not in sa.inspect(user).unloaded:
            names[user_id] = user.name
    ids = sorted(user_ids - names.keys())
    for chunk in chunks(ids):
        names.update(db.session.execute(select(User.id, User.name).where(User.id.in_(chunk))).all())
    return names


def names_of(user_ids: set[str]) -> dict[str, str | None]:
    """Account names by id (uploaders, those who drew markup), loaded at once."""
    return _uploader_names(user_ids)


def _uploaded_by(photo: Photo, names: dict[str, str | None]) -> dict[str, Any] | None:
    """Who uploaded the photo, shown wherever the photo is (lists, review screens, report captions)."""
    if photo.created_by is None:
        return None
    return {"id": photo.created_by, "name": names.get(photo.created_by)}


# -- checks made before the body is read -----------------------------------------------------------
def declared_type(mimetype: str | None) -> str:
    """415 unless the declared Content-Type is one of the four image types."""
    kind = DECLARED_TYPES.get((mimetype or "").lower())
    if kind is None:
        raise UnsupportedMediaType("Send the photo as image/jpeg, image/png, image/webp or image/heic.",
                                   errors={"Content-Type": [f"{mimetype or 'none'} is not accepted."]})
    return kind


def declared_sha256(value: str | None) -> str:
    digest = (value or "").strip().lower()
    if len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
        raise ValidationFailed("X-Content-SHA256 must be the 64-character hex SHA-256 of the bytes.",
                               errors={"X-Content-SHA256": ["Missing or not a hex SHA-256 digest."]})
    return digest


def check_length(length: int | None) -> None:
    limit = current_app.config["MAX_UPLOAD_BYTES"]
    if length is not None and length > limit:
        raise PayloadTooLarge(f"The photo is larger than the limit of {limit} bytes.", errors={"limit": [limit]})


def check_before_body(user, photo_id: str, meta: dict[str, Any]) -> str:
    """Everything that can be refused without reading the body: the id, the permit (404 if the
    caller may not see it) and the right to attach the photo to its parent (parents.check_attach).
    A resend of a photo already stored skips the parent check, so it stays idempotent even when the
    parent was locked meanwhile (ingest_received answers it from the stored photo). Returns the id."""
    photo_id = valid_uuid(photo_id)
    permit = get_visible_permit(user, meta["permit_id"])
    if existing_photo(user, photo_id) is None:
        parents.check_attach(user, permit, meta.get("parent_type"), meta.get("parent_id"))
    return photo_id


def existing_photo(user, photo_id: str) -> Photo | None:
    """The photo with this id, None if there is none; 404 if it exists but the caller may not see it
    (so an id someone else used cannot be probed through PUT either)."""
    if db.session.get(Photo, photo_id) is None:
        return None
    return get_photo(user, photo_id)


def release_transaction() -> None:
    """End the (read-only) transaction before a long body transfer, so no database lock or
    connection is held while a slow field connection trickles bytes in (SQLite takes its write lock
    at BEGIN)."""
    db.session.rollback()


# -- ingest ----------------------------------------------------------------------------------------
def _placement(permit: Permit, exif_gps: dict | None, device_gps: dict | None) -> dict[str, Any]:
    location = rules.choose_location(exif_gps, device_gps)
    if location is None:
        return {"location_lat": None, "location_lon": None, "location_source": None,
                "distance_to_site_m": None, "within_site": None, "far_from_site": None}
    distance = round(rules.haversine_m(location.lat, location.lon, permit.site_lat, permit.site_lon), 1)
    within = rules.within_polygon(permit.limit_of_work, location.lat, location.lon)
    far = False if within else rules.far_from_site(distance, current_app.config["PHOTO_FAR_FROM_SITE_M"])
    return {"location_lat": location.lat, "location_lon": location.lon, "location_source": location.source,
            "distance_to_site_m": distance, "within_site": within, "far_from_site": far}


def _new_photo(user, photo_id: str, permit: Permit, meta: dict, received: Received,
               derived: imaging.Inspected) -> Photo:
    info = derived.exif
    device_gps = ({"lat": meta["device_lat"], "lon": meta["device_lon"]} if meta.get("device_lat") is not None
                  else None)
    taken_offset = info.taken_at.utcoffset() if info.taken_at else None
    return Photo(
        id=photo_id, permit_id=permit.id, parent_type=meta.get("parent_type"), parent_id=meta.get("parent_id"),
        sha256=received.sha256, content_type=derived.content_type, bytes=received.size,
        width=derived.width, height=derived.height, orientation=info.orientation,
        camera_make=info.camera_make, camera_model=info.camera_model, taken_at=info.taken_at,
        taken_at_offset_min=int(taken_offset.total_seconds() // 60) if taken_offset is not None else None,
        exif_lat=(info.gps or {}).get("lat"), exif_lon=(info.gps or {}).get("lon"), exif_alt=(info.gps or {}).get("alt"),
        device_lat=meta.get("device_lat"), device_lon=meta.get("device_lon"),
        device_accuracy_m=meta.get("device_accuracy_m") if device_gps else None,
        **_placement(permit, info.gps, device_gps),
        original_key=blob_key(received.sha256), display_key=blob_key(received.sha256, ".display.jpg"),
        small_key=blob_key(received.sha256, ".small.jpg"),
        created_by=user.id, device_id=current_device_id(), device_created_at=meta.get("captured_at"),
    )


def store_blobs(received: Received, verified: Verified, original_key: str, display_key: str,
                small_key: str) -> list[str]:
    """Put the original (and the thumbnails when they were made inline) and write the thumbnail job,
    done or queued; returns the keys this call wrote (those already present are shared)."""
    store, written = get_storage(), []
    blobs = [(received.path, original_key, verified.content_type)]
    if verified.derived is not None:
        blobs += [(verified.derived.display_path, display_key, "image/jpeg"),
                  (verified.derived.small_path, small_key, "image/jpeg")]
    try:
        # The spooled body and the thumbnails are this request's own temporary files, never written
        # again: the local store may take them by hard link instead of copying.
        for path, key, kind in blobs:
            if store.put_file(path, key, kind, owned=True):
                written.append(key)
        derivation.enqueue(received.sha256, verified.content_type, original_key, display_key, small_key,
                           made=verified.derived is not None)
    except BaseException:
        discard_blobs(written)
        raise
    return written


def discard_blobs(keys: list[str]) -> None:
    store = get_storage()
    for key in keys:
        try:
            store.delete(key)
        except Exception:  # the caller's error matters more; an orphan blob is harmless
            log.warning("could not delete blob %s", key, exc_info=True)


def _replay(existing: Photo, permit: Permit, received: Received) -> tuple[Photo, bool]:
    if existing.sha256 == received.sha256 and existing.permit_id == permit.id:
        return existing, False
    raise Conflict("A different photo already has this id.", error="conflict",
                   errors={"id": ["Taken by other bytes or another permit."]})


@dataclass
class Verified:
    """An upload's image as verified at the door, with its thumbnails when they were made inline
    (PHOTO_DERIVE_INLINE)."""

    image: imaging.Inspected
    derived: imaging.Derived | None = None

    @property
    def content_type(self) -> str:
        return self.image.content_type

    def cleanup(self) -> None:
        if self.derived is not None:
            self.derived.cleanup()


def read_image(received: Received) -> Verified:
    """Verify the image without decoding its pixels (imaging.inspect: 422 image_invalid or
    image_too_large, 415 never: the type comes from the bytes). With PHOTO_DERIVE_INLINE its
    thumbnails are also made here, the slow, memory-hungry part, within one of this process's
    IMAGE_WORKERS slots. Call it with no database transaction open (on SQLite a transaction holds
    the write lock, and every other request would wait)."""
    config = current_app.config
    image = imaging.inspect(received.path, received.head, max_pixels=config["MAX_IMAGE_PIXELS"],
                            max_decode_bytes=config["MAX_IMAGE_DECODE_BYTES"], default_tz=clock.town_zone())
    if not derivation.inline():
        return Verified(image)
    # Decoded before the answer, pixels that do not decode refuse the upload (422 image_invalid) and
    # nothing is kept; the worker, which decodes after the answer, marks the photo failed instead.
    with imaging.slot(config["IMAGE_WORKERS"], config["IMAGE_WAIT_SECONDS"]):
        derived = imaging.derive(received.path, received.head, max_pixels=config["MAX_IMAGE_PIXELS"],
                                 max_decode_bytes=config["MAX_IMAGE_DECODE_BYTES"], work_dir=temp_dir(),
                                 default_tz=clock.town_zone())
    return Verified(image, derived)


def ingest_received(user, photo_id: str, meta: dict[str, Any], received: Received,
                    expected_sha256: str, derived: Verified | None = None) -> tuple[Photo, bool]:
    """Verify and store an uploaded photo. Returns (photo, created); the same id with the same
    bytes again is (existing, False); with other bytes 409. Nothing is stored when anything fails.
    `derived` is the image already verified by read_image (outside any transaction); without it the
    image is read here."""
    try:
        if received.sha256 != expected_sha256:
            raise ChecksumMismatch(errors={"X-Content-SHA256": [f"The bytes received hash to {received.sha256}."]})
        photo_id = valid_uuid(photo_id)
        permit = get_visible_permit(user, meta["permit_id"])
        existing = existing_photo(user, photo_id)
        if existing is not None:
            return _replay(existing, permit, received)
        # Again here: a tus upload was checked when it started, and its parent may have been locked since.
        parents.check_attach(user, permit, meta.get("parent_type"), meta.get("parent_id"))
        if derived is None:
            derived = read_image(received)
    except BaseException:
        if derived is not None:
            derived.cleanup()
        raise
    try:
        photo = _new_photo(user, photo_id, permit, meta, received, derived.image)
        try:
            with db.session.begin_nested():
                db.session.add(photo)
        except IntegrityError:
            raise Conflict("Another upload of this photo id is being saved; send it again.") from None
        written = store_blobs(received, derived, photo.original_key, photo.display_key, photo.small_key)
        try:
            audit.record("photo.create", "photo", photo.id,
                         {"sha256": photo.sha256, "bytes": photo.bytes, "content_type": photo.content_type,
                          "parent_type": photo.parent_type, "parent_id": photo.parent_id,
                          "location_source": photo.location_source}, permit_id=permit.id)
            db.session.flush()
        except BaseException:
            discard_blobs(written)
            raise
    finally:
        derived.cleanup()
    return photo, True
