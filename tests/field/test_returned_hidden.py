"""A returned inspection is back in the inspector's hands with the supervisor's comments: to the
applicant it is as hidden as a draft, with its findings, photos and report, until it is approved
(R-I5; inspections.rules.shown_to_applicant). Staff see it throughout."""
from __future__ import annotations

from inspect_api.inspections.models import Inspection
from inspect_api.extensions import db

from ..photos.helpers import jpeg, put_photo
from .conftest import API, answers


def _applicant_sees(site, iid: str, finding_id: str, photo_id: str) -> dict[str, bool]:
    c, h = site.client, site.applicant_h
    return {
        "inspection": c.get(f"{API}/inspections/{iid}", headers=h).status_code == 200,
        "listed": iid in {i["id"] for i in c.get(f"{API}/inspections", headers=h).get_json()},
        "finding": c.get(f"{API}/findings/{finding_id}", headers=h).status_code == 200,
        "findings_listed": finding_id in {f["id"] for f in c.get(f"{API}/findings", headers=h).get_json()},
        "photo": c.get(f"{API}/photos/{photo_id}", headers=h).status_code == 200,
        "report": c.get(f"{API}/inspections/{iid}/report.pdf", headers=h).status_code == 200,
    }


def _pulled(site, device_id: str) -> set[tuple[str, str]]:
    headers = {**site.factory.headers(site.applicant, device_id=device_id), "X-Device-Id": device_id}
    r = site.client.get(f"{API}/sync/pull", headers=headers)
    assert r.status_code == 200, r.get_json()
    return {(c["entity"], c["id"]) for c in r.get_json()["changes"] if c["op"] == "upsert"}


def test_a_returned_inspection_is_hidden_from_the_applicant_until_approved(site):
    iid = site.inspection_id(checklist={"template": "esc", "items": answers({"dust_control": {}})})
    photo = put_photo(site.client, site.inspector_h, site.permit.id, jpeg((40, 30)),
                      parent_type="inspection", parent_id=iid)
    assert photo.status_code == 201, photo.get_json()
    photo_id = photo.get_json()["id"]
    (finding,) = site.submit(iid).get_json()["findings"]
    assert set(_applicant_sees(site, iid, finding["id"], photo_id).values()) == {True}
    r = site.review(iid, "returned", comment="Internal: redo the perimeter notes before this goes out")
    assert r.status_code == 200 and r.get_json()["status"] == "returned"
    hidden = _applicant_sees(site, iid, finding["id"], photo_id)
    assert hidden == dict.fromkeys(hidden, False), hidden
    r = site.client.get(f"{API}/inspections/{iid}", headers=site.applicant_h)
    assert r.status_code == 404 and r.get_json()["error"] == "not_found"
    assert ("inspection", iid) not in _pulled(site, "phone-a") and ("finding", finding["id"]) not in _pulled(
        site, "phone-b")
    # The inspector edits it and submits it again: still theirs, still hidden.
    version = site.client.get(f"{API}/inspections/{iid}", headers=site.inspector_h).get_json()["version"]
    assert site.patch(iid, version, {"notes": "Perimeter notes redone."}).status_code == 200
    assert site.submit(iid).status_code == 200
    hidden = _applicant_sees(site, iid, finding["id"], photo_id)
    assert hidden == dict.fromkeys(hidden, False), hidden
    # Staff saw it all along; nothing about the record changed by being hidden.
    assert site.client.get(f"{API}/inspections/{iid}", headers=site.supervisor_h).status_code == 200
    db.session.expire_all()
    assert db.session.get(Inspection, iid).status == "submitted"
    # Approved, it is the applicant's to see again, and a device pulls it with its finding and photo.
    assert site.review(iid, "approved").status_code == 200
    assert set(_applicant_sees(site, iid, finding["id"], photo_id).values()) == {True}
    pulled = _pulled(site, "phone-c")
    assert {("inspection", iid), ("finding", finding["id"]), ("photo", photo_id)} <= pulled


def test_the_approved_inspection_keeps_the_return_comment_from_the_applicant(site):
    """The supervisor's internal return comment never reaches the applicant, not even as the review
    history of the inspection once approved; staff keep it in the audit trail."""
    iid = site.inspection_id()
    assert site.submit(iid).status_code == 200
    assert site.review(iid, "returned", comment="Internal: redo the perimeter notes").status_code == 200
    assert site.submit(iid).status_code == 200
    assert site.review(iid, "approved", comment="Good.").status_code == 200
    got = site.client.get(f"{API}/inspections/{iid}", headers=site.applicant_h)
    assert got.status_code == 200
    assert [(r["decision"], r["comment"]) for r in got.get_json()["reviews"]] == [("returned", None), ("approved", "Good.")]
    headers = {**site.factory.headers(site.applicant, device_id="phone-r"), "X-Device-Id": "phone-r"}
    pulled = site.client.get(f"{API}/sync/pull", headers=headers).get_data(as_text=True)
    assert iid in pulled and "Internal: redo" not in pulled and "Internal: redo" not in got.get_data(as_text=True)
    audit = site.client.get(f"{API}/audit", headers=site.supervisor_h, query_string={"record_id": iid})
    assert "Internal: redo" in audit.get_data(as_text=True)


def test_a_device_that_held_the_submitted_inspection_drops_it_when_it_is_returned(site):
    iid = site.inspection_id()
    assert site.submit(iid).status_code == 200
    headers = {**site.factory.headers(site.applicant, device_id="phone-d"), "X-Device-Id": "phone-d"}
    first = site.client.get(f"{API}/sync/pull", headers=headers).get_json()
    assert ("inspection", iid, "upsert") in {(c["entity"], c["id"], c["op"]) for c in first["changes"]}
    assert site.review(iid, "returned", comment="Redo the notes").status_code == 200
    later = site.client.get(f"{API}/sync/pull", headers=headers, query_string={"cursor": first["cursor"]}).get_json()
    assert [(c["id"], c["op"], c["data"]) for c in later["changes"] if c["entity"] == "inspection"] == [
        (iid, "delete", None)]
    assert "Redo the notes" not in str(later)
