"""Stored renditions: a document rendered once (a PDF of records) is kept and answered again until
anything it shows changes.

- The key is the SHA-256 of the canonical JSON of (document kind, audience, inputs). The caller
  computes `inputs` from rows it loads anyway: every record the document shows, by id and version,
  plus whatever it shows that has no version (a name, a configured level). The audience is what
  decides what a viewer is shown (e.g. "applicant" or "staff"), so a viewer never receives a
  rendition made for viewers who see more.
- The bytes live in the blob store under `renditions/<kind>/<ab>/<key>.<ext>`. No table: the key is
  all there is to look up, the store answers "is it there" in one stat (or HEAD), and a rendition is
  derived data that can be made again, so the prefix may be emptied at any time.
- The key is the ETag. A GET computes the key first and answers 304 on a matching If-None-Match,
  else the stored bytes, else renders, stores and answers. Two requests that render the same key at
  once both store under it; the first write stands (`put_file` never replaces), and both answer the
  bytes that stand, so one ETag always names one sequence of bytes.

Issued documents (`issued`) are the other kind: a document the Town issues (an order, a certificate of
completion, a citation, a lien certificate, a notice of costs) is rendered once, when it is issued,
signed when a key is configured (signing.py), and stored; those bytes are what every download and
every e-mailed copy serve, for good. They are never made again and never emptied, so unlike the
derived renditions they live under their own prefix, `issued/<kind>/<record id>/<sha256>.pdf`, and a
row of `issued_documents` says which bytes were issued for which record (its hash also enters the
audit trail). The name holds the hash, not just the record: bytes stored by a transaction that then
rolled back are left unnamed by any row and can never be mistaken for the document issued. A record
whose issued text changes (an amended order) is issued again as its next revision; the earlier
revisions stay.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Callable

import sqlalchemy as sa
from flask import Response, request
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, mapped_column

from . import audit, signals, signing
from .db import IdColumn, UTCDateTime, clock_now, new_id
from .errors import NotFound
from .extensions import db
from .http import PRIVATE_FILE_CACHE
from .storage import get_storage

PREFIX = "renditions"
_NAME = re.compile(r"^[a-z0-9][a-z0-9-]*$")


@dataclass(frozen=True)
class Rendered:
    """What a renderer made. `keep=False`: the bytes are right for now but not for the key (a part
    was unreadable, e.g. a thumbnail not yet in the store), so they are answered and not stored."""
    data: bytes
    keep: bool = True


def rendition_key(kind: str, audience: str, inputs: Any) -> str:
    """The hex SHA-256 naming the rendition of `kind` for `audience` from `inputs` (JSON values)."""
    if not _NAME.fullmatch(kind) or not _NAME.fullmatch(audience):
        raise ValueError("a rendition kind and audience are lower-case names")
    canonical = json.dumps({"kind": kind, "audience": audience, "inputs": inputs}, sort_keys=True,
                           separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def blob_name(kind: str, key: str, extension: str = "pdf") -> str:
    return f"{PREFIX}/{kind}/{key[:2]}/{key}.{extension}"


def _read(name: str) -> bytes | None:
    try:
        with get_storage().open(name) as handle:
            return handle.read()
    except NotFound:
        return None


def _store(name: str, data: bytes, content_type: str) -> bytes:
    """Store `data` under `name` unless a rendition is there already; the bytes that stand."""
    fd, path = tempfile.mkstemp(prefix="rendition-")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        written = get_storage().put_file(path, name, content_type, owned=True)
    finally:
        os.unlink(path)
    if written:
        return data
    return _read(name) or data


def kept(kind: str, audience: str, inputs: Any, render: Callable[[], bytes | Rendered], *,
         extension: str = "pdf", content_type: str = "application/pdf") -> tuple[str, bytes]:
    """(key, bytes) of the rendition: the stored one, or `render()`'s, stored on the way."""
    key = rendition_key(kind, audience, inputs)
    name = blob_name(kind, key, extension)
    data = _read(name)
    if data is None:
        made = render()
        made = made if isinstance(made, Rendered) else Rendered(made)
        data = _store(name, made.data, content_type) if made.keep else made.data
    return key, data


