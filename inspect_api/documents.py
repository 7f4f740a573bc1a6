"""Uploaded documents (PDF or image files): one way to receive, check, store and serve them, shared by
the final report's documents (R-F2) and an application's documents (R-C1).

The body is streamed to a temporary file with a byte limit (`MAX_DOCUMENT_BYTES`), its type is read
from its first bytes (the declared Content-Type is only a claim; a PDF starts with `%PDF-`), a
truncated file is refused, and only a file that passed every check is put in the blob store, under a
key made from its SHA-256. A rejected upload leaves nothing behind: the temporary file is removed and
nothing was written to the store or the database.

No transaction is open while the body arrives or is checked: `received_document` ends the request's
(on SQLite it holds the write lock, on PostgreSQL it holds back the sync feed's watermark and the
permit's row), so a client sending slowly delays nobody else. The caller then loads its record
again, checks again and writes, all in a short transaction of its own.
"""
from __future__ import annotations

import re
from contextlib import contextmanager
from typing import IO, Any, Iterator

import pillow_heif
from flask import current_app, redirect, send_file
from PIL import Image

from .errors import ChecksumMismatch, PayloadTooLarge, UnsupportedMediaType, ValidationFailed
from .extensions import db
from .http import PRIVATE_FILE_CACHE
from .storage import blob_key, get_storage
from .uploads import receive_to_tempfile, sniff_type

ALLOWED_TYPES = ("application/pdf", "image/jpeg", "image/png", "image/webp", "image/heic")
_EXTENSIONS = {"application/pdf": ".pdf", "image/jpeg": ".jpg", "image/png": ".png", "image/webp": ".webp",
               "image/heic": ".heic"}
_HEAD_BYTES = 4096
_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9._ -]+")
REFUSED_TYPE = "Documents are PDF files or images (JPEG, PNG, WebP, HEIC)."


def safe_filename(name: str | None, kind: str, content_type: str) -> str:
    """A display name only (never a path): the last path part, plain characters, the sniffed type's extension."""
    base = re.split(r"[\\/]", name or "")[-1]
    base = _UNSAFE_NAME.sub("_", base).strip(" ._")[:150]
    stem = base.rsplit(".", 1)[0] if "." in base else base
    return f"{stem or kind}{_EXTENSIONS[content_type]}"


def _declared(content_type: str | None) -> str | None:
    value = (content_type or "").split(";", 1)[0].strip().lower()
    return None if value in ("", "application/octet-stream") else value


def _check_complete(path, content_type: str) -> None:
    """A truncated upload (a dropped connection) must not pass for the document."""
    if content_type == "application/pdf":
        with open(path, "rb") as fh:
            fh.seek(0, 2)
            fh.seek(max(0, fh.tell() - 2048))
            if b"%%EOF" not in fh.read():
                raise ValidationFailed("The PDF is incomplete or damaged.", error="document_invalid")
        return
    if content_type == "image/heic":
        pillow_heif.register_heif_opener()
    try:
        with Image.open(path) as image:
            if image.width * image.height > current_app.config.get("MAX_IMAGE_PIXELS", 100_000_000):
                raise ValidationFailed("The image has too many pixels.", error="document_invalid")
            image.verify()
    except ValidationFailed:
        raise
    except Exception:
        raise ValidationFailed("The image is incomplete or damaged.", error="document_invalid") from None


def _sniffed_type(received, declared: str | None) -> str:
    if received.size == 0:
        raise ValidationFailed("The document is empty.", error="document_invalid")
    with open(received.path, "rb") as fh:
        sniffed = sniff_type(fh.read(_HEAD_BYTES))
    if sniffed not in ALLOWED_TYPES:
        raise UnsupportedMediaType(REFUSED_TYPE)
    if declared is not None and declared != sniffed:
        raise ValidationFailed(f"The file is {sniffed}, not {declared} as declared.", error="content_type_mismatch")
    _check_complete(received.path, sniffed)
    return sniffed


