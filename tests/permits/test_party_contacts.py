"""A party's contact details (mailing address, e-mail, phone) are for supervisors and the inspectors
assigned to that permit or case (R-O0), not for every inspector who may read the permit. An
applicant sees what they entered themselves (the owner they named, their own party). GET, the list,
the parties route and a device's pull answer the same; a tablet that held them before an
unassignment, or before this rule, receives them withheld on its next pull."""
from __future__ import annotations

import base64
import json

import pytest

from inspect_api.sync import rules as sync_rules

API = "/api/v1"
VIOLATOR = {"role": "violator", "name": "Vic Tor", "mailing_address": "9 Elm St, New Bedford, MA",
            "email": "vic@example.org", "phone": "508-555-0199"}
CONTACTS = ("mailing_address", "email", "phone")


def _pull(client, factory, user, device: str, cursor: str | None = None) -> tuple[dict, str]:
    headers = {**factory.headers(user, device_id=device), "X-Device-Id": device}
    r = client.get(f"{API}/sync/pull", headers=headers, query_string={"cursor": cursor} if cursor else {})
    assert r.status_code == 200, r.get_json()
    body = r.get_json()
    return {c["id"]: c["data"] for c in body["changes"] if c["entity"] == "permit"}, body["cursor"]


def _views(client, factory, user, headers, permit_id: str) -> list[dict]:
    """The permit as GET, the list and a first pull give it to `user`."""
    got = client.get(f"{API}/permits/{permit_id}", headers=headers)
    assert got.status_code == 200, got.get_json()
    (listed,) = [p for p in client.get(f"{API}/permits", headers=headers).get_json() if p["id"] == permit_id]
    pulled, _cursor = _pull(client, factory, user, f"tab-{user.id[:8]}")
    return [got.get_json(), listed, pulled[permit_id]]


def _violator(view: dict) -> dict:
    (party,) = [p for p in view["parties"] if p["role"] == "violator"]
    return party


@pytest.fixture
def case(client, factory):
    """An application with an applicant, its owner, and a violator a supervisor named."""
    applicant, app_h = factory.as_role("applicant")
    _sup, sup_h = factory.as_role("supervisor")
    permit = client.post(f"{API}/permits", json=factory.permit_payload(), headers=app_h).get_json()
    r = client.post(f"{API}/permits/{permit['id']}/parties", json=VIOLATOR, headers=sup_h)
    assert r.status_code == 201, r.get_json()
    return {"permit": permit, "applicant": applicant, "app_h": app_h, "sup_h": sup_h}


def test_an_unassigned_inspector_reads_the_permit_without_contacts(client, factory, case):
    inspector, insp_h = factory.as_role("inspector")
    permit_id = case["permit"]["id"]
    for view in _views(client, factory, inspector, insp_h, permit_id):
        violator = _violator(view)
        assert violator["name"] == "Vic Tor" and violator["contact_withheld"] is True
        assert all(violator[k] is None for k in CONTACTS), violator
        assert view["owner"] == {"name": "Pat Owner", "email": None, "phone": None, "contact_withheld": True}
        assert "vic@example.org" not in json.dumps(view) and "508-555-01" not in json.dumps(view)
    r = client.get(f"{API}/permits/{permit_id}/parties", headers=insp_h)
    assert r.status_code == 200
    assert all(p["contact_withheld"] and all(p[k] is None for k in CONTACTS) for p in r.get_json())


def test_an_assigned_inspector_and_a_supervisor_see_the_contacts(client, factory, case):
    inspector, insp_h = factory.as_role("inspector")
    permit_id = case["permit"]["id"]
    r = client.post(f"{API}/permits/{permit_id}/assignments", json={"inspector_id": inspector.id},
                    headers=case["sup_h"])
    assert r.status_code == 201, r.get_json()
    supervisor_view = client.get(f"{API}/permits/{permit_id}", headers=case["sup_h"]).get_json()
    for view in [*_views(client, factory, inspector, insp_h, permit_id), supervisor_view]:
        violator = _violator(view)
        assert violator["contact_withheld"] is False
        assert {k: violator[k] for k in CONTACTS} == {k: VIOLATOR[k] for k in CONTACTS}
        assert view["owner"] == {"name": "Pat Owner", "email": "owner@example.org", "phone": "508-555-0100",
                                 "contact_withheld": False}
    parties = client.get(f"{API}/permits/{permit_id}/parties", headers=insp_h).get_json()
    assert {p["role"]: p["email"] for p in parties}["violator"] == "vic@example.org"


