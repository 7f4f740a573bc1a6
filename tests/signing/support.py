"""Issuing each of the five signed document kinds through the API as a supervisor does, and validating
a PDF's signature with pyHanko's validator against the test PKI's root."""
from __future__ import annotations

import io
from dataclasses import dataclass
from datetime import date

from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign.validation import validate_pdf_signature
from pyhanko_certvalidator import ValidationContext
from sqlalchemy import select

from inspect_api.extensions import db
from inspect_api.notifications.models import Notification
from inspect_api.permits.models import Party
from inspect_api.signing import outside_event_loop
from inspect_api.storage import blob_key, get_storage

from ..closeout.conftest import Closeout
from ..enforcement.conftest import make_finding
from ..enforcement.test_costs import ITEMS
from ..notifications.test_events import issue as issue_order
from ..notifications.test_events import open_case
from .pki import asn1

KINDS = ("order", "certificate", "citation", "lien_certificate", "cost_notice")


@dataclass
class Issued:
    kind: str
    url: str                 # where a user downloads it
    headers: dict            # as whom
    record_id: str | None    # the record its e-mails name (None: not e-mailed)
    attachment: str | None   # the e-mailed attachment's file name


def validation_context(pki) -> ValidationContext:
    return ValidationContext(trust_roots=[asn1(pki.root)], allow_fetching=False)


def signatures(data: bytes):
    return PdfFileReader(io.BytesIO(data)).embedded_signatures


def validate(data: bytes, pki):
    """pyHanko's verdict on the document's one signature, its timestamp checked against the same root."""
    [signature] = signatures(data)
    context = validation_context(pki)
    return outside_event_loop(lambda: validate_pdf_signature(signature, signer_validation_context=context,
                                                             ts_validation_context=context))


def attachments(record_id: str) -> list[tuple[str, bytes]]:
    """(file name, bytes) of every attachment of every message queued about the record."""
    db.session.expire_all()
    found = []
    for message in db.session.scalars(select(Notification).where(Notification.record_id == str(record_id))):
        for attachment in message.attachments:
            with get_storage().open(blob_key(attachment["sha256"])) as blob:
                found.append((attachment["name"], blob.read()))
    return found


def issue_kind(kind: str, client, factory, cast, town_clock) -> Issued:
    """Issue one document of `kind` through the API; where it is e-mailed, its recipients have addresses."""
    if kind == "order":
        case = open_case(client, factory, cast)
        order = issue_order(client, cast, case["id"])
        return Issued(kind, f"/api/v1/orders/{order['id']}.pdf", cast.sup, order["id"], f"{order['number']}.pdf")
    if kind == "certificate":
        closeout = Closeout(factory, client)
        applicant, applicant_h = factory.as_role("applicant", email="ann@example.org")
        permit = closeout.permit("admin", applicant=applicant)
        closeout.phase(permit, 1, in_compliance=True)
        closeout.accepted_notice(permit, applicant_h, cast.sup)
        cert = closeout.certificate(permit, cast.sup)
        return Issued(kind, f"/api/v1/certificates/{cert['id']}.pdf", applicant_h, cert["id"],
                      f"certificate-{cert['number']}.pdf")
    if kind == "citation":
        town_clock.set(date(2026, 6, 30))
        permit = factory.permit(cast.applicant, status="issued", disturbed_area_sqft=30000)
        make_finding(permit)
        db.session.add(Party(permit_id=permit.id, role="violator", name="Acme Site Works LLC",
                             email="acme@example.org"))
        db.session.commit()
        r = client.post("/api/v1/violations", headers=cast.sup, json={
            "permit_id": permit.id, "provision_kind": "esc_plan", "provision": "ESC plan sheet C-3",
            "first_observed_on": "2026-06-01"})
        assert r.status_code == 201, r.get_json()
        r = client.post("/api/v1/citations", headers=cast.sup, json={
            "violation_id": r.get_json()["id"], "violator": {"name": "Acme Site Works LLC", "address": "1 Wharf Rd"},
            "offense_on": "2026-06-10", "bylaw_section": "194-21(C)",
            "delivery": {"method": "hand", "delivered_on": "2026-06-11"}})
        assert r.status_code == 201, r.get_json()
        citation = r.get_json()
        return Issued(kind, f"/api/v1/citations/{citation['id']}.pdf", cast.sup, citation["id"],
                      f"citation-{citation['number']}.pdf")
    # The two cost-recovery documents: the Town did the work an order asked for.
    case = open_case(client, factory, cast)
    parties = {p["role"]: p for p in case["parties"]}
    order = issue_order(client, cast, case["id"])
    town_clock.set(date(2026, 5, 20))
    r = client.post("/api/v1/cost-recoveries", headers=cast.sup, json={
        "order_id": order["id"], "abatement_completed_on": "2026-05-18", "items": ITEMS})
    assert r.status_code == 201, r.get_json()
    record = r.get_json()
    town_clock.set(date(2026, 6, 5))
    r = client.patch(f"/api/v1/cost-recoveries/{record['id']}", headers=cast.sup, json={
        "version": record["version"], "recipients": [{"party_id": parties["owner"]["id"], "method": "email",
                                                      "sent_on": "2026-06-01", "received_on": "2026-06-03"}]})
    assert r.status_code == 200, r.get_json()
    record = r.get_json()
    base = f"/api/v1/cost-recoveries/{record['id']}"
    if kind == "cost_notice":
        [notice] = record["recipients"]
        return Issued(kind, f"{base}/notices/{notice['id']}.pdf", cast.sup, record["id"],
                      f"notice-of-costs-{order['number']}.pdf")
    assert kind == "lien_certificate", kind
    town_clock.set(date(2026, 7, 4))   # the owner's 30 days ended on 3 July: the costs are a lien
    return Issued(kind, f"{base}/lien-certificate.pdf", cast.sup, None, None)
