"""Rights before versions (issue: evidence integrity). A stale push from an account that may not
edit the record is `rejected` (`forbidden`) and leaves no conflict behind; taking a conflict's
device version re-checks that its author may still make the change; a conflict says who raised it,
from which device, and what differs."""
from __future__ import annotations

import uuid
from datetime import timedelta

import pytest

from inspect_api import clock
from inspect_api.extensions import db
from inspect_api.sync.models import SyncConflict

from .conftest import API, T0, create, edit, iso


def _conflicts(record_id: str) -> int:
    db.session.expire_all()
    return db.session.query(SyncConflict).filter_by(record_id=record_id).count()


def _current(client, headers, path: str) -> dict:
    response = client.get(f"{API}/{path}", headers=headers)
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def _order(site, office) -> tuple[str, str]:
    today = clock.today()
    order_id = str(uuid.uuid4())
    result = office.push([create("order", {
        "permit_id": site.permit.id, "kinds": ["controls"], "requirements": [{"kind": "controls", "text": "Fix fence"}],
        "issued_on": today.isoformat(), "deadline": (today + timedelta(days=7)).isoformat()}, order_id)])[0]
    assert result["status"] == "applied", result
    return order_id, "orders"


def _bond(site, office) -> tuple[str, str]:
    bond_id = str(uuid.uuid4())
    result = office.push([create("bond", {"permit_id": site.permit.id, "form": "cash", "amount": "5000.00"},
                                 bond_id)])[0]
    assert result["status"] == "applied", result
    return bond_id, "bonds"


def _sample(site, office) -> tuple[str, str]:
    tablet = site.tablet()
    entry = site.new_entry(tablet)
    sample_id = str(uuid.uuid4())
    result = tablet.push([create("sample", {
        "permit_id": site.permit.id, "entry_authorization_id": entry, "sampled_at": iso(T0 + timedelta(hours=2)),
        "sampler": "Dana Field", "outfall_id": "OF-1", "sample_type": "grab", "analysis": "field",
        "parameters": [{"name": "ph", "value": 7.1, "unit": "SU"}]}, sample_id)])[0]
    assert result["status"] == "applied", result
    return sample_id, "samples"


def _draft_application(site, office) -> tuple[str, str]:
    from inspect_api.permits import services as permit_services
    permit_services.force_status(site.permit, "draft")
    db.session.commit()
    return site.permit.id, "permits"


