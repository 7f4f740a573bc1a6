"""Device attribution cannot be spoofed (DOMAIN.md "Evidence"): a record's device is evidence of where it
was made, so no account may name, or take over, another account's tablet."""
from __future__ import annotations

import uuid

from inspect_api.extensions import db
from inspect_api.permits.models import Permit
from inspect_api.auth.models import Device
from tests.factories import PASSWORD

from ..permits.conftest import assert_error

API = "/api/v1"


def _alices_tablet(client, factory, alice) -> str:
    tablet = f"tablet-{uuid.uuid4().hex[:8]}"
    r = client.get(f"{API}/sync/pull", headers=factory.headers(alice, tablet))
    assert r.status_code == 200
    assert db.session.get(Device, tablet).user_id == alice.id
    return tablet


def test_a_rest_write_naming_another_accounts_device_is_refused(client, factory):
    alice, bob = factory.user("applicant"), factory.user("applicant")
    tablet = _alices_tablet(client, factory, alice)
    body = factory.permit_payload()
    r = client.post(f"{API}/permits", json=body, headers={**factory.headers(bob), "X-Device-Id": tablet})
    error = assert_error(r, 403, "device_in_use")
    assert "another account" in error["message"]
    assert db.session.query(Permit).filter_by(applicant_id=bob.id).count() == 0
    # reading with the header, or writing from an own (or unknown) device, still works
    assert client.get(f"{API}/permits", headers={**factory.headers(bob), "X-Device-Id": tablet}).status_code == 200
    mine = f"bob-phone-{uuid.uuid4().hex[:6]}"
    r = client.post(f"{API}/permits", json=factory.permit_payload(), headers={**factory.headers(bob), "X-Device-Id": mine})
    assert r.status_code == 201
    assert db.session.get(Permit, r.get_json()["id"]).device_id == mine


def test_a_device_only_signed_in_on_is_also_protected(client, factory):
    alice, bob = factory.user("applicant"), factory.user("applicant")
    phone = f"phone-{uuid.uuid4().hex[:8]}"
    factory.login(alice, phone)  # signed in, never synced: no registry row yet
    r = client.post(f"{API}/permits", json=factory.permit_payload(), headers={**factory.headers(bob), "X-Device-Id": phone})
    assert_error(r, 403, "device_in_use")


def test_signing_in_with_another_accounts_device_id_gives_a_new_device(client, factory):
    alice, bob = factory.user("inspector"), factory.user("inspector")
    tablet = _alices_tablet(client, factory, alice)
    r = client.post(f"{API}/auth/login", json={"email": bob.email, "password": PASSWORD, "device_id": tablet})
    assert r.status_code == 200
    session = r.get_json()
    assert session["device_id"] not in (None, tablet)
    bob_headers = {"Authorization": f"Bearer {session['access_token']}"}
    # Bob's sync registers his own new device; Alice's stays hers
    assert client.get(f"{API}/sync/pull", headers=bob_headers).status_code == 200
    db.session.expire_all()
    assert db.session.get(Device, tablet).user_id == alice.id
    assert db.session.get(Device, session["device_id"]).user_id == bob.id
    # and Bob cannot push as Alice's tablet, token or not
    r = client.post(f"{API}/sync/push", json={"device_id": tablet, "mutations": []}, headers=bob_headers)
    assert_error(r, 403, "device_in_use")
    db.session.expire_all()
    assert db.session.get(Device, tablet).user_id == alice.id
    # Alice signing in again on her tablet keeps its id
    r = client.post(f"{API}/auth/login", json={"email": alice.email, "password": PASSWORD, "device_id": tablet})
    assert r.get_json()["device_id"] == tablet