def respond(kind: str, audience: str, inputs: Any, render: Callable[[], bytes | Rendered], *, filename: str,
            content_type: str = "application/pdf", extension: str = "pdf", disposition: str = "inline") -> Response:
    """The HTTP answer for a rendition: 304 when the client holds it (nothing read, nothing rendered),
    else its bytes with the key as a strong ETag, private and revalidated before reuse."""
    key = rendition_key(kind, audience, inputs)
    headers = {"ETag": f'"{key}"', "Cache-Control": PRIVATE_FILE_CACHE}
    if request.if_none_match.contains_weak(key):  # RFC 9110 13.1.2: If-None-Match compares weakly
        return Response(status=304, headers=headers)
    _, data = kept(kind, audience, inputs, render, extension=extension, content_type=content_type)
    return Response(data, mimetype=content_type, headers={
        **headers, "Content-Disposition": f'{disposition}; filename="{filename}"'})


# --- issued documents -----------------------------------------------------------------------------
ISSUED_PREFIX = "issued"
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
UNSIGNED_NOTE = "This copy carries no digital signature."


class IssuedDocument(db.Model):
    """One document as the Town issued it: which bytes (by blob name and SHA-256), whether and by whom
    they are signed, whether the signature carries a timestamp, and when. Rows are only ever added."""

    __tablename__ = "issued_documents"
    __table_args__ = (sa.UniqueConstraint("kind", "record_id", "revision", name="uq_issued_documents_record"),)

    id: Mapped[str] = mapped_column(IdColumn, primary_key=True, default=new_id)
    kind: Mapped[str] = mapped_column(sa.String(40), nullable=False)
    record_id: Mapped[str] = mapped_column(IdColumn, nullable=False)
    revision: Mapped[int] = mapped_column(sa.Integer, nullable=False, default=1)
    permit_id: Mapped[str | None] = mapped_column(IdColumn, nullable=True, index=True)
    blob_name: Mapped[str] = mapped_column(sa.String(200), nullable=False)
    sha256: Mapped[str] = mapped_column(sa.String(64), nullable=False)
    size: Mapped[int] = mapped_column(sa.BigInteger, nullable=False)
    signed: Mapped[bool] = mapped_column(sa.Boolean, nullable=False, default=False)
    signer_subject: Mapped[str | None] = mapped_column(sa.String(500), nullable=True)
    signer_fingerprint: Mapped[str | None] = mapped_column(sa.String(64), nullable=True)
    timestamped: Mapped[bool] = mapped_column(sa.Boolean, nullable=False, default=False)
    issued_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False, default=clock_now, index=True)


@sa.event.listens_for(IssuedDocument, "before_update")
@sa.event.listens_for(IssuedDocument, "before_delete")
def _issued_stays(_mapper, _connection, _target):
    raise RuntimeError("an issued document stays as it was issued")


def signature_note() -> str:
    """The line an issued document prints about its signature: who signs it, or that it carries none.
    Rendered before signing, so it states what the signature applied next will be."""
    signer = signing.signer_description()
    return f"Digitally signed by {signer}." if signer else UNSIGNED_NOTE


def _checked(kind: str, record_id: str) -> tuple[str, str]:
    record_id = str(record_id)
    if not _NAME.fullmatch(kind) or not _UUID.fullmatch(record_id):
        raise ValueError("an issued document names its kind and its record by a server-made id")
    return kind, record_id


def issued_name(kind: str, record_id: str, sha256: str) -> str:
    kind, record_id = _checked(kind, record_id)
    if not re.fullmatch(r"[0-9a-f]{64}", sha256):
        raise ValueError("not a SHA-256")
    return f"{ISSUED_PREFIX}/{kind}/{record_id}/{sha256}.pdf"


def latest_issued(kind: str, record_id: str) -> IssuedDocument | None:
    kind, record_id = _checked(kind, record_id)
    return db.session.scalar(select(IssuedDocument).where(IssuedDocument.kind == kind,
                                                          IssuedDocument.record_id == record_id)
                             .order_by(IssuedDocument.revision.desc()).limit(1))


