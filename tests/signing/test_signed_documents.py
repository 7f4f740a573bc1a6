"""Each document the Town issues (order, certificate of completion, citation, lien certificate, notice of
costs), issued through the API with a signing key and a timestamp authority configured: the PDF a user
downloads carries a PAdES signature pyHanko finds intact, valid, trusted to the test root and
timestamped; every download and the e-mailed copy are the same bytes; one changed byte is caught."""
from __future__ import annotations

import asyncio
import hashlib

import pytest
from cryptography.hazmat.primitives import serialization
from pyhanko.sign.validation import SignatureCoverageLevel
from sqlalchemy import select

from inspect_api.audit import AuditEntry
from inspect_api.extensions import db
from inspect_api.renditions import IssuedDocument

from ..pdf_support import pdf_text
from .support import KINDS, attachments, issue_kind, signatures, validate

SIGNER = "Town of Fairhaven Stormwater Authority (key-1)"


def _download(client, issued):
    r = client.get(issued.url, headers=issued.headers)
    assert r.status_code == 200, r.get_json()
    assert r.mimetype == "application/pdf"
    return r


@pytest.mark.parametrize("kind", KINDS)
def test_issued_document_is_signed_timestamped_and_served_as_issued(kind, client, factory, cast, town_clock,
                                                                    pki, tsa):
    before = tsa.requests
    issued = issue_kind(kind, client, factory, cast, town_clock)
    first = _download(client, issued)
    data = first.data

    status = validate(data, pki)
    assert status.intact and status.valid, status.pretty_print_details()
    assert status.trusted, status.pretty_print_details()
    assert status.coverage == SignatureCoverageLevel.ENTIRE_FILE
    assert status.signing_cert.subject.native["common_name"] == SIGNER
    assert status.timestamp_validity is not None, "no signature timestamp"
    ts = status.timestamp_validity
    assert ts.intact and ts.valid and ts.trusted, status.pretty_print_details()
    assert ts.signing_cert.subject.native["common_name"] == "Test Timestamp Authority"
    assert tsa.requests > before
    # The page says who signed it.
    assert f"Digitally signed by {SIGNER}." in pdf_text(data)

    # Downloaded again: the same bytes, the same ETag (its SHA-256), and a 304 for that ETag.
    again = _download(client, issued)
    assert again.data == data
    assert first.headers["ETag"] == again.headers["ETag"] == f'"{hashlib.sha256(data).hexdigest()}"'
    r = client.get(issued.url, headers={**issued.headers, "If-None-Match": first.headers["ETag"]})
    assert r.status_code == 304 and r.data == b""

    # One row names the bytes issued, signed with the timestamp, and the audit trail holds their hash.
    sha256 = hashlib.sha256(data).hexdigest()
    [row] = db.session.scalars(select(IssuedDocument).where(IssuedDocument.sha256 == sha256)).all()
    assert (row.size, row.signed, row.timestamped, row.revision) == (len(data), True, True, 1)
    assert row.signer_fingerprint == hashlib.sha256(
        pki.keys[0].certificate.public_bytes(serialization.Encoding.DER)).hexdigest()
    assert row.signer_subject == pki.keys[0].certificate.subject.rfc4514_string()
    audits = [a for a in db.session.scalars(select(AuditEntry).where(AuditEntry.action == "document.issued"))
              if a.changes.get("sha256") == sha256]
    assert [(a.record_id, a.changes["signed"], a.changes["timestamped"]) for a in audits] == [
        (row.record_id, True, True)]

    # The e-mailed copy is the document issued, byte for byte.
    if issued.record_id:
        sent = attachments(issued.record_id)
        assert sent and all(name == issued.attachment and copy == data for name, copy in sent), \
            [(name, len(copy)) for name, copy in sent]


