"""Samples through the API (R-S1, R-S3, R-E2): shape, idempotency, versions, units, entry and access."""
from __future__ import annotations

import json
import uuid
from datetime import datetime, timedelta, timezone

import pytest

from inspect_api.audit import AuditEntry
from inspect_api.extensions import db

from .conftest import T0, make_authorization, sample_body

URL = "/api/v1/samples"


def test_create_returns_the_record(site, client):
    body = sample_body(site, location={"lat": 41.6376, "lon": -70.9036}, analysis="lab", lab_name="Bay Labs",
                       parameters=[{"name": "TSS", "value": 1.25, "unit": "g/L", "method": "SM 2540 D"}],
                       chain_of_custody=[{"from_name": "Dana Field", "to_name": "Courier",
                                          "at": "2026-05-04T10:30:00-04:00"}],
                       notes="Downstream of the silt fence", device_created_at="2026-05-04T13:01:00Z")
    r = client.post(URL, json=body, headers=site.headers)
    assert r.status_code == 201, r.get_json()
    got = r.get_json()
    assert got["id"] == body["id"] and got["version"] == 1 and got["created_by"] == site.inspector.id
    assert got["permit_id"] == site.permit.id and got["entry_authorization_id"] == site.auth.id
    assert got["sampled_at"] == "2026-05-04T13:00:00+00:00" and got["device_created_at"] == "2026-05-04T13:01:00+00:00"
    assert got["location"] == {"lat": 41.6376, "lon": -70.9036} and got["outfall_id"] == "OF-1"
    assert got["parameters"] == [{"name": "tss", "value": 1.25, "unit": "g/L", "method": "SM 2540 D",
                                  "normalized_value": 1250.0, "normalized_unit": "mg/L"}]
    assert got["chain_of_custody"] == [{"from_name": "Dana Field", "to_name": "Courier",
                                        "at": "2026-05-04T14:30:00+00:00", "signature_photo_id": None}]
    assert got["exceedances"] == [] and got["finding_ids"] == []
    assert got["holding_time"][0]["parameter"] == "tss" and got["holding_time"][0]["limit"] == "P7D"
    assert got["holding_time"][0]["analyzed"] is False
    audit = db.session.query(AuditEntry).filter_by(record_id=body["id"], action="sample.create").one()
    assert audit.actor_id == site.inspector.id and audit.permit_id == site.permit.id


def test_instants_sent_with_an_offset_answer_in_utc_as_every_later_read_does(site, client):
    """The answer to a write is the record as it will read from then on: an instant sent in the Town's
    own offset comes back in UTC at once, as GET and the list give it, not in the offset it was sent in."""
    body = sample_body(site, sampled_at="2026-05-04T09:00:00-04:00", device_created_at="2026-05-04T09:01:00-04:00",
                       analysis="lab", lab_name="Bay Labs", received_by_lab_at="2026-05-04T11:15:00-04:00",
                       lab_received_by="R. Lab", analyzed_at="2026-05-04T12:30:00-04:00")
    r = client.post(URL, json=body, headers=site.headers)
    assert r.status_code == 201, r.get_json()
    written = r.get_json()
    instants = ("sampled_at", "device_created_at", "received_by_lab_at", "analyzed_at")
    assert {key: written[key] for key in instants} == {
        "sampled_at": "2026-05-04T13:00:00+00:00", "device_created_at": "2026-05-04T13:01:00+00:00",
        "received_by_lab_at": "2026-05-04T15:15:00+00:00", "analyzed_at": "2026-05-04T16:30:00+00:00"}
    db.session.expunge_all()
    read = client.get(f"{URL}/{body['id']}", headers=site.headers).get_json()
    listed = next(s for s in client.get(URL, headers=site.headers).get_json() if s["id"] == body["id"])
    assert {key: read[key] for key in instants} == {key: listed[key] for key in instants} == \
        {key: written[key] for key in instants}


def test_server_makes_the_id_and_finds_the_authorization(site, client):
    body = sample_body(site)
    del body["id"], body["entry_authorization_id"]
    r = client.post(URL, json=body, headers=site.headers)
    assert r.status_code == 201
    assert len(r.get_json()["id"]) == 36 and r.get_json()["entry_authorization_id"] == site.auth.id


