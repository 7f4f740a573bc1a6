"""Conditions (R-C3), phases, documents and inspector assignments."""
from datetime import timedelta

from inspect_api.clock import today as local_today

from .conftest import assert_error


def test_conditions_are_numbered_and_reworded_by_supervisors(client, factory, supervisor):
    _, headers = supervisor
    owner, owner_h = factory.as_role("applicant")
    permit = factory.permit(owner, status="approved")
    url = f"/api/v1/permits/{permit.id}/conditions"
    first = client.post(url, json={"text": "Install silt fence before grading."}, headers=headers)
    second = client.post(url, json={"text": "Sweep Main Street daily."}, headers=headers)
    assert first.status_code == 201 and second.status_code == 201
    assert (first.get_json()["number"], second.get_json()["number"]) == (1, 2)
    cid = second.get_json()["id"]
    r = client.patch(f"{url}/{cid}", json={"version": 1, "text": "Sweep Main Street twice daily."}, headers=headers)
    assert r.status_code == 200 and r.get_json()["number"] == 2 and r.get_json()["version"] == 2
    assert_error(client.patch(f"{url}/{cid}", json={"version": 1, "text": "x"}, headers=headers), 409,
                 "version_conflict")
    listed = client.get(url, headers=owner_h).get_json()
    assert [(c["number"], c["text"]) for c in listed] == [(1, "Install silt fence before grading."),
                                                          (2, "Sweep Main Street twice daily.")]
    assert [c["number"] for c in client.get(f"/api/v1/permits/{permit.id}", headers=owner_h).get_json()["conditions"]] == [1, 2]
    assert_error(client.post(url, json={"text": "mine"}, headers=owner_h), 403, "forbidden")
    assert_error(client.post(url, json={"text": ""}, headers=headers), 422, "validation_error", field="text")


def test_conditions_locked_after_close(client, factory, supervisor):
    _, headers = supervisor
    permit = factory.permit(status="closed")
    assert_error(client.post(f"/api/v1/permits/{permit.id}/conditions", json={"text": "late"}, headers=headers),
                 409, "permit_locked")


def test_phases_applicant_in_draft_then_supervisor_records_completion(client, factory, supervisor):
    _, sup_h = supervisor
    owner, owner_h = factory.as_role("applicant")
    permit = factory.permit(owner, disturbed_area_sqft=30000)
    url = f"/api/v1/permits/{permit.id}/phases"
    r = client.post(url, json={"name": "Clearing and grading", "bond_amount": "12500.00"}, headers=owner_h)
    assert r.status_code == 201, r.get_json()
    phase = r.get_json()
    assert (phase["number"], phase["bond_amount"], phase["status"], phase["completed_in_compliance"]) == (
        1, "12500.00", "pending", False)
    assert client.post(url, json={"name": "Foundations"}, headers=owner_h).get_json()["number"] == 2
    from inspect_api.permits import services
    services.force_status(permit, "active")
    from inspect_api.extensions import db
    db.session.commit()
    assert_error(client.post(url, json={"name": "Paving"}, headers=owner_h), 409, "permit_locked")
    done = client.post(f"{url}/{phase['id']}/completion", headers=sup_h,
                       json={"completed_on": local_today().isoformat(), "in_compliance": True, "notes": "Stable"})
    assert done.status_code == 200, done.get_json()
    assert (done.get_json()["status"], done.get_json()["completed_in_compliance"]) == ("complete", True)
    again = client.post(f"{url}/{phase['id']}/completion", headers=sup_h,
                        json={"completed_on": local_today().isoformat(), "in_compliance": True})
    assert_error(again, 409, "phase_complete")
    future = client.post(f"{url}/{client.get(url, headers=sup_h).get_json()[1]['id']}/completion", headers=sup_h,
                         json={"completed_on": (local_today() + timedelta(days=2)).isoformat(), "in_compliance": True})
    assert_error(future, 422, "validation_error", field="completed_on")
    assert_error(client.post(f"{url}/{phase['id']}/completion", headers=owner_h,
                             json={"completed_on": local_today().isoformat(), "in_compliance": True}), 403, "forbidden")


def test_phase_completion_needs_work_under_way(client, factory, supervisor):
    _, headers = supervisor
    permit = factory.permit(status="approved")
    phase = client.post(f"/api/v1/permits/{permit.id}/phases", json={"name": "All"}, headers=headers).get_json()
    r = client.post(f"/api/v1/permits/{permit.id}/phases/{phase['id']}/completion", headers=headers,
                    json={"completed_on": local_today().isoformat(), "in_compliance": False})
    assert_error(r, 409, "invalid_state")


