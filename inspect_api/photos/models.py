from __future__ import annotations

from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from ..db import IdColumn, RecordMixin, UTCDateTime, new_id, clock_now
from ..extensions import db

PARENT_TYPES = ("inspection", "finding", "sample", "completion_notice", "entry_authorization")
LOCATION_SOURCES = ("exif", "device")


class Photo(RecordMixin, db.Model):
    """A photo kept as evidence: the original bytes never change (content-addressed by SHA-256), with
    what the camera and the device said about when and where it was taken (DOMAIN.md "Evidence").

    The parent record may not exist yet when the photo arrives (devices upload whatever is ready
    first), so parent_type/parent_id are kept as given, without a foreign key."""

    __tablename__ = "photos"
    __sync_entity__ = "photo"

    permit_id: Mapped[str] = mapped_column(IdColumn, sa.ForeignKey("permits.id"), nullable=False, index=True)
    parent_type: Mapped[str | None] = mapped_column(sa.String(30), nullable=True)
    parent_id: Mapped[str | None] = mapped_column(IdColumn, nullable=True)

    sha256: Mapped[str] = mapped_column(sa.String(64), nullable=False, index=True)
    content_type: Mapped[str] = mapped_column(sa.String(40), nullable=False)
    bytes: Mapped[int] = mapped_column(sa.BigInteger, nullable=False)
    width: Mapped[int] = mapped_column(sa.Integer, nullable=False)  # as displayed (orientation applied)
    height: Mapped[int] = mapped_column(sa.Integer, nullable=False)
    orientation: Mapped[int] = mapped_column(sa.SmallInteger, nullable=False, default=1)
    camera_make: Mapped[str | None] = mapped_column(sa.String(100), nullable=True)
    camera_model: Mapped[str | None] = mapped_column(sa.String(100), nullable=True)
    taken_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    taken_at_offset_min: Mapped[int | None] = mapped_column(sa.SmallInteger, nullable=True)

    exif_lat: Mapped[float | None] = mapped_column(sa.Float, nullable=True)
    exif_lon: Mapped[float | None] = mapped_column(sa.Float, nullable=True)
    exif_alt: Mapped[float | None] = mapped_column(sa.Float, nullable=True)
    device_lat: Mapped[float | None] = mapped_column(sa.Float, nullable=True)
    device_lon: Mapped[float | None] = mapped_column(sa.Float, nullable=True)
    device_accuracy_m: Mapped[float | None] = mapped_column(sa.Float, nullable=True)
    location_lat: Mapped[float | None] = mapped_column(sa.Float, nullable=True)
    location_lon: Mapped[float | None] = mapped_column(sa.Float, nullable=True)
    location_source: Mapped[str | None] = mapped_column(sa.String(10), nullable=True)
    distance_to_site_m: Mapped[float | None] = mapped_column(sa.Float, nullable=True)
    within_site: Mapped[bool | None] = mapped_column(sa.Boolean, nullable=True)
    far_from_site: Mapped[bool | None] = mapped_column(sa.Boolean, nullable=True)

    original_key: Mapped[str] = mapped_column(sa.String(200), nullable=False)
    display_key: Mapped[str] = mapped_column(sa.String(200), nullable=False)
    small_key: Mapped[str] = mapped_column(sa.String(200), nullable=False)

    __table_args__ = (
        sa.Index("ix_photos_parent", "parent_type", "parent_id"),
        sa.CheckConstraint(sa.column("parent_type").in_(PARENT_TYPES) | sa.column("parent_type").is_(None),
                           name="parent_type"),
    )

    @property
    def captured_at(self) -> datetime | None:
        """The device clock at capture, sent with the upload (kept as device_created_at)."""
        return self.device_created_at