CASES = {
    # entity, how the record is made, who pushes, the stale change, the field a supervisor then bumps
    "applicant moves their order's deadline": ("order", _order, "applicant", {"deadline": "2099-12-31"},
                                               {"referral_note": "Bumped by the office"}),
    "applicant edits their bond": ("bond", _bond, "applicant", {"issuer": "Nobody Surety"},
                                   {"reference": "B-1"}),
    "unassigned inspector edits a sample": ("sample", _sample, "stranger", {"notes": "Moved"},
                                            {"notes": "Office note"}),
    "inspector edits a draft application": ("permit", _draft_application, "inspector",
                                            {"description": "Changed by an inspector"},
                                            {"description": "Changed by the office"}),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_stale_push_without_the_right_is_rejected_and_records_no_conflict(site, client, case):
    entity, make, who, change, bump = CASES[case]
    office = site.tablet(site.supervisor)
    record_id, path = make(site, office)
    if entity == "permit":  # the applicant's own draft: the applicant, not the office, edits it
        mover = site.tablet(site.applicant)
    else:
        mover = office
    version = _current(client, site.headers(site.supervisor), f"{path}/{record_id}")["version"]
    moved = mover.push([edit(entity, record_id, version, bump)])[0]
    assert moved["status"] == "applied", moved
    pusher = {"applicant": site.applicant, "inspector": site.inspector,
              "stranger": site.factory.user("inspector")}[who]
    tablet = site.tablet(pusher)
    result = tablet.push([edit(entity, record_id, version, change)])[0]
    assert result["status"] == "rejected" and result["error"] == "forbidden", result
    assert "conflict_id" not in result and "server_record" not in result
    assert _conflicts(record_id) == 0
    after = _current(client, site.headers(site.supervisor), f"{path}/{record_id}")
    assert after["version"] == version + 1
    field, value = next(iter(change.items()))
    assert after[field] != value
    # the same push at the current version is refused the same way: the rights, not the version, decided
    again = tablet.push([edit(entity, record_id, after["version"], change)])[0]
    assert again["status"] == "rejected" and again["error"] == "forbidden", again


def test_a_stale_push_with_the_right_is_still_a_conflict(site, client):
    office = site.tablet(site.supervisor)
    sample_id, _ = _sample(site, office)
    device = site.tablet(site.inspector, device_id="tablet-north")
    office.push([edit("sample", sample_id, 1, {"notes": "Office note"})])
    result = device.push([edit("sample", sample_id, 1, {"notes": "Cloudy water", "sampler": "Dana Field"})])[0]
    assert result["status"] == "conflict" and result["conflict_id"], result
    db.session.expire_all()
    from inspect_api.auth.models import Device
    db.session.get(Device, "tablet-north").name = "North tablet"
    db.session.commit()
    body = client.get(f"{API}/sync/conflicts/{result['conflict_id']}", headers=site.headers(site.supervisor))
    assert body.status_code == 200
    conflict = body.get_json()
    assert conflict["raised_by"] == {"id": site.inspector.id, "name": site.inspector.name}
    assert conflict["device"] == {"id": "tablet-north", "name": "North tablet"}
    assert conflict["differences"] == [{"field": "notes", "server": "Office note", "device": "Cloudy water"}]
    listed = client.get(f"{API}/sync/conflicts", headers=site.headers(site.supervisor)).get_json()
    items = listed if isinstance(listed, list) else listed["items"]
    assert [c["raised_by"]["name"] for c in items if c["id"] == conflict["id"]] == [site.inspector.name]


def test_taking_the_devices_version_rechecks_its_author(site, client, factory):
    """An inspector's conflict, then the inspector is taken off the site: the supervisor can no longer
    take the device's version (403 in the error shape), and the record is as it was."""
    office = site.tablet(site.supervisor)
    sample_id, _ = _sample(site, office)
    office.push([edit("sample", sample_id, 1, {"notes": "Office note"})])
    result = site.tablet(site.inspector).push([edit("sample", sample_id, 1, {"notes": "Cloudy water"})])[0]
    assert result["status"] == "conflict", result
    supervisor_h = site.headers(site.supervisor)
    removed = client.delete(f"{API}/permits/{site.permit.id}/assignments/{site.inspector.id}", headers=supervisor_h)
    assert removed.status_code in (200, 204), removed.get_json()
    r = client.post(f"{API}/sync/conflicts/{result['conflict_id']}/resolve", json={"resolution": "take_device"},
                    headers=supervisor_h)
    assert r.status_code == 403, r.get_json()
    body = r.get_json()
    assert set(body) == {"code", "status", "message", "error", "errors"} and body["error"] == "forbidden"
    assert site.inspector.name in body["message"] and body["errors"]["raised_by"] == [site.inspector.id]
    assert _current(client, supervisor_h, f"samples/{sample_id}")["notes"] == "Office note"
    assert client.get(f"{API}/sync/conflicts/{result['conflict_id']}",
                      headers=supervisor_h).get_json()["status"] == "open"
    # keeping the server's version is always possible
    kept = client.post(f"{API}/sync/conflicts/{result['conflict_id']}/resolve", json={"resolution": "keep_server"},
                       headers=supervisor_h)
    assert kept.status_code == 200 and kept.get_json()["resolution"] == "keep_server"


def test_taking_the_devices_version_of_an_allowed_change_still_works(site, client):
    office = site.tablet(site.supervisor)
    sample_id, _ = _sample(site, office)
    office.push([edit("sample", sample_id, 1, {"notes": "Office note"})])
    result = site.tablet(site.inspector).push([edit("sample", sample_id, 1, {"notes": "Cloudy water"})])[0]
    r = client.post(f"{API}/sync/conflicts/{result['conflict_id']}/resolve", json={"resolution": "take_device"},
                    headers=site.headers(site.supervisor))
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["record"]["notes"] == "Cloudy water"
    assert r.get_json()["raised_by"]["id"] == site.inspector.id
