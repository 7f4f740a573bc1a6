"""Resumable uploads (tus): load, check, change, flush (never commit).

State lives in the database (one PhotoUpload row) and the blob store (one chunk per PATCH), never
in process memory, so any API process can take the next PATCH. A finished upload goes through
services.ingest_received, the same path as PUT /photos/{id}.
"""
from __future__ import annotations

import hmac
import secrets
from datetime import datetime, timedelta
from typing import Any, BinaryIO, Iterator

from flask import current_app
from sqlalchemy import select
from werkzeug.exceptions import ClientDisconnected

from .. import clock
from ..auth.permissions import current_device_id
from ..errors import Conflict, Gone, ImageInvalid, NotFound, UnsupportedMediaType, ValidationFailed
from ..extensions import db
from ..storage import get_storage
from ..uploads import Received, receive_to_tempfile
from . import schemas, services, tus
from .models import Photo, PhotoUpload

SWEEP_BATCH = 20


def _expiry() -> datetime:
    return clock.now() + timedelta(hours=current_app.config["UPLOAD_EXPIRY_HOURS"])


def _meta_from(metadata: dict[str, str]) -> tuple[str, dict[str, Any], str]:
    photo_id = metadata.get("photo_id")
    if not photo_id:
        raise ValidationFailed("Upload-Metadata needs photo_id.", errors={"photo_id": ["Missing data for required field."]})
    services.declared_type(metadata.get("content_type") or metadata.get("filetype"))
    expected = services.declared_sha256(metadata.get("sha256"))
    meta = schemas.load_meta(metadata, {})
    return photo_id, meta, expected


def _stored_meta(meta: dict[str, Any], expected: str) -> dict[str, Any]:
    plain = {k: (v.isoformat() if isinstance(v, datetime) else v) for k, v in meta.items()}
    return {**plain, "sha256": expected}


def _loaded_meta(upload: PhotoUpload) -> tuple[dict[str, Any], str]:
    stored = dict(upload.meta)
    expected = stored.pop("sha256")
    if stored.get("captured_at"):
        stored["captured_at"] = datetime.fromisoformat(stored["captured_at"])
    return stored, expected


def create_upload(user, length_header: str | None, metadata_header: str | None, *,
                  deferred: bool = False) -> PhotoUpload:
    """tus creation: checks everything knowable before any byte (size, type, permit, id)."""
    if deferred:
        raise tus.TusError("Upload-Defer-Length is not supported; send Upload-Length.")
    length = tus.parse_int(length_header, "Upload-Length")
    services.check_length(length)
    if length == 0:
        raise ImageInvalid("An empty file is not an image.")
    photo_id, meta, expected = _meta_from(tus.parse_metadata(metadata_header))
    photo_id = services.check_before_body(user, photo_id, meta)
    existing = db.session.get(Photo, photo_id)
    if existing is not None and (existing.sha256 != expected or existing.permit_id != meta["permit_id"]):
        raise Conflict("A different photo already has this id.",
                       errors={"photo_id": ["Taken by other bytes or another permit."]})
    upload = PhotoUpload(created_by=user.id, device_id=current_device_id(), permit_id=meta["permit_id"],
                         photo_id=photo_id, length=length, offset=0, chunks=[],
                         meta=_stored_meta(meta, expected), expires_at=_expiry())
    db.session.add(upload)
    db.session.flush()
    cleanup_expired(limit=SWEEP_BATCH)
    return upload


def get_upload(user, upload_id: str, *, for_update: bool = False) -> PhotoUpload:
    """The caller's own upload; another user's answers 404. An expired unfinished one answers 410."""
    query = select(PhotoUpload).where(PhotoUpload.id == str(upload_id), PhotoUpload.created_by == user.id)
    if for_update:
        query = query.with_for_update()
    upload = db.session.scalar(query)
    if upload is None:
        raise NotFound("No such upload.")
    if upload.completed_at is None and upload.expires_at <= clock.now():
        raise Gone("This upload expired; start a new one.", error="upload_expired")
    return upload


def check_patch(user, upload_id: str, content_type: str | None, offset_header: str | None) -> tuple[int, int]:
    """Refuse what can be refused before the body arrives; returns (bytes still allowed, offset)."""
    if (content_type or "").split(";")[0].strip().lower() != tus.OFFSET_CONTENT_TYPE:
        raise UnsupportedMediaType(f"PATCH needs Content-Type: {tus.OFFSET_CONTENT_TYPE}.")
    offset = tus.parse_int(offset_header, "Upload-Offset")
    upload = get_upload(user, upload_id)
    _same_offset(upload, offset)
    return upload.length - offset, offset


def _same_offset(upload: PhotoUpload, offset: int) -> None:
    if offset != upload.offset:
        raise Conflict(f"The server holds {upload.offset} bytes; send from there.", error="offset_mismatch",
                       errors={"Upload-Offset": [f"Expected {upload.offset}."], "offset": [upload.offset]})


