"""Who pulls what: each role's scope, and assignment changes arriving on the inspector's device."""
from __future__ import annotations

import uuid

import pytest

from inspect_api.extensions import db
from inspect_api.permits import services as permit_services

from .conftest import create, edit, entry_data, inspection_data


@pytest.fixture
def town(site, factory):
    """Two permits: the site (assigned to the inspector) and another applicant's permit assigned to
    a second inspector, each with an entry authorization and an inspection."""
    other_applicant = factory.user("applicant")
    other_permit = factory.permit(applicant=other_applicant, status="issued")
    other_inspector = factory.user("inspector")
    factory.assign(other_permit, other_inspector)
    records = {}
    for permit, inspector in ((site.permit, site.inspector), (other_permit, other_inspector)):
        tablet = site.tablet(inspector)
        entry_id, inspection_id = str(uuid.uuid4()), str(uuid.uuid4())
        results = tablet.push([create("entry_authorization", entry_data(permit.id), entry_id),
                               create("inspection", inspection_data(permit.id, entry_id), inspection_id)])
        assert [r["status"] for r in results] == ["applied", "applied"]
        records[permit.id] = {"entry_authorization": entry_id, "inspection": inspection_id}
    return {"other_permit": other_permit, "other_applicant": other_applicant,
            "other_inspector": other_inspector, "records": records}


def _keys(changes) -> set[tuple[str, str]]:
    return {(c["entity"], c["id"]) for c in changes}


def _unassign(site, inspector) -> None:
    permit = db.session.get(type(site.permit), site.permit.id)
    permit_services.unassign_inspector(permit, inspector.id, site.supervisor)
    db.session.commit()


def test_supervisor_gets_everything(site, town):
    keys = _keys(site.tablet(site.supervisor).sync_down())
    for permit_id, records in town["records"].items():
        assert ("permit", permit_id) in keys
        assert {(e, i) for e, i in records.items()} <= keys
    assert sum(1 for e, _ in keys if e == "assignment") == 2


def test_inspector_gets_the_permit_list_and_only_assigned_sites_in_full(site, town):
    keys = _keys(site.tablet().sync_down())
    mine, theirs = town["records"][site.permit.id], town["records"][town["other_permit"].id]
    assert ("permit", site.permit.id) in keys and ("permit", town["other_permit"].id) in keys
    assert {(e, i) for e, i in mine.items()} <= keys
    assert not {(e, i) for e, i in theirs.items()} & keys
    assignments = [i for e, i in keys if e == "assignment"]
    assert assignments == [site.permit.assignments[0].id]


def test_applicant_gets_own_permits_and_their_records_only(site, town):
    tablet = site.tablet(site.applicant)
    changes = tablet.sync_down()
    keys = _keys(changes)
    mine = town["records"][site.permit.id]
    assert ("permit", site.permit.id) in keys and ("permit", town["other_permit"].id) not in keys
    assert ("entry_authorization", mine["entry_authorization"]) in keys
    # A draft inspection is the inspector's working copy: the domain keeps it from applicants.
    assert ("inspection", mine["inspection"]) not in keys
    assert not any(e == "assignment" for e, _ in keys)
    assert all(c["data"]["permit_id"] == site.permit.id for c in changes if c["entity"] != "permit")


def test_admin_pulls_no_record_content(site, town, factory):
    admin = factory.user("admin")
    page = site.tablet(admin).pull_page()
    assert page["changes"] == [] and page["has_more"] is False


def test_assignment_removed_takes_the_site_off_the_device_and_back(site, town):
    tablet = site.tablet()
    tablet.sync_down()
    mine = town["records"][site.permit.id]
    assert tablet.ids("inspection") == {mine["inspection"]}
    _unassign(site, site.inspector)
    changes = tablet.sync_down()
    ops = {(c["entity"], c["id"]): c["op"] for c in changes}
    assert ops[("entry_authorization", mine["entry_authorization"])] == "delete"
    assert ops[("inspection", mine["inspection"])] == "delete"
    assignment = next(c for c in changes if c["entity"] == "assignment")
    assert assignment["op"] == "upsert" and assignment["data"]["removed_at"] is not None
    assert ops.get(("permit", site.permit.id)) in (None, "upsert")  # the permit stays, read-only
    assert tablet.ids("inspection") == set() and tablet.ids("entry_authorization") == set()
    assert ("permit", site.permit.id) in tablet.held
    # Records made on the site after the removal never reach the device.
    supervisor = site.tablet(site.supervisor)
    supervisor.push([edit("entry_authorization", mine["entry_authorization"], 1, {"notes": "after"})])
    assert not {("entry_authorization", mine["entry_authorization"])} & _keys(tablet.sync_down())
    # Assigned again: the site's records come back in their current state.
    site.factory.assign(db.session.get(type(site.permit), site.permit.id), site.inspector)
    back = {(c["entity"], c["id"]): c for c in tablet.sync_down()}
    assert back[("entry_authorization", mine["entry_authorization"])]["data"]["notes"] == "after"
    assert back[("inspection", mine["inspection"])]["op"] == "upsert"
    assert tablet.ids("inspection") == {mine["inspection"]}


def test_a_large_removal_is_spread_over_pages(site, town):
    tablet = site.tablet()
    many = [create("entry_authorization", entry_data(site.permit.id)) for _ in range(12)]
    assert {r["status"] for r in tablet.push(many)} == {"applied"}
    tablet.sync_down()
    assert len(tablet.ids("entry_authorization")) == 13
    _unassign(site, site.inspector)
    seen = tablet.sync_down(limit=4)
    assert len(seen) >= 15 and tablet.ids("entry_authorization") == set() and tablet.ids("inspection") == set()
    site.factory.assign(db.session.get(type(site.permit), site.permit.id), site.inspector)
    tablet.sync_down(limit=1)
    assert len(tablet.ids("entry_authorization")) == 13 and len(tablet.ids("inspection")) == 1


def test_first_sync_after_removal_needs_no_deletions(site, town):
    _unassign(site, site.inspector)
    changes = site.tablet().sync_down()
    assert all(c["op"] == "upsert" for c in changes)
    assert not any(c["entity"] in ("entry_authorization", "inspection") for c in changes)