def test_same_id_same_data_is_idempotent_other_data_conflicts(site, client):
    body = sample_body(site)
    first = client.post(URL, json=body, headers=site.headers)
    again = client.post(URL, json=body, headers=site.headers)
    assert first.status_code == 201 and again.status_code == 200
    assert again.get_json() == first.get_json()
    other = client.post(URL, json={**body, "sampler": "Someone Else"}, headers=site.headers)
    assert other.status_code == 409 and other.get_json()["error"] == "conflict"


def test_ph_15_is_refused(site, client):
    r = client.post(URL, json=sample_body(site, parameters=[{"name": "ph", "value": 15, "unit": "SU"}]),
                    headers=site.headers)
    assert r.status_code == 422
    got = r.get_json()
    assert got["error"] == "validation_error"
    assert got["errors"] == {"parameters": {"0": {"value": ["15 SU is not possible: pH lies between 0 and 14 SU."]}}}
    assert client.get(URL, headers=site.headers).get_json() == []


def test_unknown_unit_names_the_allowed_ones(site, client):
    r = client.post(URL, json=sample_body(site, parameters=[{"name": "ph", "value": 7, "unit": "SU"},
                                                            {"name": "tss", "value": 7, "unit": "ppm"}]),
                    headers=site.headers)
    assert r.status_code == 422
    assert r.get_json()["errors"]["parameters"] == {
        "1": {"unit": ["Unknown unit 'ppm' for tss; use one of: mg/L, mg/l, g/L, g/l, ug/L, ug/l, \u00b5g/L, "
                       "\u00b5g/l, \u03bcg/L, \u03bcg/l."]}}


def test_nan_in_the_json_body_is_refused(site, client):
    text = json.dumps(sample_body(site, parameters=[{"name": "turbidity", "value": 1, "unit": "NTU"}]))
    text = text.replace('"value": 1', '"value": NaN')
    r = client.post(URL, data=text, content_type="application/json", headers=site.headers)
    assert r.status_code == 422
    assert r.get_json()["errors"]["parameters"]["0"]["value"] == ["Must be a finite number (not NaN or infinity)."]


def test_shape_errors(site, client):
    r = client.post(URL, json=sample_body(site, sample_type="scoop", sampled_at="2026-05-04T09:00:00",
                                          surprise=1), headers=site.headers)
    assert r.status_code == 422
    assert set(r.get_json()["errors"]) == {"sample_type", "sampled_at", "surprise"}


def test_a_sample_needs_a_place(site, client):
    r = client.post(URL, json=sample_body(site, outfall_id=None), headers=site.headers)
    assert r.status_code == 422
    assert r.get_json()["errors"] == {"location": ["Give the location, the outfall_id, or both."]}
    body = sample_body(site, location={"lat": 41.6, "lon": -70.9})
    assert client.post(URL, json=body, headers=site.headers).status_code == 201
    r = client.patch(f"{URL}/{body['id']}", json={"version": 1, "location": None, "outfall_id": None},
                     headers=site.headers)
    assert r.status_code == 422 and "location" in r.get_json()["errors"]
    r = client.patch(f"{URL}/{body['id']}", json={"version": 1, "location": None}, headers=site.headers)
    assert r.status_code == 200 and r.get_json()["location"] is None and r.get_json()["outfall_id"] == "OF-1"


def test_analysis_before_sampling_is_refused(site, client):
    r = client.post(URL, json=sample_body(site, analyzed_at=(T0 - timedelta(minutes=1)).isoformat()),
                    headers=site.headers)
    assert r.status_code == 422 and r.get_json()["errors"] == {"analyzed_at": ["Cannot be before sampled_at."]}


# Entry (R-E2) -----------------------------------------------------------------------------------

def test_no_authorization_at_all(factory, client):
    permit = factory.permit(status="active")
    inspector, headers = factory.as_role("inspector")
    factory.assign(permit, inspector)
    body = {"permit_id": permit.id, "sampled_at": T0.isoformat(), "sampler": "Dana", "sample_type": "grab",
            "analysis": "field", "outfall_id": "OF-1", "parameters": []}
    r = client.post(URL, json=body, headers=headers)
    assert r.status_code == 409
    got = r.get_json()
    assert got["error"] == "entry_not_authorized" and got["message"].startswith("No site-entry authorization covers")


def test_scope_lacking_sampling_says_so(site, client):
    examination_only = make_authorization(site.inspector, site.permit, scope=("examination",))
    r = client.post(URL, json=sample_body(site, entry_authorization_id=examination_only.id), headers=site.headers)
    assert r.status_code == 409
    got = r.get_json()
    assert got["error"] == "entry_not_authorized"
    assert got["message"] == "The site-entry authorization's scope (examination) lacks sampling."
    assert got["errors"]["reason"] == "scope"