def check_declared(content_type: str | None, content_length: int | None) -> str | None:
    """What can be refused before a byte of the body is read: a declared size over the limit (413) or
    a declared type that is not a document (415). Returns the declared type, if any."""
    limit = int(current_app.config["MAX_DOCUMENT_BYTES"])
    declared = _declared(content_type)
    if content_length is not None and content_length > limit:
        raise PayloadTooLarge(f"A document may be at most {limit} bytes.")
    if declared is not None and declared not in ALLOWED_TYPES:
        raise UnsupportedMediaType(REFUSED_TYPE)
    return declared


@contextmanager
def received_document(stream: IO[bytes], *, content_type: str | None, content_length: int | None,
                      sha256: str | None = None) -> Iterator[tuple[Any, str]]:
    """Streams the body to a temporary file and checks it: size, the optional SHA-256 the client sent
    (422 `checksum_mismatch`), the type read from the bytes, completeness. Yields (received, type);
    the temporary file is removed however the block is left.

    The request's transaction ends first (whatever it loaded is expired): check who may upload
    before, and load, check again and write inside the block."""
    declared = check_declared(content_type, content_length)
    db.session.rollback()
    with receive_to_tempfile(stream, int(current_app.config["MAX_DOCUMENT_BYTES"])) as received:
        if sha256 and sha256.strip().lower() != received.sha256:
            raise ChecksumMismatch()
        yield received, _sniffed_type(received, declared)


def store(received, content_type: str) -> str:
    """Put checked bytes in the blob store under their content address; identical bytes land once."""
    key = blob_key(received.sha256)
    storage = get_storage()
    if not storage.exists(key):
        storage.put_file(received.path, key, content_type)
    return key


def source(storage_key: str, *, filename: str, content_type: str) -> dict[str, Any]:
    """Where to read the bytes: a signed URL to redirect to (S3), or an open file object (local store)."""
    storage = get_storage()
    url = storage.presigned_url(storage_key, filename=filename, content_type=content_type)
    if url:
        return {"url": url}
    return {"file": storage.open(storage_key)}


def stored_response(storage_key: str, *, filename: str, content_type: str, etag: str, download: bool = False):
    """Stored bytes as the HTTP answer, once the caller's right to them was checked: a redirect to a
    short-lived signed URL (S3; the redirect itself never cached), or the bytes, private and revalidated
    by `etag` (documents, photos, the photos of residents' reports)."""
    where = source(storage_key, filename=filename, content_type=content_type)
    if "url" in where:
        response = redirect(where["url"], code=302)
        response.headers["Cache-Control"] = "no-store"
        return response
    response = send_file(where["file"], mimetype=content_type, as_attachment=download, download_name=filename,
                         etag=etag, conditional=True)
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Cache-Control"] = PRIVATE_FILE_CACHE
    return response


def file_response(storage_key: str, *, filename: str, content_type: str, sha256: str):
    """The HTTP answer with a stored document's bytes: a download, private, revalidated by its ETag."""
    return stored_response(storage_key, filename=filename, content_type=content_type, etag=sha256, download=True)


UPLOAD_BODY = {"required": True, "description": "The file's bytes as the body (streamed; at most MAX_DOCUMENT_BYTES). "
               "The type is read from the bytes: PDF, JPEG, PNG, WebP or HEIC; anything else is 415, a declared "
               "Content-Type that the bytes contradict is 422 `content_type_mismatch`, a truncated file 422 "
               "`document_invalid`. Optional header X-Content-SHA256 (hex) is checked (422 `checksum_mismatch`).",
               "content": {t: {"schema": {"type": "string", "format": "binary"}} for t in ALLOWED_TYPES}}
BYTES_RESPONSE = {"200": {"description": "The document's bytes (or a 302 to a signed storage URL)",
                          "content": {t: {"schema": {"type": "string", "format": "binary"}} for t in ALLOWED_TYPES}},
                  "302": {"description": "Redirect to a short-lived signed URL (S3 storage)",
                          "headers": {"Location": {"schema": {"type": "string"}}}}}
