"""Inspections through the API: entry coverage (R-E2), idempotent creates, review and locking (R-I5)."""
import uuid
from datetime import timedelta

import pytest

from .conftest import API, T0, answers, iso


def test_create_draft(site, client):
    eid = site.entry_id()
    r = site.inspection(eid, device_created_at="2026-05-04T09:00:05-04:00")
    assert r.status_code == 201
    body = r.get_json()
    assert body["status"] == "draft" and body["version"] == 1 and body["findings"] == []
    assert body["entry_authorization_id"] == eid and body["inspector_id"] == site.inspector.id
    assert body["location"] == {"lat": 41.6376, "lon": -70.9036, "accuracy_m": 6.5}
    assert body["weather"] == {"conditions": "overcast", "temperature_f": 58.0, "rainfall_in_24h": 0.1}
    assert body["started_at"] == "2026-05-04T13:00:00+00:00" and body["device_created_at"] == "2026-05-04T13:00:05+00:00"
    assert body["checklist"]["template"] == "esc" and body["checklist"]["template_version"] == 1
    assert body["checklist"]["items"][0] == {"key": "limit_of_work_marked", "answer": "ok", "note": None,
                                             "photo_ids": [], "needs_new_control": None, "severity": None,
                                             "carried_over": False}
    assert body["checklist"]["carried_from_id"] is None
    assert body["unsafe_areas"] == ["open trench east side"] and body["warnings"] == []
    assert client.get(f"{API}/inspections/{body['id']}", headers=site.supervisor_h).get_json() == body


def test_server_picks_a_covering_authorization(site):
    site.entry_id(scope=["sampling"], valid_from=iso(T0 - timedelta(days=2)))
    covering = site.entry_id(scope=["examination"])
    r = site.inspection(None)
    assert r.status_code == 201 and r.get_json()["entry_authorization_id"] == covering


@pytest.mark.parametrize("case, entry, reason, message", [
    ("expired", {"valid_from": iso(T0 - timedelta(days=9)), "valid_to": iso(T0 - timedelta(days=1))}, "expired",
     "The site-entry authorization expired at 2026-05-03T13:00:00Z."),
    ("not yet valid", {"valid_from": iso(T0 + timedelta(hours=1)), "valid_to": iso(T0 + timedelta(days=1))},
     "not_yet_valid", "The site-entry authorization is not yet valid at 2026-05-04T13:00:00Z; "
                      "it starts at 2026-05-04T14:00:00Z."),
    ("scope", {"scope": ["sampling", "survey"]}, "scope",
     "The site-entry authorization's scope (sampling, survey) lacks examination."),
])
def test_entry_not_authorized(site, case, entry, reason, message):
    eid = site.entry_id(**entry)
    for entry_id in (eid, None):  # named, or looked for among the permit's authorizations
        r = site.inspection(entry_id)
        assert r.status_code == 409, case
        body = r.get_json()
        assert body["error"] == "entry_not_authorized" and body["message"] == message
        assert body["errors"]["reason"] == reason


def test_no_authorization_at_all(site):
    r = site.inspection(None)
    assert r.status_code == 409 and r.get_json()["error"] == "entry_not_authorized"
    assert r.get_json()["errors"]["reason"] == "none"
    assert r.get_json()["message"].startswith("No site-entry authorization covers examination")
    r = site.inspection(str(uuid.uuid4()))  # an id the server has never seen
    assert r.status_code == 409 and r.get_json()["errors"]["reason"] == "none"


def test_authorization_of_another_permit(site, factory):
    other = factory.permit(status="issued")
    factory.assign(other, site.inspector)
    other_eid = site.entry_id(permit_id=other.id)
    r = site.inspection(other_eid)
    assert r.status_code == 409 and r.get_json()["errors"]["reason"] == "other_site"
    assert r.get_json()["message"] == "The site-entry authorization is for another site, not this permit."


def test_revoked_before_and_after(site, client):
    eid = site.entry_id()
    assert client.post(f"{API}/entry-authorizations/{eid}/revoke", json={"revoked_at": iso(T0 + timedelta(hours=1))},
                       headers=site.supervisor_h).status_code == 200
    before = site.inspection(eid, started_at=iso(T0 + timedelta(minutes=59)), ended_at=None)
    assert before.status_code == 201
    after = site.inspection(eid, started_at=iso(T0 + timedelta(hours=1)), ended_at=None)
    assert after.status_code == 409 and after.get_json()["errors"]["reason"] == "revoked"
    # moving the earlier inspection past the revocation is refused as well
    moved = site.patch(before.get_json()["id"], 1, {"started_at": iso(T0 + timedelta(hours=2))})
    assert moved.status_code == 409 and moved.get_json()["error"] == "entry_not_authorized"


