"""The remaining notification events, each through the API: the rows a request writes
(recipient, event, subject, attachments' SHA-256), and none after a refused request."""
from __future__ import annotations

from datetime import date, timedelta

import pytest

from inspect_api.clock import today as local_today
from inspect_api.extensions import db
from inspect_api.permits.models import Party

from ..closeout.conftest import Closeout
from ..field.conftest import Site, answers
from .events_support import attachment_of, messages, rows

PHOTO = "8f7c1e7e-58b4-4bd1-9cb9-1bb3e5a1f001"


@pytest.fixture(autouse=True)
def _links(app):
    app.config["PUBLIC_BASE_URL"] = "https://permits.example.org"


def test_approved_inspection_sends_its_findings_to_applicant_and_owner(factory, client):
    applicant, applicant_h = factory.as_role("applicant", email="ann@example.org")
    supervisor, supervisor_h = factory.as_role("supervisor")
    inspector, inspector_h = factory.as_role("inspector")
    permit = factory.permit(applicant=applicant, status="issued", disturbed_area_sqft=30000)
    factory.assign(permit, inspector)
    site = Site(client, factory, permit, applicant, applicant_h, inspector, inspector_h, supervisor, supervisor_h)
    iid = site.inspection_id(checklist={"template": "esc", "items": answers({
        "inlet_protection": {"note": "Silt sack at CB-2 torn", "photo_ids": [PHOTO]}})})
    assert site.submit(iid).status_code == 200
    assert messages() == []  # submitted is not yet the Town's word (R-I5)
    assert site.review(iid, "returned").status_code == 422  # returned without a comment: refused
    assert messages() == []
    r = site.review(iid, "approved")
    assert r.status_code == 200, r.get_json()
    assert rows() == [("ann@example.org", "applicant", "inspection_approved", False, "queued"),
                      ("owner@example.org", "owner", "inspection_approved", False, "queued")]
    owner_copy = next(m for m in messages() if m.recipient_role == "owner")
    assert owner_copy.subject == f"1 item to correct at {permit.site_address} ({permit.number})"
    assert "Silt sack at CB-2 torn" in owner_copy.body_text and "By: Monday, May 11, 2026" in owner_copy.body_text
    # A link into the app, which fetches the photo with the reader's sign-in (not the bare API address).
    assert f"https://permits.example.org/#/photo/{PHOTO}" in owner_copy.body_text
    assert f'href="https://permits.example.org/#/photo/{PHOTO}"' in owner_copy.body_html
    assert "as the property owner" in owner_copy.body_text and owner_copy.record_id == iid


def test_inspection_without_findings_sends_nothing(factory, client):
    applicant, applicant_h = factory.as_role("applicant")
    supervisor, supervisor_h = factory.as_role("supervisor")
    inspector, inspector_h = factory.as_role("inspector")
    permit = factory.permit(applicant=applicant, status="issued", disturbed_area_sqft=30000)
    factory.assign(permit, inspector)
    site = Site(client, factory, permit, applicant, applicant_h, inspector, inspector_h, supervisor, supervisor_h)
    iid = site.inspection_id()
    assert site.submit(iid).status_code == 200 and site.review(iid, "approved").status_code == 200
    assert messages() == []


