"""Exemption claims (R-B1, R-B2): evidence per kind, supervisor decisions, documents and expiry."""
from datetime import timedelta

import pytest

from sqlalchemy import func, select

from inspect_api.audit import AuditEntry
from inspect_api.extensions import db
from inspect_api.permits import services
from inspect_api.clock import today as local_today
from inspect_api.permits.models import Permit, PermitExemption

from ..photos.helpers import jpeg, put_photo
from .conftest import assert_error

TODAY = local_today()


def _claim(client, headers, permit_id, **body):
    return client.post(f"/api/v1/permits/{permit_id}/exemptions", json=body, headers=headers)


def _decide(client, headers, permit_id, claim_id, decision, reason=None):
    return client.post(f"/api/v1/permits/{permit_id}/exemptions/{claim_id}/decision",
                       json={"decision": decision, **({"reason": reason} if reason else {})}, headers=headers)


def _b5(**extra):
    return {"kind": "B5", "document_number": "SE 023-1234", "issued_on": (TODAY - timedelta(days=300)).isoformat(),
            "expires_on": (TODAY + timedelta(days=30)).isoformat(), **extra}


@pytest.mark.parametrize("body", [
    {"kind": "B1", "statement": "Re-seeding the lawn", "single_family": True},
    {"kind": "B2", "statement": "Post-and-rail fence along the lot line"},
    {"kind": "B3", "utility_kind": "gas", "statement": "Gas service to the house"},
    {"kind": "B4", "statement": "Cranberry bog maintenance"},
])
def test_b1_to_b4_claims_make_the_draft_exempt(client, factory, body):
    owner, headers = factory.as_role("applicant")
    permit = factory.permit(owner, disturbed_area_sqft=30000)
    r = _claim(client, headers, permit.id, **body)
    claim = r.get_json()
    assert r.status_code == 201, claim
    assert claim["kind"] == body["kind"] and claim["status"] == "claimed" and claim["stands"] is True
    got = client.get(f"/api/v1/permits/{permit.id}", headers=headers).get_json()
    assert got["review_level"] == "exempt" and got["determination"]["rules"] == ["R-A1", "R-B2"]
    assert got["exemptions"][0]["id"] == claim["id"] and got["version"] == 2


@pytest.mark.parametrize("body, field", [
    ({"kind": "B1", "statement": "Lawn", "single_family": False}, "single_family"),
    ({"kind": "B1", "single_family": True}, "statement"),
    ({"kind": "B2"}, "statement"),
    ({"kind": "B3", "utility_kind": "drainage"}, "utility_kind"),
    ({"kind": "B3"}, "utility_kind"),
    ({"kind": "B4", "statement": ""}, "statement"),
    ({"kind": "B5"}, "document_number"),
    ({"kind": "B6", "document_number": "PB-7", "issued_on": "2026-02-01", "expires_on": "2026-01-01"}, "expires_on"),
    ({"kind": "B7"}, "kind"),
])
def test_claim_evidence_is_checked(client, factory, body, field):
    owner, headers = factory.as_role("applicant")
    permit = factory.permit(owner)
    assert_error(_claim(client, headers, permit.id, **body), 422, "validation_error", field=field)


def test_b3_drainage_message(client, factory):
    owner, headers = factory.as_role("applicant")
    permit = factory.permit(owner)
    body = assert_error(_claim(client, headers, permit.id, kind="B3", utility_kind="drainage"), 422, "validation_error")
    assert body["errors"]["utility_kind"] == ["Drainage work is not exempt under B3."]


def test_b5_without_document_does_not_stand_until_attached(client, factory):
    owner, headers = factory.as_role("applicant")
    permit = factory.permit(owner, disturbed_area_sqft=30000)
    claim = _claim(client, headers, permit.id, **_b5()).get_json()
    assert claim["stands"] is False
    got = client.get(f"/api/v1/permits/{permit.id}", headers=headers).get_json()
    assert got["review_level"] == "land_disturbance_permit" and "R-B1" in got["determination"]["rules"]
    doc = client.post(f"/api/v1/permits/{permit.id}/documents", headers=headers,
                      json={"kind": "other", "filename": "order-of-conditions.pdf"}).get_json()
    r = client.patch(f"/api/v1/permits/{permit.id}/exemptions/{claim['id']}", headers=headers,
                     json={"version": claim["version"], "document_id": doc["id"]})
    assert r.status_code == 200 and r.get_json()["stands"] is True
    got = client.get(f"/api/v1/permits/{permit.id}", headers=headers).get_json()
    assert got["review_level"] == "exempt"
    assert got["determination"]["valid_until"] == _b5()["expires_on"]


