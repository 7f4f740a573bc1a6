"""Conflicts surfaced to their author and supervisors, resolved explicitly through the update service."""
from __future__ import annotations

import pytest

from inspect_api.entry.models import EntryAuthorization
from inspect_api.extensions import db

from .conftest import API, edit


@pytest.fixture
def conflict(site):
    """Two devices edit the same authorization from version 1; the second push is a conflict."""
    first, second = site.tablet(), site.tablet()
    record_id = site.new_entry(first)
    assert first.push([edit("entry_authorization", record_id, 1, {"notes": "from A", "granted_by_name": "Pat O."})])[0][
        "status"] == "applied"
    result = second.push([edit("entry_authorization", record_id, 1, {"notes": "from B", "granted_by_relation": "tenant"})])[0]
    assert result["status"] == "conflict"
    return {"id": result["conflict_id"], "record_id": record_id, "tablet": second}


def _get(site, user, path, **kw):
    response = site.client.get(f"{API}{path}", headers=site.headers(user), **kw)
    return response.status_code, response.get_json()


def _resolve(site, user, conflict_id, body):
    response = site.client.post(f"{API}/sync/conflicts/{conflict_id}/resolve", json=body, headers=site.headers(user))
    return response.status_code, response.get_json()


def test_conflict_holds_both_versions_and_the_differing_fields(site, conflict):
    status, body = _get(site, site.inspector, f"/sync/conflicts/{conflict['id']}")
    assert status == 200
    assert body["entity"] == "entry_authorization" and body["record_id"] == conflict["record_id"]
    assert body["permit_id"] == site.permit.id and body["status"] == "open" and body["resolution"] is None
    assert body["device_version"] == {"base_version": 1, "data": {"notes": "from B", "granted_by_relation": "tenant"}}
    assert body["server_version"]["version"] == 2 and body["server_version"]["data"]["notes"] == "from A"
    assert body["fields"] == ["granted_by_relation", "notes"]
    assert body["device_id"] == conflict["tablet"].device_id and body["user_id"] == site.inspector.id


def test_listing_is_scoped_and_filterable(site, conflict, factory):
    status, mine = _get(site, site.inspector, "/sync/conflicts")
    assert status == 200 and [c["id"] for c in mine] == [conflict["id"]]
    assert _get(site, site.supervisor, "/sync/conflicts", query_string={"status": "open"})[1][0]["id"] == conflict["id"]
    assert _get(site, site.supervisor, "/sync/conflicts", query_string={"status": "resolved"})[1] == []
    other = factory.user("inspector")
    assert _get(site, other, "/sync/conflicts")[1] == []
    status, body = _get(site, other, f"/sync/conflicts/{conflict['id']}")
    assert status == 404 and body["error"] == "not_found"
    admin = factory.user("admin")
    status, body = _get(site, admin, "/sync/conflicts")
    assert status == 403 and body["error"] == "forbidden"


def test_keep_server_changes_nothing(site, conflict):
    status, body = _resolve(site, site.inspector, conflict["id"], {"resolution": "keep_server"})
    assert status == 200 and body["status"] == "resolved" and body["resolution"] == "keep_server"
    assert body["resolved_by"] == site.inspector.id and body["resolved_version"] == 2
    assert body["record"]["notes"] == "from A"
    assert db.session.get(EntryAuthorization, conflict["record_id"]).version == 2
    status, again = _resolve(site, site.inspector, conflict["id"], {"resolution": "take_device"})
    assert status == 409 and again["error"] == "conflict_resolved"


def test_take_device_applies_the_devices_differing_fields(site, conflict):
    status, body = _resolve(site, site.supervisor, conflict["id"], {"resolution": "take_device"})
    assert status == 200 and body["resolved_version"] == 3 and body["resolved_by"] == site.supervisor.id
    record = db.session.get(EntryAuthorization, conflict["record_id"])
    db.session.refresh(record)
    assert (record.notes, record.granted_by_relation, record.granted_by_name) == ("from B", "tenant", "Pat O.")
    assert body["record"]["version"] == 3


def test_merge_applies_the_merged_fields(site, conflict):
    status, body = _resolve(site, site.inspector, conflict["id"],
                            {"resolution": "merge", "data": {"notes": "from A and B"}})
    assert status == 200 and body["record"]["notes"] == "from A and B" and body["resolved_version"] == 3
    status, body = _resolve(site, site.inspector, conflict["id"], {"resolution": "merge"})
    assert status == 409  # already resolved


def test_merge_needs_data_and_valid_fields(site, conflict):
    status, body = _resolve(site, site.inspector, conflict["id"], {"resolution": "merge"})
    assert status == 422 and body["errors"] == {"data": ["Required for merge."]}
    status, body = _resolve(site, site.inspector, conflict["id"], {"resolution": "merge", "data": {"scope": ["x"]}})
    assert status == 422 and body["error"] == "validation_error" and "scope" in body["errors"]


def test_resolving_against_a_record_that_moved_again_is_a_version_conflict(site, conflict):
    site.tablet(site.supervisor).push([edit("entry_authorization", conflict["record_id"], 2, {"notes": "C"})])
    status, body = _resolve(site, site.inspector, conflict["id"], {"resolution": "take_device"})
    assert status == 409 and body["error"] == "version_conflict"
    assert body["errors"]["current"]["notes"] == "C" and body["errors"]["current"]["version"] == 3
    status, body = _resolve(site, site.inspector, conflict["id"], {"resolution": "take_device", "version": 3})
    assert status == 200 and body["record"]["notes"] == "from B" and body["resolved_version"] == 4


def test_another_inspector_cannot_resolve(site, conflict, factory):
    other = factory.user("inspector")
    status, body = _resolve(site, other, conflict["id"], {"resolution": "keep_server"})
    assert status == 404 and body["error"] == "not_found"
