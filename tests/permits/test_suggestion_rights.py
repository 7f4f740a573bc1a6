"""What a permit says of other permits (R-A7's other applications on the parcel, R-O0's enforcement
case) is shown as the viewer may see those permits: staff every id, an applicant the ids of permits
they may see and one "other" for any they may not, and a case only when they are named on it.
GET, the list, a create, a PATCH and a device's pull all answer the same."""
from __future__ import annotations

from inspect_api.extensions import db
from inspect_api.permits.models import Party, Permit

API = "/api/v1"
SITE = {"address": "77 Sconticut Neck Rd, Fairhaven, MA", "parcel_id": "33-101", "location": {"lat": 41.6, "lon": -70.88}}


def _pulled_permit(client, factory, user, permit_id: str) -> dict:
    headers = {**factory.headers(user, device_id="phone-9"), "X-Device-Id": "phone-9"}
    r = client.get(f"{API}/sync/pull", headers=headers)
    assert r.status_code == 200, r.get_json()
    (change,) = [c for c in r.get_json()["changes"] if c["entity"] == "permit" and c["id"] == permit_id]
    return change["data"]


def _views(client, factory, user, headers, permit_id: str) -> list[dict]:
    """The permit as GET, the list and a device's pull give it to `user`."""
    got = client.get(f"{API}/permits/{permit_id}", headers=headers)
    assert got.status_code == 200, got.get_json()
    listed = [p for p in client.get(f"{API}/permits", headers=headers).get_json() if p["id"] == permit_id]
    return [got.get_json(), *listed, _pulled_permit(client, factory, user, permit_id)]


def test_another_applicants_application_on_the_parcel_is_only_other(client, factory):
    first, first_h = factory.as_role("applicant")
    second, second_h = factory.as_role("applicant")
    _sup, sup_h = factory.as_role("supervisor")
    one = client.post(f"{API}/permits", json=factory.permit_payload(site=SITE), headers=first_h).get_json()
    r = client.post(f"{API}/permits", json=factory.permit_payload(site=SITE), headers=second_h)
    assert r.status_code == 201, r.get_json()
    two = r.get_json()
    assert two["parcel_flag"] == ["other"]
    for view in _views(client, factory, second, second_h, two["id"]):
        assert view["parcel_flag"] == ["other"]
    # An edit answers the same, and the answer sent back as it was is no edit of a read-only field.
    r = client.patch(f"{API}/permits/{two['id']}", json={**{k: two[k] for k in ("parcel_flag", "case_id")},
                                                        "description": "Garage too", "version": two["version"]},
                     headers=second_h)
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["parcel_flag"] == ["other"] and one["id"] not in str(r.get_json())
    # The first applicant is told of the second in the same words; staff see the ids.
    assert client.get(f"{API}/permits/{one['id']}", headers=first_h).get_json()["parcel_flag"] == ["other"]
    assert client.get(f"{API}/permits/{two['id']}", headers=sup_h).get_json()["parcel_flag"] == [one["id"]]
    assert client.get(f"{API}/permits/{one['id']}", headers=sup_h).get_json()["parcel_flag"] == [two["id"]]


def test_an_application_the_applicant_may_see_is_named(client, factory):
    first, first_h = factory.as_role("applicant")
    second, second_h = factory.as_role("applicant")
    one = client.post(f"{API}/permits", json=factory.permit_payload(site=SITE), headers=first_h).get_json()
    other = client.post(f"{API}/permits", json=factory.permit_payload(site=SITE), headers=first_h).get_json()
    # The second applicant is the contractor on the first one's application: they may see that one.
    db.session.add(Party(permit_id=one["id"], role="contractor", name="Dig Co", user_id=second.id))
    db.session.commit()
    two = client.post(f"{API}/permits", json=factory.permit_payload(site=SITE), headers=second_h).get_json()
    assert two["parcel_flag"] == [one["id"], "other"]
    for view in _views(client, factory, second, second_h, two["id"]):
        assert view["parcel_flag"] == [one["id"], "other"]
    # The first applicant sees their own application, and not the contractor's.
    assert client.get(f"{API}/permits/{other['id']}", headers=first_h).get_json()["parcel_flag"] == [one["id"], "other"]


def test_an_enforcement_case_on_the_site_is_not_named_to_the_applicant(client, factory):
    applicant, app_h = factory.as_role("applicant")
    _sup, sup_h = factory.as_role("supervisor")
    case = client.post(f"{API}/permits", headers=sup_h, json=factory.permit_payload(
        site=SITE, proposed_use="unpermitted clearing", parties=[{"role": "violator", "name": "Vic Tor"}])).get_json()
    assert case["status"] == "unpermitted"
    r = client.post(f"{API}/permits", json=factory.permit_payload(site={**SITE, "address": "77 Sconticut Neck Road"}),
                    headers=app_h)
    assert r.status_code == 201, r.get_json()
    application = r.get_json()
    assert application["case_id"] is None and case["id"] not in str(application)
    for view in _views(client, factory, applicant, app_h, application["id"]):
        assert view["case_id"] is None
    # The link is made and staff see it.
    db.session.expire_all()
    assert db.session.get(Permit, application["id"]).case_id == case["id"]
    assert client.get(f"{API}/permits/{application['id']}", headers=sup_h).get_json()["case_id"] == case["id"]
    # Named on the case as a party, the applicant may see the case, and so its id.
    violator = next(p for p in case["parties"] if p["role"] == "violator")
    r = client.patch(f"{API}/permits/{case['id']}/parties/{violator['id']}",
                     json={"user_id": applicant.id, "version": violator["version"]}, headers=sup_h)
    assert r.status_code == 200, r.get_json()
    for view in _views(client, factory, applicant, app_h, application["id"]):
        assert view["case_id"] == case["id"]
