"""Site-entry authorizations through the API (R-E1, R-E3), with roles and idempotent creates."""
import uuid
from datetime import timedelta

from .conftest import API, T0, iso


def test_create_and_read(site, client):
    r = site.entry(basis="owner_consent", scope=["examination", "sampling"], device_created_at="2026-05-04T08:59:00-04:00")
    assert r.status_code == 201
    body = r.get_json()
    assert body["permit_id"] == site.permit.id and body["basis"] == "owner_consent"
    assert body["scope"] == ["examination", "sampling"] and body["version"] == 1
    assert body["valid_from"] == "2026-05-03T13:00:00+00:00" and body["revoked_at"] is None
    assert body["created_by"] == site.inspector.id and body["device_created_at"] == "2026-05-04T12:59:00+00:00"
    one = client.get(f"{API}/entry-authorizations/{body['id']}", headers=site.supervisor_h)
    assert one.status_code == 200 and one.get_json() == body
    listed = client.get(f"{API}/entry-authorizations?permit_id={site.permit.id}", headers=site.inspector_h)
    assert listed.status_code == 200 and [a["id"] for a in listed.get_json()] == [body["id"]]


def test_idempotent_create(site):
    eid = str(uuid.uuid4())
    first = site.entry(id=eid)
    assert first.status_code == 201
    again = site.entry(id=eid, valid_from=first.get_json()["valid_from"], valid_to=first.get_json()["valid_to"],
                       signature_photo_id=first.get_json()["signature_photo_id"])
    assert again.status_code == 200 and again.get_json() == first.get_json()
    other = site.entry(id=eid, granted_by_name="Someone Else", signature_photo_id=first.get_json()["signature_photo_id"])
    assert other.status_code == 409 and other.get_json()["error"] == "conflict"


def test_content_validation(site):
    r = site.entry(valid_to=iso(T0 - timedelta(days=1)), valid_from=iso(T0))
    assert r.status_code == 422 and r.get_json()["errors"] == {"valid_to": ["Must be later than valid_from."]}
    r = site.entry(scope=["examination", "examination"])
    assert r.status_code == 422 and r.get_json()["errors"] == {"scope": ["List each activity once."]}
    r = site.entry(scope=[])
    assert r.status_code == 422 and "scope" in r.get_json()["errors"]
    r = site.entry(scope=["digging"])
    assert r.status_code == 422 and "scope" in r.get_json()["errors"]
    r = site.entry(basis="owner_consent", signature_photo_id=None)
    assert r.status_code == 422 and list(r.get_json()["errors"]) == ["signature_photo_id"]
    r = site.entry(basis="court_warrant", signature_photo_id=None, granted_by_relation="Bristol County Superior Court")
    assert r.status_code == 201 and r.get_json()["signature_photo_id"] is None
    r = site.entry(valid_from="2026-05-04T09:00:00")  # no offset: ambiguous
    assert r.status_code == 422 and "valid_from" in r.get_json()["errors"]
    r = site.entry(basis="friendly_chat")
    assert r.status_code == 422 and "basis" in r.get_json()["errors"]


def test_patch_with_versions(site, client):
    created = site.entry().get_json()
    url = f"{API}/entry-authorizations/{created['id']}"
    missing = client.patch(url, json={"notes": "gate code 1234"}, headers=site.inspector_h)
    assert missing.status_code == 428 and missing.get_json()["error"] == "precondition_required"
    ok = client.patch(url, json={"notes": "gate code 1234"}, headers={**site.inspector_h, "If-Match": "1"})
    assert ok.status_code == 200 and ok.get_json()["notes"] == "gate code 1234" and ok.get_json()["version"] == 2
    stale = client.patch(url, json={"notes": "x", "version": 1}, headers=site.inspector_h)
    assert stale.status_code == 409 and stale.get_json()["error"] == "version_conflict"
    assert stale.get_json()["errors"]["current"]["notes"] == "gate code 1234"
    bad = client.patch(url, json={"valid_to": created["valid_from"], "version": 2}, headers=site.inspector_h)
    assert bad.status_code == 422 and bad.get_json()["errors"] == {"valid_to": ["Must be later than valid_from."]}


