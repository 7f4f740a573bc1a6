"""Enforcement that reaches every party (R-O0) and orders with teeth (R-O1a, R-D1, R-A6, R-A7), through
the API. Dates and areas are computed by hand from the bylaw text."""
from __future__ import annotations

import uuid
from datetime import date, datetime, timedelta, timezone

import pytest

from inspect_api.checklists.defaults import DEFAULT_ITEMS
from inspect_api.extensions import db
from inspect_api.permits.models import PermitExemption

VIOLATOR = {"role": "violator", "name": "Nguyễn Văn Đức", "mailing_address": "12 Bridge St, New Bedford, MA 02740",
            "email": "duc@example.org"}


def open_case(client, factory, cast, **overrides):
    body = factory.permit_payload(parties=[VIOLATOR], proposed_use="unpermitted clearing and grading",
                                  owner={"name": "Ana Souza", "email": "ana@example.org",
                                         "mailing_address": "3 Fort St, Fairhaven, MA 02719"}, **overrides)
    r = client.post("/api/v1/permits", json=body, headers=cast.sup)
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def move(client, headers, permit_id, to, **body):
    return client.post(f"/api/v1/permits/{permit_id}/transitions", json={"to": to, **body}, headers=headers)


# --- items 1-2: cases and parties (R-O0) ----------------------------------------------------------
def test_supervisor_opens_a_case_for_land_disturbed_without_an_application(client, factory, cast, town_clock):
    case = open_case(client, factory, cast)
    assert case["status"] == "unpermitted" and case["applicant_id"] is None
    assert case["number"] == "ENF-2026-0001"
    parties = {p["role"]: p for p in case["parties"]}
    assert set(parties) == {"owner", "violator"}
    assert (parties["owner"]["name"], parties["owner"]["mailing_address"]) == ("Ana Souza", "3 Fort St, Fairhaven, MA 02719")
    assert (parties["violator"]["name"], parties["violator"]["email"]) == ("Nguyễn Văn Đức", "duc@example.org")
    # A case is reached only this way and never moves along the application flow.
    r = move(client, cast.sup, case["id"], "submitted")
    assert r.status_code == 409 and r.get_json()["error"] == "invalid_transition"
    # Orders, violations and citations attach to it as to any permit; the order goes to violator and owner.
    r = client.post("/api/v1/orders", json={
        "permit_id": case["id"], "kinds": ["cease_and_desist", "remediation"], "deadline": "2026-05-15",
        "requirements": [{"kind": "cease_and_desist", "text": "Stop clearing"},
                         {"kind": "remediation", "text": "Stabilize the cleared slope"}],
        "violated": [{"provision_kind": "bylaw", "provision": "§194-21(A): disturbance without approval"}]},
        headers=cast.sup)
    assert r.status_code == 201, r.get_json()
    order = r.get_json()
    assert order["recipient_party_ids"] == [parties["owner"]["id"], parties["violator"]["id"]]
    assert order["issuer_title"] == "Stormwater Authority"
    r = client.post("/api/v1/violations", json={"permit_id": case["id"], "provision_kind": "bylaw",
                                                "provision": "194-21(A)", "first_observed_on": "2026-05-01"},
                    headers=cast.sup)
    assert r.status_code == 201, r.get_json()
    assert client.get(f"/api/v1/permits/{case['id']}", headers=cast.insp).status_code == 200


def test_an_applicant_never_sees_a_case_they_are_not_party_to(client, factory, cast, town_clock):
    case = open_case(client, factory, cast)
    for headers in (cast.app, cast.other):
        r = client.get(f"/api/v1/permits/{case['id']}", headers=headers)
        assert r.status_code == 404 and r.get_json()["error"] == "not_found"
        assert case["id"] not in {p["id"] for p in client.get("/api/v1/permits", headers=headers).get_json()}
        assert client.get(f"/api/v1/permits/{case['id']}/parties", headers=headers).status_code == 404
        assert client.get(f"/api/v1/orders?permit_id={case['id']}", headers=headers).get_json() == []
    # A violator who has an account, once a supervisor links it to the party, sees the case (and only that).
    violator = next(p for p in case["parties"] if p["role"] == "violator")
    r = client.patch(f"/api/v1/permits/{case['id']}/parties/{violator['id']}",
                     json={"user_id": cast.applicant.id, "version": violator["version"]}, headers=cast.sup)
    assert r.status_code == 200 and r.get_json()["user_id"] == cast.applicant.id
    assert client.get(f"/api/v1/permits/{case['id']}", headers=cast.app).status_code == 200
    assert client.get(f"/api/v1/permits/{case['id']}", headers=cast.other).status_code == 404
    r = client.post(f"/api/v1/permits/{case['id']}/parties", json={"role": "contractor", "name": "X"},
                    headers=cast.app)
    assert r.status_code == 403


