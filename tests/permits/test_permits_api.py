"""POST/GET/PATCH /permits: shape, idempotency, validation, versions, edit rules (R-C1, R-A5)."""
import uuid

import pytest

from .conftest import assert_error, square


def test_applicant_files_a_draft(client, factory, applicant):
    user, headers = applicant
    payload = factory.permit_payload(site={"address": "40 Center Street, Fairhaven, MA 02719", "parcel_id": "20-117",
                                           "location": {"lat": 41.6365, "lon": -70.9042}, "limit_of_work": square()})
    r = client.post("/api/v1/permits", json=payload, headers=headers)
    body = r.get_json()
    assert r.status_code == 201, body
    assert body["status"] == "draft" and body["number"] is None and body["version"] == 1
    assert body["applicant_id"] == user.id and body["created_by"] == user.id
    assert body["site"] == {"address": "40 Center Street, Fairhaven, MA 02719", "parcel_id": "20-117",
                            "location": {"lat": 41.6365, "lon": -70.9042}, "limit_of_work": square()}
    assert body["owner"] == {"name": "Pat Owner", "email": "owner@example.org", "phone": "508-555-0100",
                             "contact_withheld": False}
    assert body["review_level"] == "administrative_review"
    assert body["determination"]["review_level"] == "administrative_review"
    assert body["determination"]["rules"] == ["R-A1", "R-A2"]
    assert body["determination"]["inputs"]["disturbed_area_sqft"] == 12000
    for key in ("conditions", "phases", "documents", "exemptions", "assigned_inspector_ids", "former_numbers"):
        assert body[key] == []
    assert body["cease_and_desist"] is False
    assert body["created_at"].endswith("+00:00") and body["updated_at"]


def test_create_is_idempotent_on_client_id(client, factory, applicant):
    _, headers = applicant
    payload = factory.permit_payload(id=str(uuid.uuid4()))
    first = client.post("/api/v1/permits", json=payload, headers=headers)
    again = client.post("/api/v1/permits", json=payload, headers=headers)
    assert first.status_code == 201 and again.status_code == 200
    assert again.get_json()["id"] == payload["id"] and again.get_json()["version"] == 1
    other = client.post("/api/v1/permits", json={**payload, "disturbed_area_sqft": 30000}, headers=headers)
    assert_error(other, 409, "conflict")