class _UntilDisconnect:
    """A body stream whose early end is just an end: bytes that arrived before the client vanished
    are kept, as tus asks, so the next attempt resumes after them."""

    def __init__(self, stream: BinaryIO) -> None:
        self.stream, self.cut = stream, False

    def read(self, size: int = -1) -> bytes:
        try:
            return self.stream.read(size)
        except ClientDisconnected:
            self.cut = True
            return b""


def receive_chunk(stream: BinaryIO, limit: int, checksum: tuple[str, bytes] | None) -> Received | None:
    """The PATCH body on disk, verified against Upload-Checksum; None when there is nothing to keep."""
    tolerant = _UntilDisconnect(stream)
    received = receive_to_tempfile(tolerant, limit, algorithms=[checksum[0]] if checksum else [])
    if checksum is not None:
        if tolerant.cut:
            received.discard()  # a cut chunk cannot match its checksum; keep nothing of it
            return None
        actual = bytes.fromhex(received.digests[checksum[0]])
        if not hmac.compare_digest(actual, checksum[1]):
            received.discard()
            raise tus.ChunkChecksumMismatch()
    if received.size == 0:
        received.discard()
        return None
    return received


def append_chunk(user, upload_id: str, offset: int, received: Received | None) -> PhotoUpload:
    """Keep the chunk (if any) at `offset`; the row is locked so two PATCHes cannot both land there."""
    if received is None:
        return get_upload(user, upload_id, for_update=True)
    with received:
        upload = get_upload(user, upload_id, for_update=True)
        _same_offset(upload, offset)  # another PATCH may have landed while this body was arriving
        key = f"uploads/{upload.id}/{offset:012d}-{secrets.token_hex(4)}"
        get_storage().put_file(received.path, key, "application/octet-stream", owned=True)
        upload.chunks = [*upload.chunks, [offset, received.size, key]]
        upload.offset = offset + received.size
        upload.expires_at = _expiry()
        db.session.flush()
    return upload


def chunk_keys(upload: PhotoUpload) -> list[str]:
    return [key for _offset, _size, key in sorted(upload.chunks)]


class _Chunks:
    """The stored chunks read back in order as one stream."""

    def __init__(self, keys: list[str]) -> None:
        self._iter: Iterator[bytes] = self._blocks(keys)

    @staticmethod
    def _blocks(keys: list[str]) -> Iterator[bytes]:
        store = get_storage()
        for key in keys:
            handle = store.open(key)
            try:
                while block := handle.read(1 << 16):
                    yield block
            finally:
                handle.close()

    def read(self, _size: int = -1) -> bytes:
        return next(self._iter, b"")


def finish(user, upload: PhotoUpload) -> tuple[Photo, bool]:
    """Assemble the chunks and ingest them exactly like PUT /photos/{id}."""
    if upload.completed_at is not None:
        return services.get_photo(user, upload.photo_id), False
    meta, expected = _loaded_meta(upload)
    keys = chunk_keys(upload)
    try:
        assembled = receive_to_tempfile(_Chunks(keys), upload.length)
    except NotFound:
        raise Gone("Part of this upload was lost; start a new one.", error="upload_expired") from None
    with assembled:
        if assembled.size != upload.length:
            raise Gone("Part of this upload was lost; start a new one.", error="upload_expired")
        # The caller committed the last chunk: end the transaction so the image is read without
        # holding a database lock (the upload row is read again below).
        upload_id, photo_id = upload.id, upload.photo_id
        services.release_transaction()
        derived = services.read_image(assembled) if assembled.sha256 == expected else None
        photo, created = services.ingest_received(user, photo_id, meta, assembled, expected, derived)
        upload = get_upload(user, upload_id, for_update=True)
    services.discard_blobs(keys)
    upload.chunks, upload.completed_at = [], clock.now()
    db.session.flush()
    return photo, created


def discard_upload(upload_id: str) -> None:
    """Remove an upload and its stored bytes (termination, a rejected result, expiry)."""
    upload = db.session.get(PhotoUpload, str(upload_id))
    if upload is None:
        return
    services.discard_blobs(chunk_keys(upload))
    db.session.delete(upload)
    db.session.flush()


def terminate(user, upload_id: str) -> None:
    """tus termination: the caller's own upload, expired or not."""
    upload = db.session.scalar(select(PhotoUpload).where(PhotoUpload.id == str(upload_id),
                                                         PhotoUpload.created_by == user.id))
    if upload is None:
        raise NotFound("No such upload.")
    discard_upload(upload.id)


def cleanup_expired(*, now: datetime | None = None, limit: int | None = None) -> int:
    """Delete uploads past their expiry (finished ones are kept until then so a client that lost the
    final answer can still learn its photo id)."""
    query = select(PhotoUpload.id).where(PhotoUpload.expires_at <= (now or clock.now())).order_by(PhotoUpload.expires_at)
    if limit:
        query = query.limit(limit)
    ids = list(db.session.scalars(query))
    for upload_id in ids:
        discard_upload(upload_id)
    return len(ids)