@pytest.mark.parametrize("kind", ["order", "cost_notice"])
def test_one_changed_byte_inside_the_signed_range_is_caught(kind, client, factory, cast, town_clock, pki):
    issued = issue_kind(kind, client, factory, cast, town_clock)
    data = _download(client, issued).data
    [signature] = signatures(data)
    start, first_len, _, _ = signature.byte_range
    assert validate(data, pki).intact
    # A byte of the first page's content (inside the first signed range, away from the PDF's structure).
    at = data.index(b"stream", 0, first_len) + len(b"stream\n") + 10
    assert start <= at < first_len
    tampered = bytearray(data)
    tampered[at] ^= 0x01
    status = validate(bytes(tampered), pki)
    assert not status.intact and not status.bottom_line, status.pretty_print_details()
    assert "INTACT:UNTRUSTED" not in status.summary() and status.summary().startswith("INVALID")


def test_an_amended_order_is_issued_again_signed_and_the_first_issue_stays(client, factory, cast, town_clock, pki):
    issued = issue_kind("order", client, factory, cast, town_clock)
    first = _download(client, issued).data
    order_id = issued.record_id
    version = client.get(f"/api/v1/orders/{order_id}", headers=cast.sup).get_json()["version"]
    r = client.patch(f"/api/v1/orders/{order_id}", json={"deadline": "2026-06-01", "version": version},
                     headers=cast.sup)
    assert r.status_code == 200, r.get_json()
    second = _download(client, issued).data
    assert second != first and "June 1, 2026" in pdf_text(second) and "June 1, 2026" not in pdf_text(first)
    for data in (first, second):
        status = validate(data, pki)
        assert status.bottom_line and status.timestamp_validity.valid, status.pretty_print_details()
    rows = db.session.scalars(select(IssuedDocument).where(IssuedDocument.record_id == order_id)
                              .order_by(IssuedDocument.revision)).all()
    assert [(r.revision, r.sha256, r.signed) for r in rows] == [
        (1, hashlib.sha256(first).hexdigest(), True), (2, hashlib.sha256(second).hexdigest(), True)]
    from inspect_api.renditions import issued_bytes
    assert issued_bytes(rows[0]) == first  # the first issue is kept, byte for byte


def test_the_mail_server_receives_the_signed_order_as_issued(app, client, factory, cast, town_clock, pki,
                                                              smtp_server):
    from inspect_api.notifications import worker
    app.config["SMTP_URL"] = smtp_server.url
    issued = issue_kind("order", client, factory, cast, town_clock)
    data = _download(client, issued).data
    assert worker.drain("w1").sent == 2
    received = smtp_server.received()
    assert sorted(envelope["rcpt_tos"][0] for envelope, _ in received) == ["ana@example.org", "duc@example.org"]
    for _, mail in received:
        [attachment] = list(mail.iter_attachments())
        assert attachment.get_filename() == issued.attachment
        assert attachment.get_content() == data
        assert validate(attachment.get_content(), pki).bottom_line


def test_each_document_costs_the_timestamp_authority_one_request(client, factory, cast, town_clock, pki, tsa):
    issue_kind("order", client, factory, cast, town_clock)     # the first may also fetch a sample token
    before = tsa.requests
    issued = issue_kind("citation", client, factory, cast, town_clock)
    assert tsa.requests == before + 1
    assert validate(_download(client, issued).data, pki).timestamp_validity.valid
    assert tsa.requests == before + 1                           # downloads serve the stored bytes


def test_an_order_is_signed_while_an_event_loop_runs_in_the_thread(client, factory, cast, town_clock, pki):
    """pyHanko's blocking calls start a loop of their own, which asyncio refuses inside a running one (a
    server or harness may keep one running in the request's thread; Playwright's sync API does). The
    order is issued, signed and valid all the same."""
    def issue():
        return issue_kind("order", client, factory, cast, town_clock)

    try:
        asyncio.get_running_loop()  # one already runs in this thread (the browser suites' Playwright)
        issued = issue()
    except RuntimeError:
        async def inside_a_running_loop():
            return issue()
        issued = asyncio.run(inside_a_running_loop())
    data = _download(client, issued).data
    status = validate(data, pki)
    assert status.intact and status.valid and status.trusted