def test_document_of_another_permit_is_refused(client, factory):
    owner, headers = factory.as_role("applicant")
    permit, other = factory.permit(owner), factory.permit(owner)
    doc = client.post(f"/api/v1/permits/{other.id}/documents", headers=headers,
                      json={"kind": "other", "filename": "oc.pdf"}).get_json()
    assert_error(_claim(client, headers, permit.id, **_b5(document_id=doc["id"])), 422, "validation_error",
                 field="document_id")


def _scan(client, headers, permit_id) -> str:
    """A photo of the order of conditions' sheet, on the permit."""
    r = put_photo(client, headers, permit_id, jpeg((40, 30)))
    assert r.status_code == 201, r.get_json()
    return r.get_json()["id"]


def _submitted_with_claim(client, factory, body, area=30000):
    owner, headers = factory.as_role("applicant")
    permit = factory.permit(owner, disturbed_area_sqft=area)
    if body.pop("scan", False):
        body["document_photo_id"] = _scan(client, headers, permit.id)
    claim = _claim(client, headers, permit.id, **body).get_json()
    r = client.post(f"/api/v1/permits/{permit.id}/transitions", json={"to": "submitted"}, headers=headers)
    assert r.status_code == 200, r.get_json()
    return permit, claim, r.get_json()


def test_exempt_submission_gets_no_number_then_rejection_gives_one(client, factory, supervisor):
    _, sup_h = supervisor
    permit, claim, submitted = _submitted_with_claim(client, factory, {"kind": "B2", "statement": "Fence"})
    assert submitted["number"] is None and submitted["review_level"] == "exempt"
    assert_error(_decide(client, sup_h, permit.id, claim["id"], "rejected"), 422, "validation_error", field="reason")
    r = _decide(client, sup_h, permit.id, claim["id"], "rejected", "The fence includes a retaining wall and regrading")
    assert r.status_code == 200 and r.get_json()["status"] == "rejected" and r.get_json()["stands"] is False
    got = client.get(f"/api/v1/permits/{permit.id}", headers=sup_h).get_json()
    assert got["review_level"] == "land_disturbance_permit"
    assert got["number"] == f"LDP-{TODAY.year}-0001"
    assert_error(_decide(client, sup_h, permit.id, claim["id"], "accepted"), 409, "exemption_decided")


def test_accepted_exemption_lets_the_supervisor_approve(client, factory, supervisor):
    sup, sup_h = supervisor
    permit, claim, _ = _submitted_with_claim(client, factory, {"kind": "B4", "statement": "Farm field"})
    client.post(f"/api/v1/permits/{permit.id}/transitions", json={"to": "under_review"}, headers=sup_h)
    body = assert_error(client.post(f"/api/v1/permits/{permit.id}/transitions", json={"to": "approved"},
                                    headers=sup_h), 409, "invalid_transition")
    assert "Accept the exemption claim" in body["message"]
    r = _decide(client, sup_h, permit.id, claim["id"], "accepted")
    assert r.status_code == 200
    assert (r.get_json()["status"], r.get_json()["decided_by"]) == ("accepted", sup.id)
    r = client.post(f"/api/v1/permits/{permit.id}/transitions", json={"to": "approved"}, headers=sup_h)
    assert r.status_code == 200 and r.get_json()["status"] == "approved"


def test_accepting_b5_needs_a_document(client, factory, supervisor):
    _, sup_h = supervisor
    permit, claim, _ = _submitted_with_claim(client, factory, _b5())
    body = assert_error(_decide(client, sup_h, permit.id, claim["id"], "accepted"), 409, "exemption_document_invalid")
    assert "Attach" in body["message"]


def test_accepting_an_expired_order_is_refused(app, client, factory, supervisor):
    _, sup_h = supervisor
    permit, claim, _ = _submitted_with_claim(client, factory, _b5(scan=True))
    row = db.session.get(PermitExemption, claim["id"])
    row.expires_on = TODAY - timedelta(days=1)  # time passes: the order expired yesterday
    db.session.commit()
    body = assert_error(_decide(client, sup_h, permit.id, claim["id"], "accepted"), 409, "exemption_document_invalid")
    assert "expired on" in body["message"]