def test_revoke_and_r_e3(site, client):
    eid = site.entry_id()
    early = site.inspection(eid, started_at=iso(T0))
    assert early.status_code == 201
    url = f"{API}/entry-authorizations/{eid}/revoke"
    # a back-dated revocation would strand the inspection already made under it
    backdated = client.post(url, json={"revoked_at": iso(T0 - timedelta(hours=1))}, headers=site.inspector_h)
    assert backdated.status_code == 409 and backdated.get_json()["error"] == "entry_in_use"
    assert backdated.get_json()["errors"]["records"] == [f"inspection {early.get_json()['id']}"]
    revoked = client.post(url, json={"revoked_at": iso(T0 + timedelta(hours=2)), "reason": "owner withdrew consent"},
                          headers=site.inspector_h)
    assert revoked.status_code == 200
    body = revoked.get_json()
    assert body["revoked_at"] == "2026-05-04T15:00:00+00:00" and body["revoked_by"] == site.inspector.id
    assert body["revocation_reason"] == "owner withdrew consent" and body["version"] == 2
    # the earlier inspection stays, a later one is refused
    assert client.get(f"{API}/inspections/{early.get_json()['id']}", headers=site.inspector_h).status_code == 200
    late = site.inspection(eid, started_at=iso(T0 + timedelta(hours=3)), ended_at=None)
    assert late.status_code == 409 and late.get_json()["error"] == "entry_not_authorized"
    assert late.get_json()["message"] == "The site-entry authorization was revoked at 2026-05-04T15:00:00Z."
    twice = client.post(url, json={}, headers=site.inspector_h)
    assert twice.status_code == 409 and twice.get_json()["error"] == "invalid_transition"
    locked = client.patch(f"{API}/entry-authorizations/{eid}", json={"notes": "x", "version": 2},
                          headers=site.inspector_h)
    assert locked.status_code == 409 and locked.get_json()["error"] == "record_locked"


def test_revoke_defaults_to_now_and_refuses_the_future(site, client):
    eid = site.entry_id()
    future = client.post(f"{API}/entry-authorizations/{eid}/revoke", json={"revoked_at": "2999-01-01T00:00:00Z"},
                         headers=site.supervisor_h)
    assert future.status_code == 422 and "revoked_at" in future.get_json()["errors"]
    now = client.post(f"{API}/entry-authorizations/{eid}/revoke", json={}, headers=site.supervisor_h)
    assert now.status_code == 200 and now.get_json()["revoked_at"] is not None


def test_narrowing_the_scope_under_an_inspection_is_refused(site, client):
    eid = site.entry_id()
    assert site.inspection(eid).status_code == 201
    r = client.patch(f"{API}/entry-authorizations/{eid}", json={"scope": ["sampling"], "version": 1},
                     headers=site.inspector_h)
    assert r.status_code == 409 and r.get_json()["error"] == "entry_in_use"
    r = client.patch(f"{API}/entry-authorizations/{eid}", json={"scope": ["examination"], "version": 1},
                     headers=site.inspector_h)
    assert r.status_code == 200 and r.get_json()["scope"] == ["examination"]


def test_roles(site, client, factory):
    # applicants never create (403), but read their own permit's authorizations
    r = site.entry(headers=site.applicant_h)
    assert r.status_code == 403 and r.get_json()["error"] == "forbidden"
    eid = site.entry_id()
    own = client.get(f"{API}/entry-authorizations/{eid}", headers=site.applicant_h)
    assert own.status_code == 200 and own.get_json()["id"] == eid
    # an inspector not assigned to the site may read but not record
    _, other_inspector_h = factory.as_role("inspector")
    r = site.entry(headers=other_inspector_h)
    assert r.status_code == 403 and "not assigned" in r.get_json()["message"]
    revoke = client.post(f"{API}/entry-authorizations/{eid}/revoke", json={}, headers=site.applicant_h)
    assert revoke.status_code == 403


def test_other_applicants_get_404(site, client, factory):
    eid = site.entry_id()
    _, stranger_h = factory.as_role("applicant")
    assert client.get(f"{API}/entry-authorizations/{eid}", headers=stranger_h).status_code == 404
    listed = client.get(f"{API}/entry-authorizations?permit_id={site.permit.id}", headers=stranger_h)
    assert listed.status_code == 200 and listed.get_json() == []
    assert client.get(f"{API}/entry-authorizations", headers=stranger_h).get_json() == []
    _, admin_h = factory.as_role("admin")
    r = client.get(f"{API}/entry-authorizations/{eid}", headers=admin_h)
    assert r.status_code == 404 and r.get_json()["error"] == "not_found"


def test_unknown_permit_is_404(site):
    r = site.entry(permit_id=str(uuid.uuid4()))
    assert r.status_code == 404 and r.get_json()["error"] == "not_found"


def test_revocation_sent_as_an_edit(site, client):
    """An offline device sends the revocation inside the record it edited."""
    eid = site.entry_id()
    r = client.patch(f"{API}/entry-authorizations/{eid}", headers={**site.inspector_h, "If-Match": "1"},
                     json={"notes": "owner called", "revoked_at": iso(T0 + timedelta(hours=4)),
                           "revocation_reason": "consent withdrawn by phone"})
    assert r.status_code == 200
    body = r.get_json()
    assert body["notes"] == "owner called" and body["revoked_at"] == "2026-05-04T17:00:00+00:00"
    assert body["revocation_reason"] == "consent withdrawn by phone" and body["version"] == 3
