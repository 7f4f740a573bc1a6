"""Who may upload and see which photo: applicants only their own permits; probing answers 404."""
from __future__ import annotations

import uuid

import pytest

from .helpers import jpeg, put_photo


@pytest.fixture
def owner(factory):
    return factory.as_role("applicant")


@pytest.fixture
def uploaded(client, factory, owner):
    permit = factory.permit(applicant=owner[0])
    r = put_photo(client, owner[1], permit.id, jpeg())
    assert r.status_code == 201
    return permit, r.get_json()


@pytest.mark.parametrize("suffix", ["", "/original", "/thumbnail", "/thumbnail?size=small"])
def test_another_applicant_probing_a_photo_gets_404(client, factory, uploaded, suffix):
    _other, headers = factory.as_role("applicant")
    r = client.get(f"/api/v1/photos/{uploaded[1]['id']}{suffix}", headers=headers)
    assert r.status_code == 404
    assert r.get_json() == {"code": 404, "status": "Not Found", "message": "No such photo.", "error": "not_found",
                            "errors": {}}


def test_probe_looks_like_a_missing_photo(client, factory, uploaded):
    _other, headers = factory.as_role("applicant")
    seen = client.get(f"/api/v1/photos/{uploaded[1]['id']}", headers=headers)
    missing = client.get(f"/api/v1/photos/{uuid.uuid4()}", headers=headers)
    assert seen.status_code == missing.status_code == 404 and seen.get_json() == missing.get_json()


def test_applicant_cannot_upload_to_anothers_permit(client, factory, uploaded):
    _other, headers = factory.as_role("applicant")
    r = put_photo(client, headers, uploaded[0].id, jpeg())
    assert r.status_code == 404 and r.get_json()["message"] == "No such permit."


def test_applicant_cannot_replay_anothers_photo_id(client, factory, uploaded):
    other, headers = factory.as_role("applicant")
    own_permit = factory.permit(applicant=other)
    r = put_photo(client, headers, own_permit.id, jpeg(), photo_id=uploaded[1]["id"])
    assert r.status_code == 404 and r.get_json()["message"] == "No such photo."


@pytest.mark.parametrize("role", ["inspector", "supervisor"])
def test_staff_see_and_upload(client, factory, uploaded, role):
    user, headers = factory.as_role(role)
    r = client.get(f"/api/v1/photos/{uploaded[1]['id']}", headers=headers)
    assert r.status_code == 200 and r.get_json() == uploaded[1]
    if role == "inspector":  # field records take photos from the inspectors assigned to the site
        factory.assign(uploaded[0], user)
    up = put_photo(client, headers, uploaded[0].id, jpeg((70, 50)), parent_type="finding", parent_id=str(uuid.uuid4()))
    assert up.status_code == 201 and up.get_json()["parent_type"] == "finding"


def test_admin_sees_no_photo(client, factory, uploaded):
    _admin, headers = factory.as_role("admin")
    assert client.get(f"/api/v1/photos/{uploaded[1]['id']}", headers=headers).status_code == 404


def test_unauthenticated_is_401(client, uploaded):
    r = client.get(f"/api/v1/photos/{uploaded[1]['id']}/original")
    assert r.status_code == 401 and r.get_json()["error"] == "unauthorized"


def test_list_by_parent(client, factory, owner, uploaded):
    parent = str(uuid.uuid4())
    r = put_photo(client, owner[1], uploaded[0].id, jpeg((66, 44)), parent_type="completion_notice", parent_id=parent)
    listed = client.get("/api/v1/photos", query_string={"parent_type": "completion_notice", "parent_id": parent},
                        headers=owner[1])
    assert listed.status_code == 200 and listed.get_json() == [r.get_json()]
    _other, headers = factory.as_role("applicant")
    assert client.get("/api/v1/photos", headers=headers).get_json() == []


def test_thumbnail_size_is_validated(client, owner, uploaded):
    r = client.get(f"/api/v1/photos/{uploaded[1]['id']}/thumbnail?size=huge", headers=owner[1])
    assert r.status_code == 422 and "size" in r.get_json()["errors"]