class PhotoAnnotation(RecordMixin, db.Model):
    """A person's markup of a photo (arrows, circles, freehand lines, text labels), kept as vectors
    beside the photo: drawing it never changes the photo's bytes or SHA-256 (DOMAIN.md "Evidence").
    Points are fractions of the image's width and height, so the markup fits every rendition.

    `permit_id` is the photo's, kept here so the change feed scopes the record like the photo's other
    field records. A deleted annotation keeps its row (deleted_at) as what it was."""

    __tablename__ = "photo_annotations"
    __sync_entity__ = "photo_annotation"

    photo_id: Mapped[str] = mapped_column(IdColumn, sa.ForeignKey("photos.id"), nullable=False, index=True)
    permit_id: Mapped[str] = mapped_column(IdColumn, sa.ForeignKey("permits.id"), nullable=False, index=True)
    # [{"kind", "points": [[x, y], ...], "text"?, "colour"}, ...] as photos.annotation_rules allows
    shapes: Mapped[list[Any]] = mapped_column(sa.JSON, nullable=False, default=list)
    deleted_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)


class PhotoUpload(db.Model):
    """A resumable (tus) upload in progress. The bytes received so far are chunks in the blob store,
    one per PATCH, so any API process can continue an upload another one started."""

    __tablename__ = "photo_uploads"

    id: Mapped[str] = mapped_column(IdColumn, primary_key=True, default=new_id)
    created_by: Mapped[str] = mapped_column(IdColumn, sa.ForeignKey("users.id"), nullable=False, index=True)
    device_id: Mapped[str | None] = mapped_column(sa.String(64), nullable=True)
    permit_id: Mapped[str] = mapped_column(IdColumn, sa.ForeignKey("permits.id"), nullable=False)
    photo_id: Mapped[str] = mapped_column(IdColumn, nullable=False, index=True)
    length: Mapped[int] = mapped_column(sa.BigInteger, nullable=False)
    offset: Mapped[int] = mapped_column(sa.BigInteger, nullable=False, default=0)
    # [[offset, size, key], ...] in order; keys are made by the server (uploads/<id>/<offset>-<nonce>).
    chunks: Mapped[list[Any]] = mapped_column(sa.JSON, nullable=False, default=list)
    meta: Mapped[dict[str, Any]] = mapped_column(sa.JSON, nullable=False, default=dict)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False, default=clock_now)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False, index=True)
    completed_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)


DERIVATION_STATUSES = ("queued", "done", "failed")


class PhotoDerivation(db.Model):
    """The display (1280) and small (320) thumbnails of one original, made by the worker after the
    upload was answered (photos/derivation.py): an outbox row per distinct original, keyed by its
    SHA-256 as the blobs are, so staff photos and residents' report photos of the same bytes share
    one job and one pair of thumbnails. No row: the thumbnails were made with the upload (photos
    stored before this table existed), so they exist.

    `queued` rows are claimed by a worker until `lease_until` (FOR UPDATE SKIP LOCKED on PostgreSQL);
    a worker that dies mid-job leaves the lease to expire and another takes the job again. `failed`
    is for good: the original cannot be decoded (`last_error` says why); it is still kept and served."""

    __tablename__ = "photo_derivations"

    sha256: Mapped[str] = mapped_column(sa.String(64), primary_key=True)
    content_type: Mapped[str] = mapped_column(sa.String(40), nullable=False)
    original_key: Mapped[str] = mapped_column(sa.String(200), nullable=False)
    display_key: Mapped[str] = mapped_column(sa.String(200), nullable=False)
    small_key: Mapped[str] = mapped_column(sa.String(200), nullable=False)
    status: Mapped[str] = mapped_column(sa.String(10), nullable=False, default="queued")
    attempts: Mapped[int] = mapped_column(sa.Integer, nullable=False, default=0)
    next_attempt_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    claimed_by: Mapped[str | None] = mapped_column(sa.String(100), nullable=True)
    lease_until: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    last_error: Mapped[str | None] = mapped_column(sa.Text, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False, default=clock_now)
    derived_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)

    __table_args__ = (
        sa.Index("ix_photo_derivations_due", "status", "next_attempt_at"),
        sa.CheckConstraint(sa.column("status").in_(DERIVATION_STATUSES), name="status"),
    )
