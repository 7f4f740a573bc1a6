"""Final report documents (R-F2): the as-built plan, cover letter, O&M logs ... as PDF or image files.

The body is streamed to a temporary file with a byte limit, its type is read from its first bytes (the
declared Content-Type is only a claim), and only a file that passed every check is put in the blob
store, under a key made from its SHA-256. A rejected upload leaves nothing behind.
"""
from __future__ import annotations

import re
from typing import IO, Any

import pillow_heif
from flask import current_app

from .. import audit
from ..errors import (ChecksumMismatch, NotFound, PayloadTooLarge, UnsupportedMediaType, ValidationFailed)
from ..extensions import db
from .common import require_editable, require_filer
from .models import FinalReport, ReportDocument
from .reports import EDITABLE

ALLOWED_TYPES = ("application/pdf", "image/jpeg", "image/png", "image/webp", "image/heic")
_EXTENSIONS = {"application/pdf": ".pdf", "image/jpeg": ".jpg", "image/png": ".png", "image/webp": ".webp",
               "image/heic": ".heic"}
_HEAD_BYTES = 4096
_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9._ -]+")


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
    from PIL import Image
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
    from ..uploads import sniff_type
    if received.size == 0:
        raise ValidationFailed("The document is empty.", error="document_invalid")
    with open(received.path, "rb") as fh:
        sniffed = sniff_type(fh.read(_HEAD_BYTES))
    if sniffed not in ALLOWED_TYPES:
        raise UnsupportedMediaType("Final report documents are PDF files or images (JPEG, PNG, WebP, HEIC).")
    if declared is not None and declared != sniffed:
        raise ValidationFailed(f"The file is {sniffed}, not {declared} as declared.", error="content_type_mismatch")
    _check_complete(received.path, sniffed)
    return sniffed


def add_document(user, report: FinalReport, stream: IO[bytes], *, kind: str, filename: str | None,
                 content_type: str | None, content_length: int | None,
                 sha256: str | None = None) -> tuple[ReportDocument, bool]:
    """Store one uploaded file for a draft or returned report. The same bytes of the same kind again answer
    the existing document (an upload retried after a lost response)."""
    from ..storage import blob_key, get_storage
    from ..uploads import receive_to_tempfile
    require_filer(user)
    require_editable(report, "final_report", EDITABLE)
    limit = int(current_app.config["MAX_DOCUMENT_BYTES"])
    declared = _declared(content_type)
    if content_length is not None and content_length > limit:
        raise PayloadTooLarge(f"A document may be at most {limit} bytes.")
    if declared is not None and declared not in ALLOWED_TYPES:
        raise UnsupportedMediaType("Final report documents are PDF files or images (JPEG, PNG, WebP, HEIC).")
    with receive_to_tempfile(stream, limit) as received:
        if sha256 and sha256.strip().lower() != received.sha256:
            raise ChecksumMismatch()
        sniffed = _sniffed_type(received, declared)
        for doc in report.documents:
            if doc.sha256 == received.sha256 and doc.kind == kind:
                return doc, False
        key = blob_key(received.sha256)
        storage = get_storage()
        if not storage.exists(key):
            storage.put_file(received.path, key, sniffed)
        doc = ReportDocument(report_id=report.id, kind=kind, filename=safe_filename(filename, kind, sniffed),
                             content_type=sniffed, sha256=received.sha256, size=received.size, storage_key=key,
                             uploaded_by=user.id)
    report.documents.append(doc)
    report.bump_version()
    db.session.flush()
    audit.record("final_report.document_add", "final_report", report.id,
                 {"document_id": doc.id, "kind": kind, "sha256": doc.sha256, "bytes": doc.size},
                 actor=user, permit_id=report.permit_id)
    return doc, True


def get_document(report: FinalReport, document_id: str) -> ReportDocument:
    for doc in report.documents:
        if doc.id == str(document_id):
            return doc
    raise NotFound("No such document.")


def remove_document(user, report: FinalReport, document_id: str) -> None:
    """Take a document off a draft or returned report (its bytes stay: other records may share them)."""
    require_filer(user)
    require_editable(report, "final_report", EDITABLE)
    doc = get_document(report, document_id)
    report.documents.remove(doc)
    report.bump_version()
    db.session.flush()
    audit.record("final_report.document_remove", "final_report", report.id,
                 {"document_id": doc.id, "kind": doc.kind, "sha256": doc.sha256}, actor=user,
                 permit_id=report.permit_id)


def document_source(doc: ReportDocument) -> dict[str, Any]:
    """Where to read the bytes: a signed URL to redirect to (S3), or an open file object (local store)."""
    from ..storage import get_storage
    storage = get_storage()
    url = storage.presigned_url(doc.storage_key, filename=doc.filename, content_type=doc.content_type)
    if url:
        return {"url": url}
    return {"file": storage.open(doc.storage_key)}