@pytest.mark.parametrize("change, field", [
    ({"disturbed_area_sqft": -1}, "disturbed_area_sqft"),
    ({"disturbed_area_sqft": "lots"}, "disturbed_area_sqft"),
    ({"drains_to_ms4": "perhaps"}, "drains_to_ms4"),
    ({"luhppl_kind": "casino"}, "luhppl_kind"),
    ({"luhppl_kind": "other"}, "luhppl_description"),
    ({"site": {"address": "1 Main St", "location": {"lat": 91, "lon": -70.9}}}, "site"),
    ({"site": {"address": "1 Main St", "location": {"lat": 41.6, "lon": -181}}}, "site"),
    ({"site": {"address": "1 Main St", "location": {"lat": 41.6, "lon": -70.9},
               "limit_of_work": {"type": "Point", "coordinates": [-70.9, 41.6]}}}, "site"),
    ({"site": {"address": "1 Main St", "location": {"lat": 41.6, "lon": -70.9},   # bow-tie: self-intersecting
               "limit_of_work": {"type": "Polygon", "coordinates": [[[0, 0], [1, 1], [1, 0], [0, 1], [0, 0]]]}}}, "site"),
    ({"site": {"address": "1 Main St", "location": {"lat": 41.6, "lon": -70.9},   # ring not closed
               "limit_of_work": {"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 1]]]}}}, "site"),
    ({"owner": {"email": "x@example.org"}}, "owner"),
    ({"unexpected": 1}, "unexpected"),
])
def test_create_validation(client, factory, applicant, change, field):
    _, headers = applicant
    r = client.post("/api/v1/permits", json=factory.permit_payload(**change), headers=headers)
    assert_error(r, 422, "validation_error", field=field)


def test_polygon_message_says_what_is_wrong(client, factory, applicant):
    _, headers = applicant
    site = {"address": "1 Main St", "location": {"lat": 41.6, "lon": -70.9},
            "limit_of_work": {"type": "Polygon", "coordinates": [[[0, 0], [1, 1], [1, 0], [0, 1], [0, 0]]]}}
    body = assert_error(client.post("/api/v1/permits", json=factory.permit_payload(site=site), headers=headers),
                        422, "validation_error")
    assert "Self-intersection" in str(body["errors"]["site"]["limit_of_work"])


def test_luhppl_other_with_description(client, factory, applicant):
    _, headers = applicant
    r = client.post("/api/v1/permits", headers=headers, json=factory.permit_payload(
        disturbed_area_sqft=6000, luhppl_kind="other", luhppl_description="Scrap metal yard"))
    assert r.status_code == 201
    assert r.get_json()["review_level"] == "land_disturbance_permit"
    assert r.get_json()["determination"]["rules"] == ["R-A1", "R-A4"]


@pytest.mark.parametrize("role", ["inspector", "admin"])
def test_only_applicants_and_supervisors_file(client, factory, role):
    _, headers = factory.as_role(role)
    assert_error(client.post("/api/v1/permits", json=factory.permit_payload(), headers=headers), 403, "forbidden")


def test_supervisor_files_for_an_applicant(client, factory, supervisor):
    sup, headers = supervisor
    applicant = factory.user("applicant")
    # Without an applicant a supervisor opens an enforcement case (R-O0), which must name the violator.
    missing = client.post("/api/v1/permits", json=factory.permit_payload(), headers=headers)
    assert_error(missing, 422, "validation_error", field="parties")
    wrong = client.post("/api/v1/permits", json=factory.permit_payload(applicant_id=sup.id), headers=headers)
    assert_error(wrong, 422, "validation_error", field="applicant_id")
    r = client.post("/api/v1/permits", json=factory.permit_payload(applicant_id=applicant.id), headers=headers)
    assert r.status_code == 201
    assert r.get_json()["applicant_id"] == applicant.id and r.get_json()["created_by"] == sup.id


def test_applicant_cannot_file_for_someone_else(client, factory, applicant):
    _, headers = applicant
    other = factory.user("applicant")
    r = client.post("/api/v1/permits", json=factory.permit_payload(applicant_id=other.id), headers=headers)
    assert_error(r, 403, "forbidden")


def test_get_one(client, factory, applicant):
    user, headers = applicant
    permit = factory.permit(user)
    r = client.get(f"/api/v1/permits/{permit.id}", headers=headers)
    assert r.status_code == 200 and r.get_json()["id"] == permit.id
    assert_error(client.get(f"/api/v1/permits/{uuid.uuid4()}", headers=headers), 404, "not_found")


def test_list_filters_and_paging(client, factory, supervisor):
    _, headers = supervisor
    inspector = factory.user("inspector")
    a = factory.permit(status="draft", site={"address": "12 Bridge Street", "location": {"lat": 41.63, "lon": -70.9}})
    b = factory.permit(status="under_review")
    c = factory.permit(status="issued", disturbed_area_sqft=40000)
    factory.assign(c, inspector)
    r = client.get("/api/v1/permits", headers=headers)
    assert r.status_code == 200 and r.headers["X-Total-Count"] == "3"
    assert [p["id"] for p in r.get_json()] == [c.id, b.id, a.id]  # newest first
    r = client.get("/api/v1/permits?status=draft,issued", headers=headers)
    assert {p["id"] for p in r.get_json()} == {a.id, c.id}
    r = client.get("/api/v1/permits?q=bridge", headers=headers)
    assert [p["id"] for p in r.get_json()] == [a.id]
    r = client.get(f"/api/v1/permits?q={c.number.lower()}", headers=headers)
    assert [p["id"] for p in r.get_json()] == [c.id]
    r = client.get("/api/v1/permits?q=100%25", headers=headers)
    assert r.get_json() == []
    r = client.get("/api/v1/permits?limit=1&offset=1", headers=headers)
    assert [p["id"] for p in r.get_json()] == [b.id] and r.headers["X-Total-Count"] == "3"
    r = client.get("/api/v1/permits?assigned_to=me", headers=factory.headers(inspector))
    assert [p["id"] for p in r.get_json()] == [c.id]
    assert r.get_json()[0]["assigned_inspector_ids"] == [inspector.id]
    assert_error(client.get("/api/v1/permits?status=pending", headers=headers), 422, "validation_error", field="status")
    assert_error(client.get("/api/v1/permits?limit=0", headers=headers), 422, "validation_error", field="limit")


def test_patch_with_if_match_and_body_version(client, factory, applicant):
    user, headers = applicant
    permit = factory.permit(user)
    r = client.patch(f"/api/v1/permits/{permit.id}", json={"description": "Garage too"},
                     headers={**headers, "If-Match": '"1"'})
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["description"] == "Garage too" and r.get_json()["version"] == 2
    r = client.patch(f"/api/v1/permits/{permit.id}", json={"version": 2, "owner": {"phone": "508-555-0199"}},
                     headers=headers)
    assert r.status_code == 200 and r.get_json()["version"] == 3
    assert r.get_json()["owner"] == {"name": "Pat Owner", "email": "owner@example.org", "phone": "508-555-0199",
                                     "contact_withheld": False}


def test_patch_stale_version_conflict_carries_current(client, factory, applicant):
    user, headers = applicant
    permit = factory.permit(user)
    client.patch(f"/api/v1/permits/{permit.id}", json={"version": 1, "description": "first"}, headers=headers)
    body = assert_error(client.patch(f"/api/v1/permits/{permit.id}", json={"version": 1, "description": "second"},
                                     headers=headers), 409, "version_conflict")
    assert body["errors"]["current"]["version"] == 2 and body["errors"]["current"]["description"] == "first"


def test_patch_needs_a_version(client, factory, applicant):
    user, headers = applicant
    permit = factory.permit(user)
    assert_error(client.patch(f"/api/v1/permits/{permit.id}", json={"description": "x"}, headers=headers),
                 428, "precondition_required")


def test_area_growth_recomputes_determination_r_a5(client, factory, applicant):
    user, headers = applicant
    permit = factory.permit(user, disturbed_area_sqft=12000)
    r = client.patch(f"/api/v1/permits/{permit.id}", json={"version": 1, "disturbed_area_sqft": 20001}, headers=headers)
    body = r.get_json()
    assert r.status_code == 200
    assert body["review_level"] == "land_disturbance_permit" and body["determination"]["rules"] == ["R-A1", "R-A3"]
    assert body["determination"]["inputs"]["disturbed_area_sqft"] == 20001


def test_applicant_edits_drafts_only(client, factory, applicant):
    user, headers = applicant
    permit = factory.permit(user, status="submitted")
    body = assert_error(client.patch(f"/api/v1/permits/{permit.id}", json={"version": permit.version,
                                                                           "description": "x"}, headers=headers),
                        409, "permit_locked")
    assert "submitted" in body["message"]


def test_supervisor_revises_plan_under_review_and_number_follows_level(client, factory, supervisor):
    _, headers = supervisor
    permit = factory.permit(status="under_review", disturbed_area_sqft=15000)
    old_number = permit.number
    assert old_number.startswith("ALDR-")
    r = client.patch(f"/api/v1/permits/{permit.id}", json={"version": permit.version, "disturbed_area_sqft": 25000},
                     headers=headers)
    body = r.get_json()
    assert r.status_code == 200, body
    assert body["review_level"] == "land_disturbance_permit"
    assert body["number"].startswith("LDP-") and body["former_numbers"] == [old_number]


def test_supervisor_cannot_edit_a_decided_permit(client, factory, supervisor):
    _, headers = supervisor
    permit = factory.permit(status="approved")
    assert_error(client.patch(f"/api/v1/permits/{permit.id}", json={"version": permit.version, "description": "x"},
                              headers=headers), 409, "permit_locked")


def test_inspector_cannot_edit(client, factory, inspector):
    _, headers = inspector
    permit = factory.permit()
    assert_error(client.patch(f"/api/v1/permits/{permit.id}", json={"version": 1, "description": "x"},
                              headers=headers), 403, "forbidden")
