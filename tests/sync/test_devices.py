"""The device registry: known devices, unsent work, and revocation that kills the device's tokens."""
from __future__ import annotations

from .conftest import API, create, entry_data


def _devices(site, user, **query):
    response = site.client.get(f"{API}/devices", query_string=query, headers=site.headers(user))
    return response.status_code, response.get_json()


def test_push_and_pull_register_the_device(site):
    tablet = site.tablet()
    tablet.push([], app_version="1.4.2", pending_count=7)
    status, devices = _devices(site, site.supervisor)
    assert status == 200 and [d["id"] for d in devices] == [tablet.device_id]
    device = devices[0]
    assert device["user_id"] == site.inspector.id and device["app_version"] == "1.4.2"
    assert device["pending_count"] == 7 and device["last_push_at"] and device["last_pull_at"] is None
    assert device["revoked_at"] is None and device["first_seen"]
    tablet.sync_down()
    _, devices = _devices(site, site.supervisor)
    assert devices[0]["last_pull_at"] is not None and devices[0]["pending_count"] == 7


def test_supervisor_sees_which_devices_hold_unsent_work(site, factory):
    busy, idle = site.tablet(), site.tablet(site.applicant)
    busy.push([], pending_count=3)
    idle.push([], pending_count=0)
    _, pending = _devices(site, site.supervisor, pending="true")
    assert [d["id"] for d in pending] == [busy.device_id]
    _, clear = _devices(site, site.supervisor, pending="false")
    assert [d["id"] for d in clear] == [idle.device_id]
    status, own = _devices(site, site.applicant)
    assert status == 200 and [d["id"] for d in own] == [idle.device_id]
    response = site.client.get(f"{API}/devices/{busy.device_id}", headers=site.headers(site.applicant))
    assert response.status_code == 404 and response.get_json()["error"] == "not_found"


def test_revoke_kills_the_devices_tokens_and_refuses_its_syncs(site, factory):
    tablet = site.tablet()
    login = factory.login(site.inspector, device_id=tablet.device_id)
    access = {"Authorization": f"Bearer {login['access_token']}"}
    refresh = {"Authorization": f"Bearer {login['refresh_token']}"}
    tablet.push([create("entry_authorization", entry_data(site.permit.id))])
    other_device = site.tablet()
    other_device.push([])

    response = site.client.post(f"{API}/devices/{tablet.device_id}/revoke", headers=site.headers(site.inspector))
    assert response.status_code == 403 and response.get_json()["error"] == "forbidden"
    response = site.client.post(f"{API}/devices/{tablet.device_id}/revoke", headers=site.headers(site.supervisor))
    body = response.get_json()
    assert response.status_code == 200 and body["revoked_at"] and body["revoked_by"] == site.supervisor.id

    for headers in (tablet.headers, access):
        response = site.client.get(f"{API}/me", headers=headers)
        assert response.status_code == 401 and response.get_json()["error"] == "token_revoked"
    response = site.client.post(f"{API}/auth/refresh", headers=refresh)
    assert response.status_code == 401 and response.get_json()["error"] == "token_revoked"
    # Signing in again on the revoked device gives a token, but the device may not sync.
    fresh = {"Authorization": f"Bearer {factory.login(site.inspector, device_id=tablet.device_id)['access_token']}"}
    response = site.client.post(f"{API}/sync/push", json={"device_id": tablet.device_id, "mutations": []},
                                headers=fresh)
    assert response.status_code == 403 and response.get_json()["error"] == "device_revoked"
    response = site.client.get(f"{API}/sync/pull", headers={**fresh, "X-Device-Id": tablet.device_id})
    assert response.status_code == 403 and response.get_json()["error"] == "device_revoked"
    # Other devices of the same inspector keep working.
    assert other_device.push([]) == []


def test_admin_may_revoke_a_device_known_only_from_its_sign_in(site, factory):
    admin = factory.user("admin")
    factory.headers(site.inspector, device_id="phone-1")
    response = site.client.post(f"{API}/devices/phone-1/revoke", headers=site.headers(admin))
    assert response.status_code == 200 and response.get_json()["user_id"] == site.inspector.id
    response = site.client.post(f"{API}/devices/unknown/revoke", headers=site.headers(admin))
    assert response.status_code == 404 and response.get_json()["error"] == "not_found"