def test_sampled_outside_the_window(site, client):
    r = client.post(URL, json=sample_body(site, sampled_at="2027-01-01T00:00:00Z"), headers=site.headers)
    assert r.status_code == 409 and r.get_json()["errors"]["reason"] == "expired"
    r = client.post(URL, json=sample_body(site, sampled_at="2025-12-31T23:59:59Z"), headers=site.headers)
    assert r.status_code == 409 and r.get_json()["errors"]["reason"] == "not_yet_valid"


def test_authorization_of_another_site(site, factory, client):
    other = factory.permit(status="active")
    factory.assign(other, site.inspector)
    foreign = make_authorization(site.inspector, other)
    r = client.post(URL, json=sample_body(site, entry_authorization_id=foreign.id), headers=site.headers)
    assert r.status_code == 409 and r.get_json()["errors"]["reason"] == "other_site"


def test_moving_sampled_at_out_of_the_window_is_refused(site, client):
    created = client.post(URL, json=sample_body(site), headers=site.headers).get_json()
    r = client.patch(f"{URL}/{created['id']}", json={"version": 1, "sampled_at": "2027-02-01T12:00:00Z"},
                     headers=site.headers)
    assert r.status_code == 409 and r.get_json()["error"] == "entry_not_authorized"
    assert client.get(f"{URL}/{created['id']}", headers=site.headers).get_json()["sampled_at"] == created["sampled_at"]


# Roles and visibility ---------------------------------------------------------------------------

def test_applicants_may_not_create_samples(site, client):
    r = client.post(URL, json=sample_body(site), headers=site.applicant_headers)
    assert r.status_code == 403 and r.get_json()["error"] == "forbidden"


def test_unassigned_inspector_is_refused(site, factory, client):
    _, headers = factory.as_role("inspector")
    r = client.post(URL, json=sample_body(site), headers=headers)
    assert r.status_code == 403 and "not assigned" in r.get_json()["message"]


def test_applicant_sees_own_but_never_anothers_samples(site, factory, client):
    created = client.post(URL, json=sample_body(site), headers=site.headers).get_json()
    own = client.get(f"{URL}/{created['id']}", headers=site.applicant_headers)
    assert own.status_code == 200 and own.get_json()["id"] == created["id"]
    _, stranger = factory.as_role("applicant")
    probe = client.get(f"{URL}/{created['id']}", headers=stranger)
    assert probe.status_code == 404 and probe.get_json()["error"] == "not_found"
    assert client.get(URL, headers=stranger).get_json() == []
    assert client.get(f"{URL}?permit_id={site.permit.id}", headers=stranger).get_json() == []
    weekly = client.get(f"/api/v1/permits/{site.permit.id}/turbidity-weekly", headers=stranger)
    assert weekly.status_code == 404


def test_applicants_may_not_edit_samples_either(site, factory, client):
    created = client.post(URL, json=sample_body(site), headers=site.headers).get_json()
    _, stranger = factory.as_role("applicant")
    for headers in (site.applicant_headers, stranger):
        r = client.patch(f"{URL}/{created['id']}", json={"version": 1, "notes": "x"}, headers=headers)
        assert r.status_code == 403 and r.get_json()["error"] == "forbidden"
        # Refused by role before any lookup, so the answer is the same whether the id exists or not.
        r = client.post(URL, json=sample_body(site), headers=headers)
        assert r.status_code == 403


def test_list_filters_by_permit(site, factory, client):
    client.post(URL, json=sample_body(site), headers=site.headers)
    other = factory.permit(status="active")
    factory.assign(other, site.inspector)
    auth = make_authorization(site.inspector, other)
    body = sample_body(site, permit_id=other.id, entry_authorization_id=auth.id)
    client.post(URL, json=body, headers=site.headers)
    listed = client.get(f"{URL}?permit_id={other.id}", headers=site.headers)
    assert listed.status_code == 200 and [s["id"] for s in listed.get_json()] == [body["id"]]
    assert len(client.get(URL, headers=site.headers).get_json()) == 2


# Edits ----------------------------------------------------------------------------------------

