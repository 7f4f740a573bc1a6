"""GET /audit (supervisors) and POST /determinations (any signed-in user)."""
import pytest

from .conftest import assert_error


def test_audit_newest_first_with_changes(client, factory, supervisor):
    sup, headers = supervisor
    owner, owner_h = factory.as_role("applicant")
    permit = factory.permit(owner)
    client.patch(f"/api/v1/permits/{permit.id}", json={"version": 1, "disturbed_area_sqft": 30000}, headers=owner_h)
    client.post(f"/api/v1/permits/{permit.id}/conditions", json={"text": "Silt fence"}, headers=headers)
    rows = client.get(f"/api/v1/audit?record_id={permit.id}", headers=headers).get_json()
    assert [r["action"] for r in rows] == ["permit.update", "permit.create"]
    assert rows[0]["changes"]["disturbed_area_sqft"] == [12000, 30000]
    assert rows[0]["changes"]["review_level"] == ["administrative_review", "land_disturbance_permit"]
    assert rows[0]["actor_id"] == owner.id and rows[0]["at"] >= rows[1]["at"]
    by_permit = client.get(f"/api/v1/audit?permit_id={permit.id}", headers=headers).get_json()
    assert by_permit[0]["action"] == "condition.create" and by_permit[0]["actor_id"] == sup.id
    assert len(by_permit) == 3


def test_audit_is_for_supervisors(client, factory):
    permit = factory.permit()
    for role in ("applicant", "inspector", "admin"):
        _, headers = factory.as_role(role)
        assert_error(client.get(f"/api/v1/audit?record_id={permit.id}", headers=headers), 403, "forbidden")
    _, headers = factory.as_role("supervisor")
    assert_error(client.get("/api/v1/audit", headers=headers), 422, "validation_error", field="record_id")


@pytest.mark.parametrize("role", ["applicant", "inspector", "supervisor", "admin"])
def test_determination_for_any_user(client, factory, role):
    _, headers = factory.as_role(role)
    r = client.post("/api/v1/determinations", headers=headers, json={
        "disturbed_area_sqft": 12000, "drains_to_ms4": True, "drains_to_waters": False, "luhppl_kind": None,
        "exemptions": [{"kind": "B5", "document_valid": True}]})
    assert r.status_code == 200
    body = r.get_json()
    assert body["review_level"] == "exempt" and body["rules"] == ["R-A1", "R-B2"]
    assert "B5" in body["explanation"] and set(body) >= {"review_level", "rules", "explanation"}


@pytest.mark.parametrize("area, level, fired", [(4999, "not_covered", ["R-A1"]),
                                                (5000, "administrative_review", ["R-A1", "R-A2"]),
                                                (20000, "administrative_review", ["R-A1", "R-A2"]),
                                                (20001, "land_disturbance_permit", ["R-A1", "R-A3"])])
def test_determination_edges(client, factory, area, level, fired):
    _, headers = factory.as_role("applicant")
    body = client.post("/api/v1/determinations", headers=headers, json={
        "disturbed_area_sqft": area, "drains_to_ms4": False, "drains_to_waters": True}).get_json()
    assert (body["review_level"], body["rules"]) == (level, fired)


@pytest.mark.parametrize("change, field", [({"disturbed_area_sqft": -5}, "disturbed_area_sqft"),
                                           ({"disturbed_area_sqft": "big"}, "disturbed_area_sqft"),
                                           ({"disturbed_area_sqft": None}, "disturbed_area_sqft"),
                                           ({"luhppl_kind": "other"}, "luhppl_description"),
                                           ({"exemptions": [{"kind": "B9"}]}, "exemptions")])
def test_determination_validation(client, factory, change, field):
    _, headers = factory.as_role("applicant")
    body = {"disturbed_area_sqft": 9000, "drains_to_ms4": True, "drains_to_waters": False, **change}
    assert_error(client.post("/api/v1/determinations", json=body, headers=headers), 422, "validation_error",
                 field=field)


def test_determination_needs_sign_in(client):
    r = client.post("/api/v1/determinations", json={"disturbed_area_sqft": 1, "drains_to_ms4": True,
                                                    "drains_to_waters": True})
    assert_error(r, 401, "unauthorized")