def test_certificate_is_sent_with_its_pdf_and_bond_release_follows(factory, client):
    closeout = Closeout(factory, client)
    applicant, headers = factory.as_role("applicant", email="ann@example.org")
    _, sup = factory.as_role("supervisor")
    permit = closeout.permit("admin", applicant=applicant)
    done = closeout.phase(permit, 1, in_compliance=True)
    bond = client.post("/api/v1/bonds", headers=sup, json={
        "permit_id": permit.id, "form": "surety_bond", "amount": "10000.00", "issuer": "Bay State Surety",
        "received_on": (local_today() - timedelta(days=200)).isoformat(),
        "phases": [{"phase_id": done.id, "amount": "3000"}]}).get_json()
    refused = client.post(f"/api/v1/bonds/{bond['id']}/releases", json={"kind": "full"}, headers=sup)
    assert refused.status_code == 409 and messages() == []  # R-D3: no certificate yet
    early = client.post(f"/api/v1/permits/{permit.id}/certificate", json={}, headers=sup)
    assert early.status_code == 409 and messages() == []  # R-F3: the notice is not accepted yet
    closeout.accepted_notice(permit, headers, sup)
    cert = closeout.certificate(permit, sup)
    assert rows("certificate_issued") == [("ann@example.org", "applicant", "certificate_issued", False, "queued"),
                                          ("owner@example.org", "owner", "certificate_issued", False, "queued")]
    [first, _] = messages("certificate_issued")
    # The attachment is the certificate as issued: the very bytes the download serves.
    issued = client.get(f"/api/v1/certificates/{cert['id']}.pdf", headers=sup)
    assert issued.status_code == 200 and issued.data.startswith(b"%PDF")
    assert first.attachments == [attachment_of(issued.data, f"certificate-{cert['number']}.pdf")]
    assert first.subject == f"Certificate of completion {cert['number']}: {permit.site_address}"
    assert "operation and maintenance obligations" in first.body_text
    r = client.post(f"/api/v1/bonds/{bond['id']}/releases", json={"kind": "partial", "phase_id": done.id},
                    headers=sup)
    assert r.status_code == 201, r.get_json()
    [release] = messages("bond_released")
    assert (release.recipient_email, release.required) == ("ann@example.org", False)
    assert release.subject == f"$3,000.00 of the security released: {permit.number}"
    assert "Still held: $7,000.00" in release.body_text and "phase 1 (Phase 1)" in release.body_text


def _enforcement(factory, client):
    from ..enforcement.conftest import make_finding
    supervisor, sup = factory.as_role("supervisor")
    applicant, app_h = factory.as_role("applicant")
    permit = factory.permit(applicant, status="issued", disturbed_area_sqft=30000)
    return supervisor, sup, applicant, app_h, permit, make_finding(permit)


def test_protest_decision_goes_to_the_protester(factory, client, monkeypatch):
    from ..enforcement.conftest import TownClock
    from ..enforcement.test_costs import ITEMS
    from ..enforcement.test_orders import order_body
    town = TownClock(monkeypatch)
    _, sup, _, app_h, permit, finding = _enforcement(factory, client)
    order = client.post("/api/v1/orders", json=order_body(permit, finding), headers=sup).get_json()
    town.set(date(2026, 5, 20))
    record = client.post("/api/v1/cost-recoveries", headers=sup, json={
        "order_id": order["id"], "abatement_completed_on": "2026-05-18", "description": "Town work",
        "items": ITEMS}).get_json()
    owner = next(p for p in permit.parties if p.role == "owner")
    town.set(date(2026, 6, 5))
    record = client.patch(f"/api/v1/cost-recoveries/{record['id']}", headers=sup, json={
        "version": record["version"], "recipients": [
            {"party_id": owner.id, "role": "owner", "method": "certified_mail", "sent_on": "2026-06-01",
             "received_on": "2026-06-03"}]}).get_json()
    town.set(date(2026, 6, 20))
    assert client.post(f"/api/v1/cost-recoveries/{record['id']}/protest", json={"text": "Too much"},
                       headers=app_h).status_code == 201
    path = f"/api/v1/cost-recoveries/{record['id']}/decision"
    before = len(messages())
    town.set(date(2026, 7, 1))
    assert client.post(path, json={"decision": "reduce", "amount": "3000.00"}, headers=sup).status_code == 422
    assert len(messages()) == before
    r = client.post(path, json={"decision": "reduce", "amount": "1825.00", "reason": "Crew hours corrected"},
                    headers=sup)
    assert r.status_code == 200, r.get_json()
    assert rows("protest_decided") == [("owner@example.org", "owner", "protest_decided", True, "queued")]
    [message] = messages("protest_decided")
    assert message.subject == f"Decision on your protest of costs, order {order['number']}: costs reduced"
    assert "Amount due: $1,825.00" in message.body_text and "Friday, July 31, 2026" in message.body_text
    assert "Crew hours corrected" in message.body_text and message.record_id == record["id"]