def test_phase_patch(client, factory, supervisor):
    _, headers = supervisor
    permit = factory.permit(status="issued", disturbed_area_sqft=30000)
    phase = client.post(f"/api/v1/permits/{permit.id}/phases", json={"name": "One"}, headers=headers).get_json()
    r = client.patch(f"/api/v1/permits/{permit.id}/phases/{phase['id']}", headers={**headers, "If-Match": "1"},
                     json={"name": "Phase one", "bond_amount": "5000"})
    assert r.status_code == 200 and (r.get_json()["name"], r.get_json()["bond_amount"]) == ("Phase one", "5000.00")
    assert_error(client.post(f"/api/v1/permits/{permit.id}/phases", json={"name": "x", "bond_amount": "-1"},
                             headers=headers), 422, "validation_error", field="bond_amount")


def test_documents(client, factory):
    owner, headers = factory.as_role("applicant")
    permit = factory.permit(owner)
    url = f"/api/v1/permits/{permit.id}/documents"
    r = client.post(url, json={"kind": "esc_plan", "filename": "esc-plan-rev2.pdf", "title": "ESC plan rev 2"},
                    headers=headers)
    doc = r.get_json()
    assert r.status_code == 201 and (doc["kind"], doc["filename"], doc["file_id"]) == ("esc_plan", "esc-plan-rev2.pdf", None)
    assert client.get(f"{url}/{doc['id']}", headers=headers).get_json() == doc
    assert [d["id"] for d in client.get(url, headers=headers).get_json()] == [doc["id"]]
    assert_error(client.post(url, json={"kind": "esc_plan", "filename": "../etc/passwd"}, headers=headers),
                 422, "validation_error", field="filename")
    assert_error(client.post(url, json={"kind": "survey", "filename": "a.pdf"}, headers=headers),
                 422, "validation_error", field="kind")
    _, insp_h = factory.as_role("inspector")
    assert_error(client.post(url, json={"kind": "other", "filename": "a.pdf"}, headers=insp_h), 403, "forbidden")


def test_assignments(client, factory, supervisor):
    _, headers = supervisor
    inspector = factory.user("inspector")
    permit = factory.permit(status="issued", disturbed_area_sqft=30000)
    url = f"/api/v1/permits/{permit.id}/assignments"
    r = client.post(url, json={"inspector_id": inspector.id}, headers=headers)
    assert r.status_code == 201 and r.get_json()["inspector_id"] == inspector.id and r.get_json()["removed_at"] is None
    again = client.post(url, json={"inspector_id": inspector.id}, headers=headers)
    assert again.status_code == 200 and again.get_json()["id"] == r.get_json()["id"]
    assert [a["inspector_id"] for a in client.get(url, headers=headers).get_json()] == [inspector.id]
    assert client.get(f"/api/v1/permits/{permit.id}", headers=headers).get_json()["assigned_inspector_ids"] == [inspector.id]
    applicant = factory.user("applicant")
    assert_error(client.post(url, json={"inspector_id": applicant.id}, headers=headers), 422, "validation_error",
                 field="inspector_id")
    d = client.delete(f"{url}/{inspector.id}", headers=headers)
    assert d.status_code == 204 and d.data == b""
    assert client.get(url, headers=headers).get_json() == []
    history = client.get(f"{url}?include_removed=true", headers=headers).get_json()
    assert len(history) == 1 and history[0]["removed_at"] is not None
    assert_error(client.delete(f"{url}/{inspector.id}", headers=headers), 404, "not_found")
    _, insp_h = factory.as_role("inspector")
    assert_error(client.post(url, json={"inspector_id": inspector.id}, headers=insp_h), 403, "forbidden")


def test_unassignment_is_a_sync_change(app, factory):
    from inspect_api.changes import SyncChange
    from inspect_api.extensions import db
    from inspect_api.permits import services
    inspector, supervisor = factory.user("inspector"), factory.user("supervisor")
    permit = factory.permit(status="issued", disturbed_area_sqft=30000)
    assignment = services.assign_inspector(permit, inspector.id, supervisor)
    db.session.commit()
    services.unassign_inspector(permit, inspector.id, supervisor)
    db.session.commit()
    change = db.session.get(SyncChange, ("assignment", assignment.id))
    assert change.permit_id == permit.id and change.version == 2