def test_an_expired_order_voids_an_accepted_exemption(app, client, factory, supervisor):
    _, sup_h = supervisor
    permit, claim, submitted = _submitted_with_claim(client, factory, _b5(scan=True))
    assert submitted["review_level"] == "exempt" and submitted["number"] is None
    assert _decide(client, sup_h, permit.id, claim["id"], "accepted").status_code == 200
    row = db.session.get(PermitExemption, claim["id"])
    row.expires_on = TODAY - timedelta(days=1)
    db.session.commit()
    audit_rows, version = db.session.scalar(select(func.count()).select_from(AuditEntry)), permit.version
    db.session.expire_all()
    got = client.get(f"/api/v1/permits/{permit.id}", headers=sup_h).get_json()
    assert got["review_level"] == "land_disturbance_permit"
    assert got["determination"]["rules"] == ["R-A1", "R-B1", "R-A3"]
    assert got["exemptions"][0]["status"] == "accepted" and got["exemptions"][0]["stands"] is False
    listed = client.get("/api/v1/permits", headers=sup_h).get_json()
    assert [(p["id"], p["review_level"]) for p in listed] == [(permit.id, "land_disturbance_permit")]
    # the reads showed it as of today and stored nothing: no audit row, no new version, no number yet
    assert got["number"] is None and got["version"] == version
    db.session.expire_all()
    assert db.session.scalar(select(func.count()).select_from(AuditEntry)) == audit_rows
    assert db.session.get(Permit, permit.id).version == version
    # the next change to the permit stores the determination and numbers it at its new level
    moved = client.post(f"/api/v1/permits/{permit.id}/transitions", json={"to": "under_review"}, headers=sup_h)
    assert moved.status_code == 200, moved.get_json()
    assert moved.get_json()["number"] == f"LDP-{TODAY.year}-0001"
    stored = db.session.scalars(select(AuditEntry.changes).where(AuditEntry.action == "permit.determination")
                                .order_by(AuditEntry.at.desc()).limit(1)).one()
    assert stored["reason"] == "an exemption document is no longer valid today"


def test_only_supervisors_decide_and_only_owners_claim(client, factory):
    owner, headers = factory.as_role("applicant")
    _, insp_h = factory.as_role("inspector")
    permit = factory.permit(owner, status="submitted")
    claim = _claim(client, headers, permit.id, kind="B2", statement="Fence").get_json()
    assert_error(_decide(client, headers, permit.id, claim["id"], "accepted"), 403, "forbidden")
    assert_error(_claim(client, insp_h, permit.id, kind="B2", statement="Fence"), 403, "forbidden")
    decided = factory.permit(owner, status="approved")
    assert_error(_claim(client, headers, decided.id, kind="B2", statement="Fence"), 409, "permit_locked")


def test_claims_are_idempotent_on_id(client, factory):
    owner, headers = factory.as_role("applicant")
    permit = factory.permit(owner)
    body = {"id": "6d1b1c56-0d7c-4b59-a2a1-8a6d0b1c2a11", "kind": "B2", "statement": "Fence"}
    assert _claim(client, headers, permit.id, **body).status_code == 201
    again = _claim(client, headers, permit.id, **body)
    assert again.status_code == 200 and again.get_json()["id"] == body["id"]
    assert_error(_claim(client, headers, permit.id, **{**body, "statement": "Wall"}), 409, "conflict")
    listed = client.get(f"/api/v1/permits/{permit.id}/exemptions", headers=headers).get_json()
    assert [c["id"] for c in listed] == [body["id"]]


def test_stored_determination_lists_claim_inputs(app, factory):
    owner = factory.user("applicant")
    permit = factory.permit(owner, disturbed_area_sqft=30000)
    from inspect_api.permits.exemptions import claim_exemption
    claim, _ = claim_exemption(owner, permit, {"kind": "B2", "statement": "Fence"})
    db.session.commit()
    inputs = services.dump_permit(permit)["determination"]["inputs"]
    assert inputs["exemptions"] == [{"id": claim.id, "kind": "B2", "status": "claimed", "document_valid": False}]


def test_the_scan_of_an_order_must_be_a_photo_of_this_permit_the_caller_sees(client, factory):
    owner, headers = factory.as_role("applicant")
    other, other_h = factory.as_role("applicant")
    mine, theirs = factory.permit(owner, disturbed_area_sqft=30000), factory.permit(other, disturbed_area_sqft=30000)
    their_scan = _scan(client, other_h, theirs.id)
    for photo_id in (their_scan, "photo-1"):
        body = assert_error(_claim(client, headers, mine.id, **_b5(document_photo_id=photo_id)), 422, "validation_error")
        assert body["errors"] == {"document_photo_id": ["No such photo on this permit; upload it first."]}
    assert db.session.scalar(select(func.count()).select_from(PermitExemption)) == 0
    claim = _claim(client, headers, mine.id, **_b5())
    assert claim.status_code == 201, claim.get_json()
    r = client.patch(f"/api/v1/permits/{mine.id}/exemptions/{claim.get_json()['id']}", headers=headers,
                     json={"document_photo_id": their_scan, "version": claim.get_json()["version"]})
    assert_error(r, 422, "validation_error")
    own_scan = _scan(client, headers, mine.id)
    r = client.patch(f"/api/v1/permits/{mine.id}/exemptions/{claim.get_json()['id']}", headers=headers,
                     json={"document_photo_id": own_scan, "version": claim.get_json()["version"]})
    assert r.status_code == 200 and r.get_json()["document_photo_id"] == own_scan
