"""Final report documents (R-F2): the as-built plan, cover letter, O&M logs ... as PDF or image files.

Receiving, checking and storing the bytes is `inspect_api/documents.py`, shared with an application's
documents (R-C1): streamed with a byte limit, typed from the bytes, stored under their SHA-256 only once
every check passed, so a rejected upload leaves nothing behind.
"""
from __future__ import annotations

from typing import IO, Any

from .. import audit
from .. import documents as files
from ..errors import NotFound
from ..extensions import db
from .common import require_editable, require_filer, require_supervisor
from .models import FinalReport, ReportDocument
from .reports import EDITABLE

ALLOWED_TYPES = files.ALLOWED_TYPES
safe_filename = files.safe_filename


def add_document(user, report: FinalReport, stream: IO[bytes], *, kind: str, filename: str | None,
                 content_type: str | None, content_length: int | None,
                 sha256: str | None = None) -> tuple[ReportDocument, bool]:
    """Store one uploaded file for a draft or returned report. The same bytes of the same kind again answer
    the existing document (an upload retried after a lost response). The body arrives with no
    transaction open; the report is then locked and checked again, since it may have been submitted
    meanwhile."""
    require_filer(user, report.permit_id)
    require_editable(report, "final_report", EDITABLE)
    with files.received_document(stream, content_type=content_type, content_length=content_length,
                                 sha256=sha256) as (received, sniffed):
        db.session.refresh(report, with_for_update=True)
        require_filer(user, report.permit_id)
        require_editable(report, "final_report", EDITABLE)
        for doc in report.documents:
            if doc.sha256 == received.sha256 and doc.kind == kind:
                return doc, False
        key = files.store(received, sniffed)
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


def record_paper_document(user, report: FinalReport, *, kind: str, name: str) -> tuple[ReportDocument, bool]:
    """A document delivered to the Town on paper, recorded by name by a supervisor (R-F2: it counts as
    on file like an uploaded one). The same kind and name again answer the existing record."""
    require_supervisor(user)
    db.session.refresh(report, with_for_update=True)
    require_editable(report, "final_report", EDITABLE)
    name = " ".join(name.split())
    for doc in report.documents:
        if doc.storage_key is None and doc.kind == kind and doc.filename == name:
            return doc, False
    doc = ReportDocument(report_id=report.id, kind=kind, filename=name, uploaded_by=user.id)
    report.documents.append(doc)
    report.bump_version()
    db.session.flush()
    audit.record("final_report.document_record", "final_report", report.id,
                 {"document_id": doc.id, "kind": kind, "name": name, "on_paper": True},
                 actor=user, permit_id=report.permit_id)
    return doc, True


def get_document(report: FinalReport, document_id: str) -> ReportDocument:
    for doc in report.documents:
        if doc.id == str(document_id):
            return doc
    raise NotFound("No such document.")


def remove_document(user, report: FinalReport, document_id: str) -> None:
    """Take a document off a draft or returned report (its bytes stay: other records may share them)."""
    require_filer(user, report.permit_id)
    require_editable(report, "final_report", EDITABLE)
    doc = get_document(report, document_id)
    if doc.storage_key is None:
        require_supervisor(user)  # what the Town recorded receiving, only the Town takes off
    report.documents.remove(doc)
    report.bump_version()
    db.session.flush()
    audit.record("final_report.document_remove", "final_report", report.id,
                 {"document_id": doc.id, "kind": doc.kind, "sha256": doc.sha256}, actor=user,
                 permit_id=report.permit_id)


def document_source(doc: ReportDocument) -> dict[str, Any]:
    """Where to read the bytes: a signed URL to redirect to (S3), or an open file object (local store)."""
    if doc.storage_key is None:
        raise NotFound("This document was delivered on paper and recorded by name: the Town holds it, not a file.")
    return files.source(doc.storage_key, filename=doc.filename, content_type=doc.content_type)
