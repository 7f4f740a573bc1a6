"""Who reaches which field record: applicants see only their own permits' records (404 otherwise) and
never record field work (403); admins see no record content."""
import uuid

import pytest

from .conftest import API, answers


@pytest.fixture
def records(site):
    eid = site.entry_id()
    submitted = site.inspection_id(entry_id=eid, checklist={"template": "esc", "items": answers({"dust_control": {}})})
    finding_id = site.submit(submitted).get_json()["findings"][0]["id"]
    draft = site.inspection_id(entry_id=eid)
    return {"entry": eid, "submitted": submitted, "draft": draft, "finding": finding_id}


def test_applicant_reads_own_permit_records(site, records):
    c, h = site.client, site.applicant_h
    r = c.get(f"{API}/inspections/{records['submitted']}", headers=h)
    assert r.status_code == 200 and r.get_json()["findings"][0]["id"] == records["finding"]
    assert c.get(f"{API}/findings/{records['finding']}", headers=h).status_code == 200
    assert [f["id"] for f in c.get(f"{API}/findings", headers=h).get_json()] == [records["finding"]]
    # a draft is still the inspector's working copy
    assert c.get(f"{API}/inspections/{records['draft']}", headers=h).status_code == 404
    assert [i["id"] for i in c.get(f"{API}/inspections", headers=h).get_json()] == [records["submitted"]]


def test_applicant_never_records_field_work(site, records):
    c, h = site.client, site.applicant_h
    r = c.post(f"{API}/inspections", json=site.inspection_body(records["entry"]), headers=h)
    assert r.status_code == 403 and r.get_json()["error"] == "forbidden"
    assert site.entry(headers=h).status_code == 403
    assert c.post(f"{API}/inspections/{records['submitted']}/review", json={"decision": "approved"},
                  headers=h).status_code == 403
    assert c.post(f"{API}/inspections/{records['draft']}/submit", json={}, headers=h).status_code == 403
    assert c.patch(f"{API}/inspections/{records['draft']}", json={"notes": "x", "version": 1},
                   headers=h).status_code == 403


def test_other_applicant_gets_404_everywhere(site, records, factory):
    _, h = factory.as_role("applicant")
    c = site.client
    for url in (f"{API}/inspections/{records['submitted']}", f"{API}/findings/{records['finding']}",
                f"{API}/entry-authorizations/{records['entry']}"):
        r = c.get(url, headers=h)
        assert r.status_code == 404 and r.get_json()["error"] == "not_found", url
    assert c.get(f"{API}/inspections?permit_id={site.permit.id}", headers=h).get_json() == []
    assert c.get(f"{API}/findings?permit_id={site.permit.id}", headers=h).get_json() == []
    assert c.get(f"{API}/findings?status=overdue", headers=h).get_json() == []
    # the role check comes first for writes: an applicant may not write field records at all
    assert c.patch(f"{API}/findings/{records['finding']}", json={"severity": "low", "version": 1},
                   headers=h).status_code == 403


def test_staff_probing_unknown_ids_get_404(site):
    for url in (f"{API}/inspections/{uuid.uuid4()}", f"{API}/findings/{uuid.uuid4()}",
                f"{API}/entry-authorizations/{uuid.uuid4()}", f"{API}/inspections/not-a-uuid"):
        r = site.client.get(url, headers=site.supervisor_h)
        assert r.status_code == 404 and r.get_json()["error"] == "not_found"


def test_admin_sees_no_record_content(site, records, factory):
    _, h = factory.as_role("admin")
    assert site.client.get(f"{API}/inspections/{records['submitted']}", headers=h).status_code == 404
    assert site.client.get(f"{API}/inspections", headers=h).get_json() == []
    assert site.client.get(f"{API}/findings", headers=h).get_json() == []
    assert site.client.post(f"{API}/inspections", json=site.inspection_body(records["entry"]),
                            headers=h).status_code == 403


def test_unassigned_inspector_reads_but_does_not_record(site, records, factory):
    _, h = factory.as_role("inspector")
    assert site.client.get(f"{API}/inspections/{records['draft']}", headers=h).status_code == 200
    r = site.client.post(f"{API}/inspections", json=site.inspection_body(records["entry"]), headers=h)
    assert r.status_code == 403 and "not assigned" in r.get_json()["message"]
    r = site.client.patch(f"{API}/inspections/{records['draft']}", json={"notes": "x", "version": 1}, headers=h)
    assert r.status_code == 403


def test_unauthenticated(site, records):
    r = site.client.get(f"{API}/inspections")
    assert r.status_code == 401 and r.get_json()["error"] == "unauthorized"