def test_the_applicant_sees_what_they_entered_and_not_the_violators_contacts(client, factory, case):
    permit_id = case["permit"]["id"]
    for view in _views(client, factory, case["applicant"], case["app_h"], permit_id):
        assert view["owner"]["email"] == "owner@example.org" and view["owner"]["contact_withheld"] is False
        roles = {p["role"]: p for p in view["parties"]}
        assert roles["owner"]["email"] == "owner@example.org" and roles["owner"]["contact_withheld"] is False
        assert roles["applicant"]["email"] == case["applicant"].email
        assert roles["violator"]["contact_withheld"] is True and roles["violator"]["email"] is None
    # A contractor linked to the permit sees their own party's details, nobody else's.
    contractor, con_h = factory.as_role("applicant")
    r = client.post(f"{API}/permits/{permit_id}/parties", headers=case["sup_h"], json={
        "role": "contractor", "name": "Dig Co", "email": contractor.email, "phone": "508-555-0111",
        "user_id": contractor.id})
    assert r.status_code == 201, r.get_json()
    view = client.get(f"{API}/permits/{permit_id}", headers=con_h).get_json()
    roles = {p["role"]: p for p in view["parties"]}
    assert roles["contractor"]["phone"] == "508-555-0111" and roles["contractor"]["contact_withheld"] is False
    assert roles["owner"]["email"] is None and roles["violator"]["email"] is None
    assert view["owner"]["email"] is None and view["owner"]["contact_withheld"] is True


def test_a_tablet_receives_the_contacts_withheld_after_its_inspector_is_unassigned(client, factory, case):
    inspector, _h = factory.as_role("inspector")
    permit_id = case["permit"]["id"]
    client.post(f"{API}/permits/{permit_id}/assignments", json={"inspector_id": inspector.id}, headers=case["sup_h"])
    held, cursor = _pull(client, factory, inspector, "tab-1")
    assert _violator(held[permit_id])["email"] == "vic@example.org"
    r = client.delete(f"{API}/permits/{permit_id}/assignments/{inspector.id}", headers=case["sup_h"])
    assert r.status_code in (200, 204), r.get_json()
    again, _cursor = _pull(client, factory, inspector, "tab-1", cursor)
    assert _violator(again[permit_id])["email"] is None
    assert again[permit_id]["owner"]["contact_withheld"] is True


def test_a_cursor_from_before_the_rule_makes_the_tablet_pull_everything_again(client, factory, app, case):
    """Devices synced before contacts were withheld hold them for every permit: their cursors are of
    the older format, and the answer sends them back to a full pull, which withholds them."""
    inspector, _h = factory.as_role("inspector")
    _held, cursor = _pull(client, factory, inspector, "tab-2")
    payload = json.loads(base64.urlsafe_b64decode(cursor.split(".")[0] + "=="))
    payload["v"] = sync_rules.CURSOR_FORMAT - 1
    old = base64.urlsafe_b64encode(json.dumps(payload, separators=(",", ":")).encode()).rstrip(b"=").decode()
    old_cursor = f"{old}.{sync_rules._signature(old, app.config['SECRET_KEY'].encode('utf-8'))}"
    headers = {**factory.headers(inspector, device_id="tab-2"), "X-Device-Id": "tab-2"}
    r = client.get(f"{API}/sync/pull", headers=headers, query_string={"cursor": old_cursor})
    assert r.status_code == 410, r.get_json()
    assert r.get_json()["error"] == "cursor_expired"
    assert "again without a cursor" in r.get_json()["message"]
    # The cursor of today's format still works.
    r = client.get(f"{API}/sync/pull", headers=headers, query_string={"cursor": cursor})
    assert r.status_code == 200, r.get_json()