def test_an_application_filed_later_for_the_site_is_linked_to_the_case(client, factory, cast, town_clock):
    case = open_case(client, factory, cast, site={"address": "77 Sconticut Neck Rd, Fairhaven, MA",
                                                  "parcel_id": "33-101", "location": {"lat": 41.6, "lon": -70.88}})
    r = client.post("/api/v1/permits", json=factory.permit_payload(site={
        "address": "77 Sconticut Neck Road", "parcel_id": "33-101", "location": {"lat": 41.6, "lon": -70.88}}),
        headers=cast.app)
    assert r.status_code == 201, r.get_json()
    application = r.get_json()
    # Linked, but an applicant not named on the case is not told its id.
    assert application["case_id"] is None and application["status"] == "draft"
    assert client.get(f"/api/v1/permits/{application['id']}", headers=cast.sup).get_json()["case_id"] == case["id"]
    assert {p["role"] for p in application["parties"]} == {"owner", "applicant"}
    # The link does not open the case to the applicant.
    assert client.get(f"/api/v1/permits/{case['id']}", headers=cast.app).status_code == 404
    elsewhere = client.post("/api/v1/permits", json=factory.permit_payload(), headers=cast.app).get_json()
    assert elsewhere["case_id"] is None


# --- cease and desist takes effect (R-O1a) ----------------------------------------------------------
def test_cease_and_desist_refuses_commencement_until_closed(client, cast, permit, town_clock):
    r = client.post("/api/v1/orders", json={
        "permit_id": permit.id, "kinds": ["cease_and_desist"], "deadline": "2026-05-09",
        "requirements": [{"kind": "cease_and_desist", "text": "Stop all land-disturbing activity"}]}, headers=cast.sup)
    order = r.get_json()
    r = move(client, cast.app, permit.id, "active")
    assert r.status_code == 409 and r.get_json()["error"] == "cease_and_desist"
    assert "R-O1a" in r.get_json()["message"]
    shown = client.get(f"/api/v1/permits/{permit.id}", headers=cast.app).get_json()
    assert shown["cease_and_desist"] is True and shown["commencement_blocked"]["error"] == "cease_and_desist"
    r = client.post(f"/api/v1/orders/{order['id']}/status", json={"to": "complied"}, headers=cast.sup)
    assert r.status_code == 200
    r = move(client, cast.app, permit.id, "active", on="2026-05-04")
    assert r.status_code == 200 and r.get_json()["status"] == "active"


def _inspection_with_disturbance(client, cast, permit_id):
    now = datetime.now(timezone.utc)
    iso = lambda d: d.isoformat().replace("+00:00", "Z")  # noqa: E731
    entry = client.post("/api/v1/entry-authorizations", json={
        "permit_id": permit_id, "basis": "permit_condition", "granted_by_name": "Condition 3",
        "granted_by_relation": "permit condition", "scope": ["examination"],
        "valid_from": iso(now - timedelta(days=5)), "valid_to": iso(now + timedelta(days=5))}, headers=cast.sup)
    assert entry.status_code == 201, entry.get_json()
    inspection_id = str(uuid.uuid4())
    r = client.post("/api/v1/inspections", json={
        "id": inspection_id, "permit_id": permit_id, "entry_authorization_id": entry.get_json()["id"],
        "kind": "complaint", "started_at": iso(now - timedelta(hours=1)), "disturbance_observed": True,
        "checklist": {"template": "esc", "items": [{"key": i["key"], "answer": "ok"} for i in DEFAULT_ITEMS]}},
        headers=cast.sup)
    assert r.status_code == 201, r.get_json()
    r = client.post(f"/api/v1/inspections/{inspection_id}/submit", json={}, headers=cast.sup)
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def test_disturbance_seen_while_cease_and_desist_is_open_raises_a_violation_finding(client, cast, permit):
    issued = (datetime.now(timezone.utc) - timedelta(days=3)).date().isoformat()
    r = client.post("/api/v1/orders", json={
        "permit_id": permit.id, "kinds": ["cease_and_desist"], "issued_on": issued, "deadline": issued,
        "requirements": [{"kind": "cease_and_desist", "text": "Stop all land-disturbing activity"}]}, headers=cast.sup)
    assert r.status_code == 201, r.get_json()
    submitted = _inspection_with_disturbance(client, cast, permit.id)
    kinds = {f["kind"]: f for f in submitted["findings"]}
    assert "cease_and_desist_violation" in kinds, submitted["findings"]
    finding = kinds["cease_and_desist_violation"]
    assert r.get_json()["number"] in finding["description"] and finding["severity"] == "critical"


