"""A document is issued once: two requests that issue the same record's document at the same moment
(two first downloads of a document issued before documents were stored) both render and sign, but one
row names the bytes issued, both answer those bytes, and one audit row records them. PostgreSQL only:
on SQLite every transaction that may write takes the database's write lock as it begins, so two
issues never overlap."""
from __future__ import annotations

import threading
import uuid

import pytest
from sqlalchemy import select

from inspect_api import pdf, renditions
from inspect_api.audit import AuditEntry
from inspect_api.extensions import db
from inspect_api.renditions import IssuedDocument

from .support import validate

pytestmark = pytest.mark.postgres


def test_two_first_issues_at_once_leave_one_document(app, pki):
    record_id = str(uuid.uuid4())
    both_rendered = threading.Barrier(2, timeout=30)
    answers: dict[str, tuple[str, bytes]] = {}
    failures: list[BaseException] = []

    def render(note: str) -> bytes:
        both_rendered.wait()  # neither inserts its row before the other has rendered
        s = pdf.styles()
        return pdf.render([pdf.p("Enforcement Order", s.body), pdf.p(note, s.body)], title="Order", subject="x")

    def issue(name: str) -> None:
        try:
            with app.app_context():
                doc = renditions.issued("order", record_id, render, permit_id=None)
                answers[name] = (doc.sha256, renditions.issued_bytes(doc))
                db.session.commit()
                db.session.remove()
        except BaseException as exc:  # reported by the main thread
            failures.append(exc)

    threads = [threading.Thread(target=issue, args=(name,)) for name in ("a", "b")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not failures, failures
    assert answers["a"] == answers["b"]
    db.session.expire_all()
    [row] = db.session.scalars(select(IssuedDocument).where(IssuedDocument.record_id == record_id)).all()
    assert row.sha256 == answers["a"][0] and row.signed
    trail = db.session.scalars(select(AuditEntry).where(AuditEntry.record_id == record_id)).all()
    assert [(e.action, e.changes["sha256"]) for e in trail] == [("document.issued", row.sha256)]
    assert validate(answers["a"][1], pki).bottom_line
