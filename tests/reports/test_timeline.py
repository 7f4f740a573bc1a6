"""GET /permits/{id}/timeline: every record of a site merged in time order, scoped like the records."""
from __future__ import annotations

from datetime import datetime, timezone

from inspect_api.extensions import db
from inspect_api.permits.models import PermitEvent


def _history(permit, actor):
    moves = [("draft", "submitted", "2026-03-01T14:00:00Z", None),
             ("submitted", "under_review", "2026-03-15T14:00:00Z", None),
             ("under_review", "approved", "2026-04-01T14:00:00Z", "Conditions 1-12 apply"),
             ("approved", "active", "2026-04-20T12:00:00Z", None)]
    for before, after, at, reason in moves:
        db.session.add(PermitEvent(permit_id=permit.id, from_status=before, to_status=after, actor_id=actor.id,
                                   at=datetime.fromisoformat(at), reason=reason))
    db.session.commit()


def test_timeline_merges_everything_in_time_order(inspected, factory, client):
    supervisor, supervisor_headers = factory.as_role("supervisor", name="Sam Review")
    _history(inspected.permit, supervisor)
    auth = inspected.auth
    auth.device_created_at = datetime(2026, 5, 4, 12, 50, tzinfo=timezone.utc)
    db.session.commit()
    r = client.post(f"/api/v1/entry-authorizations/{auth.id}/revoke",
                    json={"revoked_at": "2026-06-01T12:00:00Z", "reason": "Owner withdrew consent"},
                    headers=inspected.headers)
    assert r.status_code == 200, r.get_json()
    r = client.post(f"/api/v1/inspections/{inspected.inspection_id}/review",
                    json={"decision": "approved", "comment": "Good notes"}, headers=supervisor_headers)
    assert r.status_code == 200, r.get_json()

    r = client.get(f"/api/v1/permits/{inspected.permit.id}/timeline", headers=supervisor_headers)
    assert r.status_code == 200
    events = r.get_json()
    assert all(set(e) == {"at", "kind", "record_type", "record_id", "summary"} for e in events)
    assert [e["at"] for e in events] == sorted(e["at"] for e in events)  # all UTC, so text order is time order
    assert [(e["kind"], e["record_type"]) for e in events] == [
        ("permit.status", "permit"), ("permit.status", "permit"), ("permit.status", "permit"),
        ("permit.status", "permit"),
        ("entry_authorization.granted", "entry_authorization"),
        ("inspection.started", "inspection"),
        ("sample.taken", "sample"), ("sample.taken", "sample"),
        ("entry_authorization.revoked", "entry_authorization"),
        ("permit.status", "permit"),            # the record's creation, made in this test run
        ("inspection.submitted", "inspection"),
        ("finding.opened", "finding"), ("finding.opened", "finding"), ("finding.opened", "finding"),
        ("inspection.approved", "inspection"),
    ]
    summaries = [e["summary"] for e in events]
    assert summaries[2] == "Status changed from under review to approved by Sam Review: Conditions 1-12 apply"
    assert summaries[4].startswith("Site entry (permit condition) granted by Condition 12 (permit condition) "
                                   "for examination, sampling, 2025-12-31 19:00 to 2026-12-31 19:00")
    assert summaries[5] == "Routine inspection by Dana Field"
    assert summaries[6] == ("Grab sample at OF-1 by Dana Field: ph 9.1 SU, turbidity 20 NTU; "
                            "exceeds action level for ph")
    assert summaries[8] == "Site-entry authorization revoked by Dana Field: Owner withdrew consent"
    assert summaries[9].startswith(f"Application created (draft) by {inspected.applicant.name}")
    assert summaries[14] == "Inspection approved by Sam Review: Good notes"
    assert events[0]["at"] == "2026-03-01T14:00:00+00:00"
    assert {e["record_id"] for e in events if e["record_type"] == "sample"} == {s["id"] for s in inspected.samples}


def test_finding_verified_by_an_approved_follow_up(inspected, factory, client):
    _, supervisor = factory.as_role("supervisor")
    client.post(f"/api/v1/inspections/{inspected.inspection_id}/review", json={"decision": "approved"},
                headers=supervisor)
    deficiency = client.get(f"/api/v1/findings?permit_id={inspected.permit.id}", headers=supervisor).get_json()
    deficiency_id = next(f["id"] for f in deficiency if f["kind"] == "deficiency")
    follow = client.post("/api/v1/inspections", headers=inspected.headers, json={
        "permit_id": inspected.permit.id, "kind": "follow_up", "started_at": "2026-05-05T13:00:00Z",
        "checklist": {"template": "esc", "items": [{"key": i["key"], "answer": "ok"} for i in inspected.template.items]},
        "verifies_finding_ids": [deficiency_id]}).get_json()
    client.post(f"/api/v1/inspections/{follow['id']}/submit", json={"version": 1}, headers=inspected.headers)
    r = client.post(f"/api/v1/inspections/{follow['id']}/review", json={"decision": "approved"}, headers=supervisor)
    assert r.status_code == 200, r.get_json()
    events = client.get(f"/api/v1/permits/{inspected.permit.id}/timeline", headers=supervisor).get_json()
    verified = [e for e in events if e["kind"] == "finding.verified"]
    assert len(verified) == 1 and verified[0]["record_id"] == deficiency_id
    assert verified[0]["summary"].startswith(f"Finding on {inspected.deficient_key} verified fixed on ")
    approvals = [e for e in events if e["kind"] == "inspection.approved" and e["record_id"] == follow["id"]]
    assert events.index(approvals[0]) < events.index(verified[0])


def test_applicant_timeline_is_scoped(inspected, factory, client):
    draft = client.post("/api/v1/inspections", headers=inspected.headers, json={
        "permit_id": inspected.permit.id, "kind": "complaint", "started_at": "2026-05-06T13:00:00Z"}).get_json()
    staff = client.get(f"/api/v1/permits/{inspected.permit.id}/timeline", headers=inspected.headers).get_json()
    own = client.get(f"/api/v1/permits/{inspected.permit.id}/timeline", headers=inspected.applicant_headers)
    assert own.status_code == 200
    assert draft["id"] in {e["record_id"] for e in staff}
    assert draft["id"] not in {e["record_id"] for e in own.get_json()}   # a draft is not yet the Town's word
    assert len(own.get_json()) == len(staff) - 1
    _, stranger = factory.as_role("applicant")
    r = client.get(f"/api/v1/permits/{inspected.permit.id}/timeline", headers=stranger)
    assert r.status_code == 404 and r.get_json()["error"] == "not_found"
    _, admin = factory.as_role("admin")
    assert client.get(f"/api/v1/permits/{inspected.permit.id}/timeline", headers=admin).status_code == 404
