"""Photos sent with a report from the public: read with the form, verified like any upload, stored for staff.

The form's body (multipart/form-data, from the HTML form or an API client) is spooled to disk first at
the pace every body must keep (uploads.receive_to_tempfile), bounded by MAX_PHOTOS photos of
MAX_UPLOAD_BYTES each and TEXT_BYTES of text, with no database transaction open: a slow phone on a
poor connection holds no lock and no connection. Only then are its fields and files parsed, from the
spool, each file into a temporary file of its own.

Each photo is verified by the photo domain's hardened reader (photos/imaging.py through read_image: the
type from its bytes, JPEG/PNG/WebP/HEIC only, the pixel limit from the header, the decoding-memory
budget, a whole container; no pixel decoded), all of them before anything is written, so a hostile or
broken photo refuses the report whole and leaves nothing behind. The original is kept byte for byte
(content-addressed, as staff's photos are) with its EXIF time and GPS read into its row for staff; the
display and small derivatives, which carry no metadata at all, are made afterwards by the photo worker
(photos/derivation.py), as for staff's photos. Only supervisors ever read any of them (routes_queue.py).
"""
from __future__ import annotations

import hashlib
import tempfile
from pathlib import Path

from flask import current_app, request
from werkzeug.datastructures import FileStorage
from werkzeug.formparser import FormDataParser

from ..errors import ApiError, PayloadTooLarge, UnsupportedMediaType, ValidationFailed
from ..extensions import db
from ..photos.services import Verified, discard_blobs, read_image, store_blobs
from ..storage import blob_key
from ..uploads import HEAD_BYTES, TEMP_PREFIX, Received, receive_to_tempfile, temp_dir
from .models import PublicReport, PublicReportPhoto
from .rules import MAX_PHOTOS

# The text of a report's form with its multipart framing: the description (4,000 characters, up to four
# bytes each), the place, the contact and a few hidden fields.
TEXT_BYTES = 64 * 1024
MAX_PARTS = 32
FIELD = "photos"


class BadForm(ApiError):
    code, error, default_message = 400, "bad_request", "The body is not readable multipart/form-data."


def max_form_bytes() -> int:
    return MAX_PHOTOS * int(current_app.config["MAX_UPLOAD_BYTES"]) + TEXT_BYTES


def read_form() -> tuple[dict[str, str], list[Received]]:
    """The current request's multipart/form-data body: its text fields (first value of each) and up to
    MAX_PHOTOS `photos` files, each spooled to a temporary file the caller discards (Received)."""
    if request.mimetype != "multipart/form-data":
        raise UnsupportedMediaType("Send the report as application/json, or as multipart/form-data with the "
                                   "photos as `photos` files.", errors={"Content-Type": ["Not accepted."]})
    boundary = request.mimetype_params.get("boundary")
    if not boundary:
        raise BadForm(errors={"Content-Type": ["multipart/form-data needs its boundary."]})
    limit = max_form_bytes()
    if request.content_length is not None and request.content_length > limit:
        raise PayloadTooLarge(f"A report with its photos may be at most {limit} bytes.", errors={"limit": [limit]})
    # Nothing has touched the database yet; should anything have, its transaction ends before the wait.
    db.session.rollback()
    with receive_to_tempfile(request.stream, limit) as spool:
        return _parse(spool.path, spool.size, boundary)


def _parse(path: Path, size: int, boundary: str) -> tuple[dict[str, str], list[Received]]:
    made: list[Path] = []

    def spool_file(*_args, **_kwargs):
        handle = tempfile.NamedTemporaryFile("w+b", prefix=TEMP_PREFIX, suffix=".part", dir=str(temp_dir()),
                                             delete=False)
        made.append(Path(handle.name))
        return handle

    parser = FormDataParser(stream_factory=spool_file, max_form_memory_size=TEXT_BYTES, silent=False,
                            max_form_parts=MAX_PARTS)
    files = None
    kept: list[Received] = []
    try:
        with path.open("rb") as body:
            try:
                _stream, form, files = parser.parse(body, "multipart/form-data", size, {"boundary": boundary})
            except ValueError:
                raise BadForm() from None
        chosen = [f for f in files.getlist(FIELD) if f.filename or _size(f)]  # a file input left empty
        if len(chosen) > MAX_PHOTOS:
            raise ValidationFailed(f"At most {MAX_PHOTOS} photos.", errors={FIELD: [f"At most {MAX_PHOTOS} photos."]})
        for storage in chosen:
            kept.append(_received(storage))
        return {key: value for key, value in form.items()}, kept
    except BaseException:
        for received in kept:
            received.discard()
        kept = []
        raise
    finally:
        for _name, storage in (files.items(multi=True) if files is not None else []):
            storage.close()
        taken = {r.path for r in kept}
        for made_path in made:
            if made_path not in taken:
                made_path.unlink(missing_ok=True)


def _size(storage: FileStorage) -> int:
    stream = storage.stream
    stream.seek(0, 2)
    return stream.tell()


def _received(storage: FileStorage) -> Received:
    limit = int(current_app.config["MAX_UPLOAD_BYTES"])
    stream = storage.stream
    stream.flush()
    stream.seek(0)
    head = stream.read(HEAD_BYTES)
    stream.seek(0)
    digest = hashlib.file_digest(stream, "sha256").hexdigest()
    size = stream.tell()
    if size > limit:
        raise PayloadTooLarge(f"A photo may be at most {limit} bytes.", errors={FIELD: [f"Over {limit} bytes."]})
    return Received(path=Path(stream.name), sha256=digest, size=size, head=head, digests={"sha256": digest})


def read_photos(photos: list[Received]) -> list[Verified]:
    """Verify every photo (call with no transaction open): all or none, so one hostile photo refuses
    the report before anything is written."""
    derived: list[Verified] = []
    try:
        for received in photos:
            derived.append(read_image(received))
    except BaseException:
        cleanup(derived)
        raise
    return derived


def cleanup(derived: list[Verified]) -> None:
    for item in derived:
        item.cleanup()


def store_photos(report: PublicReport, photos: list[Received], derived: list[Verified]) -> list[str]:
    """Add the photos' rows to `report`, put their originals and queue their thumbnails; returns the
    keys this call wrote, for the caller to discard should the report not be saved after all."""
    written: list[str] = []
    try:
        for position, (received, verified) in enumerate(zip(photos, derived), start=1):
            made = verified.image
            gps = made.exif.gps or {}
            photo = PublicReportPhoto(
                report_id=report.id, position=position, sha256=received.sha256, content_type=made.content_type,
                bytes=received.size, width=made.width, height=made.height, taken_at=made.exif.taken_at,
                exif_lat=gps.get("lat"), exif_lon=gps.get("lon"), original_key=blob_key(received.sha256),
                display_key=blob_key(received.sha256, ".display.jpg"), small_key=blob_key(received.sha256, ".small.jpg"))
            db.session.add(photo)
            written += store_blobs(received, verified, photo.original_key, photo.display_key, photo.small_key)
        db.session.flush()
    except BaseException:
        discard_blobs(written)
        raise
    return written


__all__ = ["BadForm", "cleanup", "max_form_bytes", "read_form", "read_photos", "store_photos"]