def test_idempotent_create(site):
    eid = site.entry_id()
    body = site.inspection_body(eid)
    first = site.client.post(f"{API}/inspections", json=body, headers=site.inspector_h)
    assert first.status_code == 201
    again = site.client.post(f"{API}/inspections", json=body, headers=site.inspector_h)
    assert again.status_code == 200 and again.get_json() == first.get_json()
    changed = site.client.post(f"{API}/inspections", json={**body, "notes": "different"}, headers=site.inspector_h)
    assert changed.status_code == 409 and changed.get_json()["error"] == "conflict"


def test_validation(site):
    eid = site.entry_id()
    r = site.inspection(eid, kind="drive_by")
    assert r.status_code == 422 and "kind" in r.get_json()["errors"]
    r = site.inspection(eid, ended_at=iso(T0 - timedelta(minutes=1)))
    assert r.status_code == 422 and r.get_json()["errors"] == {"ended_at": ["Must not be before started_at."]}
    r = site.inspection(eid, location={"lat": 95, "lon": 0})
    assert r.status_code == 422 and "location" in r.get_json()["errors"]
    r = site.inspection(eid, started_at="yesterday")
    assert r.status_code == 422 and "started_at" in r.get_json()["errors"]
    r = site.inspection(eid, verifies_finding_ids=[str(uuid.uuid4())])
    assert r.status_code == 422 and r.get_json()["errors"] == {
        "verifies_finding_ids": ["Only a follow_up inspection verifies findings fixed."]}
    r = site.inspection(eid, supersedes_id=str(uuid.uuid4()))
    assert r.status_code == 422 and r.get_json()["errors"] == {
        "supersedes_id": ["Must be an approved inspection of this permit."]}


def test_submit_needs_a_complete_checklist(site):
    iid = site.inspection_id(checklist={"template": "esc", "items": answers(skip=("dust_control", "plans_posted"))})
    r = site.submit(iid)
    assert r.status_code == 422 and r.get_json()["errors"] == {
        "checklist": {"items": ["Not answered: dust_control, plans_posted."]}}
    none = site.inspection_id(checklist=None)
    r = site.submit(none)
    assert r.status_code == 422 and r.get_json()["errors"] == {"checklist": ["An inspection is submitted with its checklist."]}


def test_review_cycle_and_lock(site, client):
    iid = site.inspection_id()
    submitted = site.submit(iid)
    assert submitted.status_code == 200 and submitted.get_json()["status"] == "submitted"
    assert submitted.get_json()["submitted_by"] == site.inspector.id
    again = site.submit(iid)
    assert again.status_code == 409 and again.get_json()["error"] == "invalid_transition"
    edit = site.patch(iid, submitted.get_json()["version"], {"notes": "x"})
    assert edit.status_code == 409 and edit.get_json()["error"] == "record_locked"
    no_comment = site.review(iid, "returned")
    assert no_comment.status_code == 422 and no_comment.get_json()["errors"] == {
        "comment": ["Say what to change when returning an inspection."]}
    returned = site.review(iid, "returned", "Add the weather and a photo of the entrance.")
    assert returned.status_code == 200
    assert returned.get_json()["status"] == "returned"
    assert returned.get_json()["review_comment"] == "Add the weather and a photo of the entrance."
    edited = site.patch(iid, returned.get_json()["version"], {"weather": {"conditions": "sunny"}})
    assert edited.status_code == 200 and edited.get_json()["weather"] == {"conditions": "sunny"}
    assert site.submit(iid).status_code == 200
    approved = site.review(iid, "approved")
    assert approved.status_code == 200 and approved.get_json()["status"] == "approved"
    assert [r["decision"] for r in approved.get_json()["reviews"]] == ["returned", "approved"]
    version = approved.get_json()["version"]
    for response in (site.patch(iid, version, {"notes": "late fix"}), site.submit(iid), site.review(iid, "returned", "x"),
                     client.delete(f"{API}/inspections/{iid}", headers={**site.inspector_h, "If-Match": str(version)})):
        assert response.status_code == 409 and response.get_json()["error"] == "record_locked"
    assert client.get(f"{API}/inspections/{iid}", headers=site.inspector_h).get_json()["notes"] == "Contractor on site."
    # a correction is a new record that references the approved one
    fix = site.inspection(site.entry_id(), supersedes_id=iid, notes="Corrected: phase 2 had begun.")
    assert fix.status_code == 201 and fix.get_json()["supersedes_id"] == iid


