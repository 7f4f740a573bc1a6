"""A withdrawn or denied part leaves the project's total (bylaw §A "as part of a single project";
R-A7, R-A5): the others' determinations are recomputed at once, through the API."""
from __future__ import annotations

import pytest


def _move(client, headers, permit_id, to, **extra):
    return client.post(f"/api/v1/permits/{permit_id}/transitions", json={"to": to, **extra}, headers=headers)


def _two_linked_parts(client, factory, app_h, sup_h, area=3000):
    site = {"address": "Lot 1, Oxford Village", "parcel_id": "10-400", "location": {"lat": 41.64, "lon": -70.9}}
    one = client.post("/api/v1/permits", json=factory.permit_payload(site=site, disturbed_area_sqft=area),
                      headers=app_h).get_json()
    two = client.post("/api/v1/permits", json=factory.permit_payload(
        site={**site, "address": "Lot 2, Oxford Village"}, disturbed_area_sqft=area), headers=app_h).get_json()
    r = client.post(f"/api/v1/permits/{two['id']}/project", json={"link_to": one["id"]}, headers=sup_h)
    assert r.status_code == 200, r.get_json()
    return one, two


def _level(client, headers, permit_id):
    shown = client.get(f"/api/v1/permits/{permit_id}", headers=headers).get_json()
    return shown["review_level"], shown["determination"]["inputs"].get("project_disturbed_area_sqft"), shown


@pytest.mark.parametrize("ending", ["withdrawn", "denied"])
def test_a_part_that_ends_leaves_the_project_total(client, factory, supervisor, ending):
    _, sup_h = supervisor
    owner, app_h = factory.as_role("applicant")
    one, two = _two_linked_parts(client, factory, app_h, sup_h)
    # 3,000 + 3,000 = 6,000 sq ft for the single project: 5,000 <= 6,000 <= 20,000 (R-A2).
    assert _level(client, app_h, one["id"])[:2] == ("administrative_review", 6000)
    assert _level(client, app_h, two["id"])[:2] == ("administrative_review", 6000)
    if ending == "withdrawn":
        r = _move(client, app_h, one["id"], "withdrawn", reason="Lot 1 sold")
    else:
        assert _move(client, app_h, one["id"], "submitted").status_code == 200
        assert _move(client, sup_h, one["id"], "under_review").status_code == 200
        r = _move(client, sup_h, one["id"], "denied", reason="Drainage not shown")
    assert r.status_code == 200 and r.get_json()["status"] == ending
    # What is left of the project is Lot 2's 3,000 sq ft, under the 5,000 sq ft threshold (R-A1).
    level, total, shown = _level(client, app_h, two["id"])
    assert (level, total) == ("not_covered", 3000)
    assert shown["determination"]["rules"] == ["R-A1"] and "under the 5,000 sq ft threshold" in \
        shown["determination"]["explanation"]
    assert shown["version"] > two["version"] + 1                             # linked (+1), then recomputed (+1)
    audit = client.get(f"/api/v1/audit?record_id={two['id']}", headers=sup_h).get_json()
    assert audit[0]["action"] == "permit.determination"
    assert audit[0]["changes"]["review_level"] == ["administrative_review", "not_covered"]
    assert ending in audit[0]["changes"]["reason"] and "R-A7" in audit[0]["changes"]["reason"]
    # Lot 2 is no longer covered, so there is nothing to submit (R-A1).
    r = _move(client, app_h, two["id"], "submitted")
    assert r.status_code == 409 and r.get_json()["error"] == "invalid_transition"


def test_a_part_that_ends_leaves_a_project_still_covered_by_the_rest(client, factory, supervisor):
    """Three linked parts of 3,000 sq ft: one withdrawn leaves 6,000 sq ft, still an administrative review
    for the other two, each now counted on 6,000."""
    _, sup_h = supervisor
    owner, app_h = factory.as_role("applicant")
    one, two = _two_linked_parts(client, factory, app_h, sup_h)
    three = client.post("/api/v1/permits", json=factory.permit_payload(disturbed_area_sqft=3000), headers=app_h).get_json()
    assert client.post(f"/api/v1/permits/{three['id']}/project", json={"link_to": one["id"]},
                       headers=sup_h).status_code == 200
    assert _level(client, app_h, two["id"])[:2] == ("administrative_review", 9000)
    assert _move(client, app_h, one["id"], "withdrawn").status_code == 200
    assert _level(client, app_h, two["id"])[:2] == ("administrative_review", 6000)
    assert _level(client, app_h, three["id"])[:2] == ("administrative_review", 6000)