# --- security before the start (R-D1) ----------------------------------------------------------------
def test_security_required_before_the_start(client, cast, permit, town_clock):
    r = client.put(f"/api/v1/permits/{permit.id}/security-requirement", json={"amount": "5000.00"}, headers=cast.app)
    assert r.status_code == 403
    r = client.put(f"/api/v1/permits/{permit.id}/security-requirement", json={"amount": "5000.00"}, headers=cast.sup)
    assert r.status_code == 200 and r.get_json()["security_required_amount"] == "5000.00"
    assert r.get_json()["security_posted"] == "0.00"
    r = move(client, cast.app, permit.id, "active")
    assert r.status_code == 409 and r.get_json()["error"] == "security_required"
    assert "$5,000.00" in r.get_json()["message"]
    bond = client.post("/api/v1/bonds", json={"permit_id": permit.id, "form": "cash", "amount": "5000.00"},
                       headers=cast.sup).get_json()
    assert move(client, cast.app, permit.id, "active").get_json()["error"] == "security_required"  # not received
    r = client.patch(f"/api/v1/bonds/{bond['id']}", json={"received_on": "2026-05-04", "version": bond["version"]},
                     headers=cast.sup)
    assert r.status_code == 200, r.get_json()
    r = move(client, cast.app, permit.id, "active", on="2026-05-04")
    assert r.status_code == 200 and r.get_json()["security_posted"] == "5000.00"


# --- lapsed exemptions after approval (R-A6) --------------------------------------------------------
def test_a_lapsed_exemption_after_approval_needs_a_review_again(client, factory, cast, town_clock):
    from inspect_api.permits import services
    permit = factory.permit(cast.applicant, disturbed_area_sqft=12000)
    db.session.add(PermitExemption(permit_id=permit.id, kind="B5", document_number="SE 023-1234",
                                   issued_on=date(2025, 5, 1), expires_on=date(2026, 5, 10),
                                   document_photo_id="scan-1", status="accepted"))
    db.session.flush()
    services.recompute_determination(permit)
    permit.status = "approved"
    db.session.commit()
    town_clock.set(date(2026, 5, 10))                        # last valid day: still exempt
    shown = client.get(f"/api/v1/permits/{permit.id}", headers=cast.app).get_json()
    assert shown["review_level"] == "exempt" and shown["approval_lapsed"] is False and shown["number"] is None
    town_clock.set(date(2026, 5, 11))                        # the order of conditions expired: lapse
    shown = client.get(f"/api/v1/permits/{permit.id}", headers=cast.app).get_json()
    assert shown["review_level"] == "administrative_review" and shown["approval_lapsed"] is True
    r = move(client, cast.app, permit.id, "active")
    assert r.status_code == 409 and r.get_json()["error"] == "approval_lapsed"
    deadlines = client.get("/api/v1/deadlines?before=2026-06-01", headers=cast.sup).get_json()
    lapsed = [d for d in deadlines if d["kind"] == "approval_lapsed"]
    assert [(d["record_id"], d["due_on"], d["overdue"]) for d in lapsed] == [(permit.id, "2026-05-11", False)]