def test_review_needs_a_supervisor_and_a_submission(site):
    iid = site.inspection_id()
    r = site.review(iid)
    assert r.status_code == 409 and r.get_json()["error"] == "invalid_transition"
    site.submit(iid)
    r = site.client.post(f"{API}/inspections/{iid}/review", json={"decision": "approved"}, headers=site.inspector_h)
    assert r.status_code == 403 and r.get_json()["error"] == "forbidden"
    r = site.client.post(f"{API}/inspections/{iid}/review", json={"decision": "maybe"}, headers=site.supervisor_h)
    assert r.status_code == 422 and "decision" in r.get_json()["errors"]


def test_review_queue(site, client):
    first, second, draft = site.inspection_id(), site.inspection_id(), site.inspection_id()
    site.submit(second)
    site.submit(first)
    queue = client.get(f"{API}/inspections?status=submitted", headers=site.supervisor_h)
    assert queue.status_code == 200 and [i["id"] for i in queue.get_json()] == [second, first]
    per_permit = client.get(f"{API}/inspections?permit_id={site.permit.id}", headers=site.supervisor_h).get_json()
    assert {i["id"] for i in per_permit} == {first, second, draft}
    bad = client.get(f"{API}/inspections?status=lost", headers=site.supervisor_h)
    assert bad.status_code == 422 and "status" in bad.get_json()["errors"]


def test_delete_draft(site, client):
    iid = site.inspection_id()
    url = f"{API}/inspections/{iid}"
    missing = client.delete(url, headers=site.inspector_h)
    assert missing.status_code == 428 and missing.get_json()["error"] == "precondition_required"
    stale = client.delete(url, headers={**site.inspector_h, "If-Match": "7"})
    assert stale.status_code == 409 and stale.get_json()["error"] == "version_conflict"
    gone = client.delete(url, headers={**site.inspector_h, "If-Match": "1"})
    assert gone.status_code == 204 and gone.data == b""
    assert client.get(url, headers=site.inspector_h).status_code == 404
    submitted = site.inspection_id()
    site.submit(submitted)
    r = client.delete(f"{API}/inspections/{submitted}", headers={**site.inspector_h, "If-Match": "2"})
    assert r.status_code == 409 and r.get_json()["error"] == "invalid_transition"


def test_cease_and_desist_warning(site, app, client):
    from inspect_api.extensions import db
    site.permit.cease_and_desist = True
    db.session.commit()
    r = site.inspection(site.entry_id())
    assert r.status_code == 201
    warning = "A cease-and-desist order is open on this permit: no land-disturbing activity may continue (R-O1(a))."
    assert r.get_json()["warnings"] == [warning]
    # The list reads the permit's order too (in the inspections' own statement: no permit is loaded),
    # and drops the warning once the order is lifted.
    listed = client.get(f"{API}/inspections?permit_id={site.permit.id}", headers=site.inspector_h)
    assert listed.status_code == 200
    assert [(i["id"], i["warnings"]) for i in listed.get_json()] == [(r.get_json()["id"], [warning])]
    site.permit.cease_and_desist = False
    db.session.commit()
    listed = client.get(f"{API}/inspections?permit_id={site.permit.id}", headers=site.inspector_h)
    assert [(i["id"], i["warnings"]) for i in listed.get_json()] == [(r.get_json()["id"], [])]


def test_the_list_gives_each_inspection_its_findings_as_its_own_answer_does(site, app, client):
    """A page's findings come by one statement for the whole page: each inspection shows the findings
    it raised and still stands by (not one set aside when its answer changed), oldest first, exactly as
    its own answer shows them, and none of another inspection's."""
    from inspect_api.extensions import db
    from inspect_api.inspections.models import Finding
    deficient = {"check_dams": {}, "inlet_protection": {}, "dust_control": {}}
    first = site.inspection(site.entry_id(), status="submitted",
                            checklist={"template": "esc", "items": answers(deficient)})
    second = site.inspection(site.entry_id(), status="submitted",
                             checklist={"template": "esc", "items": answers({"plans_posted": {}})})
    third = site.inspection(site.entry_id())
    assert [r.status_code for r in (first, second, third)] == [201, 201, 201]
    set_aside = first.get_json()["findings"][1]["id"]
    db.session.get(Finding, set_aside).deleted_at = T0
    db.session.commit()
    listed = client.get(f"{API}/inspections?permit_id={site.permit.id}", headers=site.inspector_h)
    assert listed.status_code == 200
    by_id = {item["id"]: item for item in listed.get_json()}
    assert len(by_id) == 3
    for made, count in ((first, 2), (second, 1), (third, 0)):
        own = client.get(f"{API}/inspections/{made.get_json()['id']}", headers=site.inspector_h).get_json()
        standing = [f["id"] for f in made.get_json()["findings"] if f["id"] != set_aside]
        assert [f["id"] for f in own["findings"]] == standing and len(standing) == count
        assert by_id[own["id"]]["findings"] == own["findings"]
    assert set_aside not in {f["id"] for item in by_id.values() for f in item["findings"]}


