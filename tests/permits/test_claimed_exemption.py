"""R-B2 as changed: the result is `exempt` where R-A1 holds and a claimed exemption stands, but until a
supervisor accepts the claim (R-B1) the application shows the exemption as claimed, not as decided.
`determination.exemption_status` says which: "claimed", "accepted", or null when not exempt."""
from __future__ import annotations

from datetime import timedelta

from inspect_api.clock import today as local_today


def _claim(client, headers, permit_id, **body):
    r = client.post(f"/api/v1/permits/{permit_id}/exemptions", json=body, headers=headers)
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def _decide(client, headers, permit_id, claim_id, decision, reason=None):
    r = client.post(f"/api/v1/permits/{permit_id}/exemptions/{claim_id}/decision",
                    json={"decision": decision, **({"reason": reason} if reason else {})}, headers=headers)
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def _determination(client, headers, permit_id):
    shown = client.get(f"/api/v1/permits/{permit_id}", headers=headers).get_json()
    return shown["review_level"], shown["determination"]


def _submitted(client, factory, owner_h, sup_h, owner, **claim):
    permit = factory.permit(owner, disturbed_area_sqft=30000)
    made = _claim(client, owner_h, permit.id, **claim)
    for headers, to in ((owner_h, "submitted"), (sup_h, "under_review")):
        r = client.post(f"/api/v1/permits/{permit.id}/transitions", json={"to": to}, headers=headers)
        assert r.status_code == 200, r.get_json()
    return permit, made


def test_a_claim_not_yet_accepted_is_shown_as_claimed(client, factory, supervisor):
    owner, owner_h = factory.as_role("applicant")
    _, sup_h = supervisor
    permit, claim = _submitted(client, factory, owner_h, sup_h, owner, kind="B2", statement="A post-and-rail fence")
    level, det = _determination(client, owner_h, permit.id)
    assert level == "exempt" and det["rules"] == ["R-A1", "R-B2"]
    assert det["exemption_status"] == "claimed"
    assert "claims exemption" in det["explanation"] and "not yet decided" in det["explanation"]
    assert "No review is required" not in det["explanation"]
    # Accepted: decided.
    _decide(client, sup_h, permit.id, claim["id"], "accepted")
    level, det = _determination(client, owner_h, permit.id)
    assert (level, det["exemption_status"]) == ("exempt", "accepted")
    assert "is exempt under bylaw §B" in det["explanation"] and "No review is required" in det["explanation"]


def test_a_rejected_claim_leaves_no_exemption_status(client, factory, supervisor):
    owner, owner_h = factory.as_role("applicant")
    _, sup_h = supervisor
    permit, claim = _submitted(client, factory, owner_h, sup_h, owner, kind="B4", statement="Cranberry bog")
    _decide(client, sup_h, permit.id, claim["id"], "rejected", "Not in agricultural use")
    level, det = _determination(client, owner_h, permit.id)
    assert (level, det["exemption_status"]) == ("land_disturbance_permit", None)


def test_a_b5_claim_without_its_document_is_neither_claimed_nor_decided(client, factory):
    owner, owner_h = factory.as_role("applicant")
    permit = factory.permit(owner, disturbed_area_sqft=12000)
    today = local_today()
    _claim(client, owner_h, permit.id, kind="B5", document_number="SE 023-1", issued_on=(today - timedelta(days=9))
           .isoformat(), expires_on=(today + timedelta(days=90)).isoformat())
    level, det = _determination(client, owner_h, permit.id)
    assert (level, det["exemption_status"]) == ("administrative_review", None)   # B5 stands only with its document


def test_a_project_without_claims_has_no_exemption_status(client, factory):
    owner, owner_h = factory.as_role("applicant")
    permit = factory.permit(owner, disturbed_area_sqft=4999)
    assert _determination(client, owner_h, permit.id)[1]["exemption_status"] is None


def test_the_stateless_calculator_is_unchanged(client, factory):
    _, headers = factory.as_role("applicant")
    r = client.post("/api/v1/determinations", json={"disturbed_area_sqft": 30000, "drains_to_ms4": True,
                                                     "drains_to_waters": False, "exemptions": [{"kind": "B2"}]},
                    headers=headers)
    assert r.status_code == 200
    body = r.get_json()
    assert body["review_level"] == "exempt" and "No review is required" in body["explanation"]
    assert "exemption_status" not in body