# --- one project, one review level (R-A7) ---------------------------------------------------------
def test_two_phases_of_one_subdivision_are_one_project(client, factory, cast):
    site = {"address": "Phase 1, Oxford Village", "parcel_id": "10-200", "location": {"lat": 41.64, "lon": -70.9}}
    one = client.post("/api/v1/permits", json=factory.permit_payload(site=site, disturbed_area_sqft=4000),
                      headers=cast.app).get_json()
    two = client.post("/api/v1/permits", json=factory.permit_payload(
        site={**site, "address": "Phase 2, Oxford Village"}, disturbed_area_sqft=4000), headers=cast.app).get_json()
    assert one["review_level"] == two["review_level"] == "not_covered"        # 4,000 < 5,000 each (R-A1)
    assert one["parcel_flag"] == []                                            # alone on the parcel when filed
    assert two["parcel_flag"] == [one["id"]]
    assert client.get(f"/api/v1/permits/{one['id']}", headers=cast.sup).get_json()["parcel_flag"] == [two["id"]]
    r = client.post(f"/api/v1/permits/{two['id']}/project", json={"link_to": one["id"]}, headers=cast.app)
    assert r.status_code == 403
    r = client.post(f"/api/v1/permits/{two['id']}/project", json={"link_to": one["id"]}, headers=cast.sup)
    assert r.status_code == 200, r.get_json()
    linked = r.get_json()
    # 4,000 + 4,000 = 8,000 sq ft for the single project: 5,000 <= 8,000 <= 20,000 (R-A2).
    assert linked["review_level"] == "administrative_review" and linked["project_id"] == one["id"]
    assert linked["determination"]["inputs"]["project_disturbed_area_sqft"] == 8000
    assert linked["parcel_flag"] == []
    first = client.get(f"/api/v1/permits/{one['id']}", headers=cast.app).get_json()
    assert first["review_level"] == "administrative_review" and first["parcel_flag"] == []
    # A revised plan for phase 1 (4,000 -> 17,000 sq ft): 21,000 > 20,000 for the project, a permit for both (R-A3).
    r = client.patch(f"/api/v1/permits/{one['id']}", json={"disturbed_area_sqft": 17000, "version": first["version"]},
                     headers=cast.app)
    assert r.status_code == 200 and r.get_json()["review_level"] == "land_disturbance_permit"
    second = client.get(f"/api/v1/permits/{two['id']}", headers=cast.app).get_json()
    assert second["review_level"] == "land_disturbance_permit"
    assert second["determination"]["inputs"]["project_disturbed_area_sqft"] == 21000


def test_a_separate_project_on_the_same_parcel_is_confirmed(client, factory, cast):
    site = {"address": "1 Mill Rd", "parcel_id": "10-300", "location": {"lat": 41.64, "lon": -70.9}}
    one = client.post("/api/v1/permits", json=factory.permit_payload(site=site), headers=cast.app).get_json()
    two = client.post("/api/v1/permits", json=factory.permit_payload(site=site), headers=cast.other).get_json()
    assert two["parcel_flag"] == ["other"]  # another applicant's: that one exists, not which
    assert client.get(f"/api/v1/permits/{two['id']}", headers=cast.sup).get_json()["parcel_flag"] == [one["id"]]
    r = client.post(f"/api/v1/permits/{two['id']}/project", json={"separate": True}, headers=cast.sup)
    assert r.status_code == 200 and r.get_json()["parcel_flag"] == [] and r.get_json()["project_id"] is None
    r = client.post(f"/api/v1/permits/{two['id']}/project", json={}, headers=cast.sup)
    assert r.status_code == 422 and "link_to" in r.get_json()["errors"]


# --- agents issue orders where the Town allows it (R-O1) --------------------------------------------
@pytest.mark.parametrize("allowed", [False, True])
def test_inspectors_issue_orders_only_where_the_town_allows(app, client, factory, cast, permit, monkeypatch,
                                                            town_clock, allowed):
    monkeypatch.setitem(app.config, "ORDERS_BY_AGENTS", allowed)
    body = {"permit_id": permit.id, "kinds": ["controls"], "deadline": "2026-05-09",
            "requirements": [{"kind": "controls", "text": "Re-install silt fence"}]}
    r = client.post("/api/v1/orders", json=body, headers=cast.insp)
    assert r.status_code == 403                               # not assigned (or not allowed)
    factory.assign(permit, cast.inspector)
    r = client.post("/api/v1/orders", json=body, headers=cast.insp)
    if not allowed:
        assert r.status_code == 403 and "supervisors" in r.get_json()["message"]
        return
    assert r.status_code == 201, r.get_json()
    assert r.get_json()["issued_by"] == cast.inspector.id
    assert r.get_json()["issuer_title"] == "Agent of the Stormwater Authority"
    # Changing an order's status stays with supervisors.
    r = client.post(f"/api/v1/orders/{r.get_json()['id']}/status", json={"to": "closed"}, headers=cast.insp)
    assert r.status_code == 403