def test_patch_partial_and_versions(site):
    iid = site.inspection_id()
    r = site.patch(iid, 1, {"location": None, "unsafe_areas": []})
    assert r.status_code == 200 and r.get_json()["location"] is None and r.get_json()["unsafe_areas"] == []
    assert r.get_json()["notes"] == "Contractor on site." and r.get_json()["version"] == 2
    stale = site.patch(iid, 1, {"notes": "x"})
    assert stale.status_code == 409 and stale.get_json()["errors"]["current"]["version"] == 2


def test_save_and_submit_in_one_step(site):
    """Offline devices send "save and submit" as one record with status submitted."""
    created = site.inspection(site.entry_id(), status="submitted",
                              checklist={"template": "esc", "items": answers({"check_dams": {}})})
    assert created.status_code == 201
    body = created.get_json()
    assert body["status"] == "submitted" and [f["item_key"] for f in body["findings"]] == ["check_dams"]
    returned = site.review(body["id"], "returned", "Note which dam.")
    r = site.patch(body["id"], returned.get_json()["version"], {"status": "submitted",
                   "checklist": {"template": "esc", "items": answers({"check_dams": {"note": "CD-3"}})}})
    assert r.status_code == 200 and r.get_json()["status"] == "submitted"
    assert r.get_json()["findings"][0]["description"] == "Check dams: deficient. CD-3"
    again = site.review(body["id"], "returned", "One more thing.")
    r = site.patch(body["id"], again.get_json()["version"], {"status": "approved"})
    assert r.status_code == 422 and "status" in r.get_json()["errors"]  # approval is the supervisor's review


def test_services_refuse_status_moves_that_are_reviews(site, app):
    """The service layer (which sync calls with data it loaded itself) holds the same line."""
    from inspect_api.errors import InvalidTransition
    from inspect_api.inspections import services
    record = services.get_inspection(site.inspector, site.inspection_id())
    with pytest.raises(InvalidTransition):
        services.update_inspection(site.inspector, record, {"status": "approved"}, record.version)


def test_changes_reach_the_sync_feed(site, app):
    from sqlalchemy import select

    from inspect_api.changes import SyncChange
    from inspect_api.extensions import db
    eid = site.entry_id()
    kept = site.inspection_id(entry_id=eid, checklist={"template": "esc", "items": answers({"dust_control": {}})})
    finding_id = site.submit(kept).get_json()["findings"][0]["id"]
    dropped = site.inspection_id(entry_id=eid)
    assert site.client.delete(f"{API}/inspections/{dropped}", headers={**site.inspector_h, "If-Match": "1"}).status_code == 204
    feed = {(c.entity, c.record_id): (c.op, c.version, c.permit_id) for c in db.session.scalars(select(SyncChange))}
    assert feed[("entry_authorization", eid)] == ("upsert", 1, site.permit.id)
    assert feed[("inspection", kept)] == ("upsert", 2, site.permit.id)
    assert feed[("finding", finding_id)] == ("upsert", 1, site.permit.id)
    assert feed[("inspection", dropped)] == ("delete", 2, site.permit.id)


def test_inspection_location_is_the_one_gps_fix(site, client):
    fix = {"lat": 41.6376, "lon": -70.9036, "accuracy_m": 3.0, "altitude_m": -2.5, "source": "network"}
    r = site.inspection(site.entry_id(), location=fix)
    assert r.status_code == 201 and r.get_json()["location"] == fix
    assert client.get(f"{API}/inspections/{r.get_json()['id']}", headers=site.inspector_h).get_json()["location"] == fix
    r = site.inspection(site.entry_id(), location={**fix, "source": "guess"})
    assert r.status_code == 422 and list(r.get_json()["errors"]["location"]) == ["source"]