def _record(kind: str, record_id: str, revision: int, data: bytes, name: str, *, permit_id: str | None,
            signed: bool, timestamped: bool) -> IssuedDocument:
    """Add the row naming `data` as issued (under a savepoint: two first issues of one record at once
    leave one row, and the loser answers the winner's document) and its audit row."""
    sha256 = hashlib.sha256(data).hexdigest()
    doc = IssuedDocument(kind=kind, record_id=record_id, revision=revision, permit_id=permit_id, blob_name=name,
                         sha256=sha256, size=len(data), signed=signed, timestamped=timestamped,
                         signer_subject=signing.signer_subject() if signed else None,
                         signer_fingerprint=signing.signer_fingerprint() if signed else None)
    try:
        with db.session.begin_nested():
            db.session.add(doc)
    except IntegrityError:
        winner = db.session.scalar(select(IssuedDocument).where(
            IssuedDocument.kind == kind, IssuedDocument.record_id == record_id, IssuedDocument.revision == revision))
        if winner is None:
            raise
        return winner
    audit.record("document.issued", kind, record_id,
                 {"sha256": sha256, "signed": signed, "timestamped": timestamped, "revision": revision,
                  "size": len(data), "blob": name, "signer": doc.signer_subject}, permit_id=permit_id)
    return doc


def _issue(kind: str, record_id: str, revision: int, render: Callable[[str], bytes], *,
           permit_id: str | None) -> IssuedDocument | None:
    if signals.is_muted():
        # A trial run of a service (sync/rights.py), always rolled back: nothing is issued, since
        # the bytes it would store are outside the transaction that no rollback takes back.
        return None
    signed = signing.signer_configured()
    data = render(signature_note())
    if signed:
        data = signing.sign_pdf(data)
    name = issued_name(kind, record_id, hashlib.sha256(data).hexdigest())
    _store(name, data, "application/pdf")
    return _record(kind, record_id, revision, data, name, permit_id=permit_id, signed=signed,
                   timestamped=signed and signing.timestamped())


def issued(kind: str, record_id: str, render: Callable[[str], bytes], *,
           permit_id: str | None) -> IssuedDocument | None:
    """The document issued for the record: the one stored, or, the first time, `render(note)`'s bytes
    (`note`: the signature line the page prints, signature_note()), signed when a key is configured,
    stored and recorded with an audit row. None in a trial run (signals muted), which issues nothing."""
    kind, record_id = _checked(kind, record_id)
    return latest_issued(kind, record_id) or _issue(kind, record_id, 1, render, permit_id=permit_id)


def reissue(kind: str, record_id: str, render: Callable[[str], bytes], *,
            permit_id: str | None) -> IssuedDocument | None:
    """Issue the record's document again, as its next revision (what it states changed); the earlier
    revisions stay stored and recorded."""
    kind, record_id = _checked(kind, record_id)
    current = latest_issued(kind, record_id)
    return _issue(kind, record_id, (current.revision + 1) if current else 1, render, permit_id=permit_id)


def adopt(kind: str, record_id: str, name: str, data: bytes, *, permit_id: str | None) -> IssuedDocument:
    """Record bytes issued before documents were recorded here (already stored under `name`, unsigned)
    as the record's issued document, unchanged: they are what was handed out."""
    kind, record_id = _checked(kind, record_id)
    return latest_issued(kind, record_id) or _record(kind, record_id, 1, data, name, permit_id=permit_id,
                                                     signed=False, timestamped=False)


def issued_bytes(doc: IssuedDocument) -> bytes:
    """The bytes issued, as stored."""
    data = _read(doc.blob_name)
    if data is None:
        raise NotFound("The issued document is missing from the store.")
    return data


def issued_documents_of(permit_id: str) -> list[IssuedDocument]:
    """Every document issued on the permit or case, every revision, oldest first."""
    return list(db.session.scalars(select(IssuedDocument).where(IssuedDocument.permit_id == str(permit_id))
                                   .order_by(IssuedDocument.issued_at, IssuedDocument.kind,
                                             IssuedDocument.record_id, IssuedDocument.revision)))


def issued_response(doc: IssuedDocument, *, filename: str) -> Response:
    """The HTTP answer for an issued document: its stored bytes, the SHA-256 as a strong ETag."""
    headers = {"ETag": f'"{doc.sha256}"', "Cache-Control": PRIVATE_FILE_CACHE, "X-Content-Type-Options": "nosniff"}
    if request.if_none_match.contains_weak(doc.sha256):
        return Response(status=304, headers=headers)
    return Response(issued_bytes(doc), mimetype="application/pdf",
                    headers={**headers, "Content-Disposition": f'inline; filename="{filename}"'})


__all__ = ["ISSUED_PREFIX", "IssuedDocument", "PREFIX", "Rendered", "UNSIGNED_NOTE", "adopt", "blob_name",
           "issued", "issued_bytes", "issued_documents_of", "issued_name", "issued_response", "kept",
           "latest_issued", "reissue", "rendition_key", "respond", "signature_note"]