def test_citation_goes_to_the_cited_party_with_its_pdf(factory, client, monkeypatch):
    from inspect_api.enforcement.models import Citation
    from inspect_api.enforcement.penalties import citation_document
    from ..enforcement.conftest import TownClock
    TownClock(monkeypatch).set(date(2026, 6, 30))
    _, sup, _, _, permit, _ = _enforcement(factory, client)
    db.session.add(Party(permit_id=permit.id, role="violator", name="Acme Site Works LLC", email="acme@example.org"))
    db.session.commit()
    violation = client.post("/api/v1/violations", headers=sup, json={
        "permit_id": permit.id, "provision_kind": "esc_plan", "provision": "ESC plan sheet C-3",
        "first_observed_on": "2026-06-01"}).get_json()
    body = {"violation_id": violation["id"], "violator": {"name": "acme site works  llc", "address": "1 Wharf Rd"},
            "offense_on": "2026-06-10", "bylaw_section": "194-21(C)",
            "delivery": {"method": "hand", "delivered_on": "2026-06-11"}}
    assert client.post("/api/v1/citations", json={**body, "offense_on": "2026-07-10"}, headers=sup).status_code == 422
    assert messages() == []
    r = client.post("/api/v1/citations", json=body, headers=sup)
    assert r.status_code == 201, r.get_json()
    assert rows() == [("acme@example.org", "violator", "citation_written", True, "queued")]
    [message] = messages()
    stored = db.session.get(Citation, r.get_json()["id"])
    assert message.attachments == [attachment_of(citation_document(stored), f"citation-{stored.number}.pdf")]
    assert message.subject == f"Citation {stored.number}: $100.00 fine, {permit.site_address}"
    assert "Thursday, July 2, 2026" in message.body_text  # 21 days from delivery, MGL c.40 §21D


def test_citation_of_a_person_without_an_address_is_recorded_as_failed(factory, client, monkeypatch):
    from ..enforcement.conftest import TownClock
    TownClock(monkeypatch).set(date(2026, 6, 30))
    _, sup, _, _, permit, _ = _enforcement(factory, client)
    violation = client.post("/api/v1/violations", headers=sup, json={
        "permit_id": permit.id, "provision_kind": "esc_plan", "provision": "ESC plan sheet C-3",
        "first_observed_on": "2026-06-01"}).get_json()
    r = client.post("/api/v1/citations", headers=sup, json={
        "violation_id": violation["id"], "violator": {"name": "Unknown Hauler"}, "offense_on": "2026-06-10",
        "bylaw_section": "194-21(C)"})
    assert r.status_code == 201, r.get_json()
    [message] = messages()
    assert (message.recipient_name, message.status, message.required) == ("Unknown Hauler", "failed", True)
    assert message.failure_reason.startswith("No e-mail address on file for Unknown Hauler (violator)")


def test_device_revocation_tells_its_user_once(factory, client):
    inspector = factory.user("inspector", email="ines@example.org")
    _, sup = factory.as_role("supervisor")
    factory.headers(inspector, device_id="tablet-north")
    other, other_h = factory.as_role("inspector")
    assert client.post("/api/v1/devices/tablet-north/revoke", headers=other_h).status_code in (403, 404)
    assert messages() == []
    r = client.post("/api/v1/devices/tablet-north/revoke", headers=sup)
    assert r.status_code == 200, r.get_json()
    assert client.post("/api/v1/devices/tablet-north/revoke", headers=sup).status_code == 200  # again: no 2nd
    assert rows() == [("ines@example.org", "inspector", "device_revoked", False, "queued")]
    [message] = messages()
    assert message.record_type == "user" and message.record_id == inspector.id
    assert "https://permits.example.org/#/account" in message.body_text