def test_patch_adds_lab_results_with_versions(site, client):
    body = sample_body(site, analysis="lab", parameters=[])
    client.post(URL, json=body, headers=site.headers)
    patch = {"parameters": [{"name": "turbidity", "value": 12, "unit": "NTU"}],
             "received_by_lab_at": "2026-05-04T16:00:00Z", "analyzed_at": "2026-05-05T13:00:00Z",
             "lab_name": "Bay Labs"}
    r = client.patch(f"{URL}/{body['id']}", json=patch, headers={**site.headers, "If-Match": "1"})
    assert r.status_code == 200
    got = r.get_json()
    assert got["version"] == 2 and got["lab_name"] == "Bay Labs"
    assert got["holding_time"] == [{"parameter": "turbidity", "limit": "P2D", "limit_seconds": 172800,
                                    "elapsed": "P1D", "elapsed_seconds": 86400, "analyzed": True,
                                    "deadline": "2026-05-06T13:00:00+00:00", "ok": True, "status": "within",
                                    "exceeded_by_seconds": None}]
    stale = client.patch(f"{URL}/{body['id']}", json={"version": 1, "notes": "late"}, headers=site.headers)
    assert stale.status_code == 409 and stale.get_json()["error"] == "version_conflict"
    assert stale.get_json()["errors"]["current"]["version"] == 2
    missing = client.patch(f"{URL}/{body['id']}", json={"notes": "no version"}, headers=site.headers)
    assert missing.status_code == 428 and missing.get_json()["error"] == "precondition_required"


def test_patch_validates_units_too(site, client):
    body = sample_body(site)
    client.post(URL, json=body, headers=site.headers)
    r = client.patch(f"{URL}/{body['id']}", json={"version": 1, "parameters": [{"name": "ph", "value": 15,
                                                                                 "unit": "SU"}]},
                     headers=site.headers)
    assert r.status_code == 422 and "0" in r.get_json()["errors"]["parameters"]
    # permit_id is read-only: sent back as stored it is ignored, another one is refused naming it
    r = client.patch(f"{URL}/{body['id']}", json={"version": 1, "permit_id": str(uuid.uuid4())}, headers=site.headers)
    assert r.status_code == 422 and r.get_json()["error"] == "read_only" and list(r.get_json()["errors"]) == ["permit_id"]
    r = client.patch(f"{URL}/{body['id']}", json={"version": 1, "permit_id": site.permit.id}, headers=site.headers)
    assert r.status_code == 200 and r.get_json()["permit_id"] == site.permit.id


def test_lab_holding_time_runs_until_analysed(site, client):
    now = datetime.now(timezone.utc)
    recent = now - timedelta(hours=50)
    auth = make_authorization(site.inspector, site.permit, valid_from=now - timedelta(days=3),
                              valid_to=now + timedelta(days=3))
    body = sample_body(site, analysis="lab", sampled_at=recent.isoformat(), entry_authorization_id=auth.id,
                       parameters=[{"name": "turbidity", "value": 3, "unit": "NTU"},
                                   {"name": "tss", "value": 3, "unit": "mg/L"}])
    got = client.post(URL, json=body, headers=site.headers).get_json()
    assert [(h["parameter"], h["ok"], h["analyzed"]) for h in got["holding_time"]] == [
        ("turbidity", False, False), ("tss", True, False)]


@pytest.mark.parametrize("role", ["admin"])
def test_admin_sees_no_samples(site, factory, client, role):
    client.post(URL, json=sample_body(site), headers=site.headers)
    _, headers = factory.as_role(role)
    assert client.get(URL, headers=headers).get_json() == []


def test_sample_location_is_the_one_gps_fix(site, client):
    """A sample's location takes every field of the GPS fix an inspection's does, and gives it back."""
    fix = {"lat": 41.6376, "lon": -70.9036, "accuracy_m": 4.5, "altitude_m": 12.0, "source": "gps"}
    r = client.post("/api/v1/samples", json=sample_body(site, location=fix), headers=site.headers)
    assert r.status_code == 201, r.get_json()
    assert r.get_json()["location"] == fix
    r = client.get(f"/api/v1/samples/{r.get_json()['id']}", headers=site.headers)
    assert r.get_json()["location"] == fix
    r = client.post("/api/v1/samples", json=sample_body(site, location={**fix, "accuracy_m": -1}), headers=site.headers)
    assert r.status_code == 422 and r.get_json()["errors"] == {"location": {"accuracy_m": ["Must be greater than "
                                                                                           "or equal to 0 and less than "
                                                                                           "or equal to 100000."]}}
