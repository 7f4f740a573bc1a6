"""Storm events and inspection requests reach devices through sync pull (so the day list works offline):
storms to every inspector and supervisor, requests to the site's assigned inspector and its applicant only."""
from __future__ import annotations

import uuid
from datetime import time, timedelta

from .conftest import API, DAY0, new_id, town


def pull(client, headers) -> list[dict]:
    changes, cursor = [], None
    for _ in range(20):
        r = client.get(f"{API}/sync/pull", query_string={"limit": 500, **({"cursor": cursor} if cursor else {})},
                       headers=headers)
        assert r.status_code == 200, r.get_json()
        body = r.get_json()
        changes += body["changes"]
        cursor = body["cursor"]
        if not body["has_more"]:
            return changes
    raise AssertionError("pull never ended")


def of(changes, entity):
    return {c["id"]: c for c in changes if c["entity"] == entity}


def test_storms_and_requests_come_down_to_the_right_devices_with_dates_not_verdicts(site, client, factory, town_clock):
    site.commence(DAY0)
    storm = site.storm(town(DAY0 + timedelta(days=1), 23, 59), "0.25").get_json()
    town_clock.set(DAY0 + timedelta(days=2), time(8, 0))
    request = client.post(f"{API}/inspection-requests", json={
        "id": new_id(), "permit_id": site.permit.id, "kind": "re_inspection",
        "preferred_dates": ["2026-05-07"], "note": "Fence fixed"}, headers=site.applicant_h).get_json()
    other_inspector, other_h = factory.as_role("inspector")

    mine = pull(client, site.inspector_h)
    storms = of(mine, "storm_event")
    assert storms[storm["id"]]["data"]["ended_at"] == "2026-05-06T03:59:00+00:00"
    assert storms[storm["id"]]["data"]["inches"] == "0.25"
    # Nothing that depends on today is frozen into the synced copy: the device decides what is overdue.
    assert "overdue" not in storms[storm["id"]]["data"]
    requests = of(mine, "inspection_request")
    assert requests[request["id"]]["data"]["preferred_dates"] == ["2026-05-07"]
    assert requests[request["id"]]["data"]["permit_id"] == site.permit.id

    theirs = pull(client, other_h)
    assert storm["id"] in of(theirs, "storm_event") and request["id"] not in of(theirs, "inspection_request")
    applicant = pull(client, site.applicant_h)
    assert request["id"] in of(applicant, "inspection_request")
    stranger, stranger_h = factory.as_role("applicant")
    assert of(pull(client, stranger_h), "inspection_request") == {}


def _push(client, factory, user, mutations):
    device = f"phone-{uuid.uuid4().hex[:8]}"
    r = client.post(f"{API}/sync/push", json={"device_id": device, "mutations": mutations},
                    headers=factory.headers(user, device_id=device))
    assert r.status_code == 200, r.get_json()
    return r.get_json()["results"]


def test_an_applicants_device_pushes_a_request_once_and_no_one_else_can(site, client, factory, town_clock):
    site.commence(DAY0)
    record_id = new_id()
    mutation = {"mutation_id": new_id(), "entity": "inspection_request", "id": record_id, "op": "upsert",
                "base_version": None, "data": {"permit_id": site.permit.id, "kind": "final",
                                               "preferred_dates": ["2026-05-06"], "note": "All stabilized",
                                               "device_created_at": "2026-05-04T11:58:00Z"}}
    first = _push(client, factory, site.applicant, [mutation])
    assert first[0]["status"] == "applied", first
    again = _push(client, factory, site.applicant, [{**mutation, "mutation_id": new_id()}])
    assert again[0]["status"] == "duplicate", again
    stored = client.get(f"{API}/inspection-requests/{record_id}", headers=site.applicant_h).get_json()
    assert (stored["kind"], stored["preferred_dates"], stored["device_created_at"]) == (
        "final", ["2026-05-06"], "2026-05-04T11:58:00+00:00")
    stranger, _h = factory.as_role("applicant")
    theirs = _push(client, factory, stranger, [{**mutation, "mutation_id": new_id(), "id": new_id()}])
    assert theirs[0]["status"] == "rejected" and theirs[0]["error"] == "not_found", theirs
    edit = _push(client, factory, site.applicant, [{**mutation, "mutation_id": new_id(), "base_version": 1,
                                                     "data": {"note": "changed"}}])
    assert edit[0]["status"] == "rejected", edit
