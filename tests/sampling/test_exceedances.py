"""R-S2: exceedances, the one finding each raises, weekly turbidity averages, configurable levels."""
from __future__ import annotations

from datetime import date

from sqlalchemy import select

from inspect_api.extensions import db
from inspect_api.inspections.models import Finding

from .conftest import sample_body

URL = "/api/v1/samples"


def findings(permit_id, include_removed=False):
    query = select(Finding).where(Finding.permit_id == permit_id).order_by(Finding.created_at)
    if not include_removed:
        query = query.where(Finding.deleted_at.is_(None))
    db.session.expire_all()
    return list(db.session.scalars(query))


def ph(value):
    return [{"name": "ph", "value": value, "unit": "SU"}]


def turbidity(value):
    return [{"name": "turbidity", "value": value, "unit": "NTU"}]


def test_ph_exceedance_creates_exactly_one_finding(site, client):
    body = sample_body(site, parameters=ph(9.1))
    r = client.post(URL, json=body, headers=site.headers)
    assert r.status_code == 201
    got = r.get_json()
    assert got["exceedances"] == [{"parameter": "ph", "value": 9.1, "unit": "SU",
                                   "action_level": {"min": 6.5, "max": 8.3, "unit": "SU", "basis": "per_sample"},
                                   "rule": "R-S2: pH outside 6.5\u20138.3 SU; 314 CMR 4.05"}]
    (finding,) = findings(site.permit.id)
    assert got["finding_ids"] == [finding.id]
    assert (finding.kind, finding.sample_id, finding.parameter, finding.status) == ("exceedance", body["id"], "ph", "open")
    assert finding.observed_on == date(2026, 5, 4) and finding.due_on == date(2026, 5, 5)  # next business day
    assert "pH 9.1 SU in the grab sample taken 2026-05-04 09:00 at discharge point OF-1" in finding.description
    # The same POST again, and an edit that keeps the value, raise nothing more.
    assert client.post(URL, json=body, headers=site.headers).status_code == 200
    edited = client.patch(f"{URL}/{body['id']}", json={"version": 1, "notes": "resampled tomorrow"},
                          headers=site.headers)
    assert edited.status_code == 200 and edited.get_json()["finding_ids"] == [finding.id]
    assert [f.id for f in findings(site.permit.id)] == [finding.id]


def test_values_inside_the_range_raise_nothing(site, client):
    for value in (6.5, 8.3):
        got = client.post(URL, json=sample_body(site, parameters=ph(value)), headers=site.headers).get_json()
        assert got["exceedances"] == [] and got["finding_ids"] == []
    assert findings(site.permit.id) == []


def test_corrected_value_removes_the_finding_and_exceeding_again_restores_it(site, client):
    body = sample_body(site, parameters=ph(9.1))
    created = client.post(URL, json=body, headers=site.headers).get_json()
    (finding_id,) = created["finding_ids"]
    corrected = client.patch(f"{URL}/{body['id']}", json={"version": 1, "parameters": ph(7.1)}, headers=site.headers)
    assert corrected.status_code == 200
    assert corrected.get_json()["exceedances"] == [] and corrected.get_json()["finding_ids"] == []
    assert findings(site.permit.id) == []
    (kept,) = findings(site.permit.id, include_removed=True)
    assert kept.id == finding_id and kept.deleted_at is not None  # kept as evidence, gone from lists
    again = client.patch(f"{URL}/{body['id']}", json={"version": 2, "parameters": ph(5.9)}, headers=site.headers)
    assert again.get_json()["finding_ids"] == [finding_id]
    (restored,) = findings(site.permit.id)
    assert restored.id == finding_id and "pH 5.9 SU" in restored.description


def test_a_finding_closed_by_follow_up_is_left_alone(site, client):
    body = sample_body(site, parameters=ph(9.1))
    (finding_id,) = client.post(URL, json=body, headers=site.headers).get_json()["finding_ids"]
    finding = db.session.get(Finding, finding_id)
    finding.status, finding.verified_fixed_on = "closed", date(2026, 5, 5)
    db.session.commit()
    client.patch(f"{URL}/{body['id']}", json={"version": 1, "parameters": ph(7.0)}, headers=site.headers)
    client.patch(f"{URL}/{body['id']}", json={"version": 2, "parameters": ph(9.5)}, headers=site.headers)
    (only,) = findings(site.permit.id)
    assert only.id == finding_id and only.status == "closed" and "9.1" in only.description


def test_single_high_turbidity_is_judged_on_the_weekly_average(site, client):
    got = client.post(URL, json=sample_body(site, parameters=turbidity(80)), headers=site.headers).get_json()
    assert got["exceedances"] == []          # no per-sample turbidity level by default
    assert len(got["finding_ids"]) == 1      # but one sample of 80 makes its week's average 80
    (finding,) = findings(site.permit.id)
    assert finding.parameter == "turbidity"
    assert finding.description.startswith("Weekly average turbidity 80 NTU at discharge point OF-1 for the week "
                                          "of 2026-05-04 (1 sample).")


def test_weekly_average_raises_one_finding_per_outfall_week(site, client):
    def post(at, value, outfall="OF-1"):
        r = client.post(URL, json=sample_body(site, sampled_at=at, outfall_id=outfall, parameters=turbidity(value)),
                        headers=site.headers)
        assert r.status_code == 201, r.get_json()
        return r.get_json()

    post("2026-05-04T13:00:00Z", 30)                     # Monday, avg 30
    assert findings(site.permit.id) == []
    post("2026-05-05T13:00:00Z", 70)                     # avg 50: meets the benchmark
    assert findings(site.permit.id) == []
    tipping = post("2026-05-06T13:00:00Z", "50.03")      # avg 50.01: exceeds
    post("2026-05-07T13:00:00Z", 90)                     # still exceeding: no second finding
    post("2026-05-07T14:00:00Z", 90, outfall="OF-2")     # another discharge point: its own week
    post("2026-05-11T03:30:00Z", 10)                     # Sunday 23:30 in Fairhaven: still the same week
    post("2026-05-11T04:30:00Z", 60)                     # Monday 00:30 in Fairhaven: next week, avg 60
    rows = client.get(f"/api/v1/permits/{site.permit.id}/turbidity-weekly", headers=site.headers)
    assert rows.status_code == 200
    table = [(r["outfall_id"], r["week_start"], r["samples"], r["average_ntu"], r["exceeds"]) for r in rows.get_json()]
    assert table == [("OF-1", "2026-05-04", 5, 50.006, True), ("OF-1", "2026-05-11", 1, 60.0, True),
                     ("OF-2", "2026-05-04", 1, 90.0, True)]
    found = findings(site.permit.id)
    assert len(found) == 3 and {f.kind for f in found} == {"exceedance"}
    first_week = next(f for f in found if "2026-05-04" in f.description and "OF-1" in f.description)
    assert first_week.sample_id == tipping["id"]
    assert {r["finding_id"] for r in rows.get_json()} == {f.id for f in found}
    assert all(r["action_level_ntu"] == 50.0 for r in rows.get_json())


def test_correcting_a_sample_withdraws_the_weekly_finding(site, client):
    body = sample_body(site, parameters=turbidity(120))
    (finding_id,) = client.post(URL, json=body, headers=site.headers).get_json()["finding_ids"]
    fixed = client.patch(f"{URL}/{body['id']}", json={"version": 1, "parameters": turbidity(12)}, headers=site.headers)
    assert fixed.status_code == 200 and fixed.get_json()["finding_ids"] == []
    rows = client.get(f"/api/v1/permits/{site.permit.id}/turbidity-weekly", headers=site.headers).get_json()
    assert rows == [{"outfall_id": "OF-1", "week_start": "2026-05-04", "samples": 1, "average_ntu": 12.0,
                     "action_level_ntu": 50.0, "exceeds": False, "finding_id": None}]
    assert findings(site.permit.id) == [] and findings(site.permit.id, True)[0].id == finding_id


def test_moving_a_sample_to_another_outfall_rejudges_both_weeks(site, client):
    body = sample_body(site, parameters=turbidity(120))
    client.post(URL, json=body, headers=site.headers)
    client.patch(f"{URL}/{body['id']}", json={"version": 1, "outfall_id": "OF-9"}, headers=site.headers)
    (finding,) = findings(site.permit.id)
    assert "OF-9" in finding.description
    rows = client.get(f"/api/v1/permits/{site.permit.id}/turbidity-weekly", headers=site.headers).get_json()
    assert [(r["outfall_id"], r["exceeds"], r["finding_id"]) for r in rows] == [("OF-9", True, finding.id)]


def test_samples_without_an_outfall_are_not_averaged(site, client):
    got = client.post(URL, json=sample_body(site, outfall_id=None, location={"lat": 41.6, "lon": -70.9},
                                            parameters=turbidity(500)), headers=site.headers).get_json()
    assert got["finding_ids"] == []
    assert client.get(f"/api/v1/permits/{site.permit.id}/turbidity-weekly", headers=site.headers).get_json() == []


# Configuration ----------------------------------------------------------------------------------

def test_default_action_levels(site, client):
    r = client.get("/api/v1/action-levels", headers=site.applicant_headers)
    assert r.status_code == 200
    levels = [(lv["parameter"], lv["basis"], lv["unit"], lv["min"], lv["max"]) for lv in r.get_json()["levels"]]
    assert levels == [("ph", "per_sample", "SU", 6.5, 8.3), ("turbidity", "weekly_average", "NTU", None, 50.0)]


def test_supervisor_replaces_levels_and_new_samples_follow(site, factory, client):
    _, supervisor = factory.as_role("supervisor")
    new_levels = {"levels": [
        {"parameter": "pH", "basis": "per_sample", "unit": "SU", "min": 6.0, "max": 9.0, "citation": "Order 3"},
        {"parameter": "TSS", "basis": "per_sample", "unit": "g/L", "max": "0.1"},
    ]}
    r = client.put("/api/v1/action-levels", json=new_levels, headers=supervisor)
    assert r.status_code == 200
    assert [(lv["parameter"], lv["unit"], lv["min"], lv["max"]) for lv in r.get_json()["levels"]] == [
        ("ph", "SU", 6.0, 9.0), ("tss", "mg/L", None, 100.0)]
    assert r.get_json()["levels"][1]["rule"] == "R-S2: Total suspended solids above 100 mg/L"
    got = client.post(URL, json=sample_body(site, parameters=ph(8.8) + [{"name": "tss", "value": 101, "unit": "mg/L"}]
                                            + turbidity(400)), headers=site.headers).get_json()
    assert [e["parameter"] for e in got["exceedances"]] == ["tss"]   # pH 8.8 is now fine; turbidity switched off
    assert len(got["finding_ids"]) == 1
    assert client.get(f"/api/v1/permits/{site.permit.id}/turbidity-weekly",
                      headers=site.headers).get_json()[0]["exceeds"] is False


def test_only_supervisors_change_levels_and_bad_levels_are_refused(site, factory, client):
    body = {"levels": [{"parameter": "turbidity", "basis": "weekly_average", "unit": "NTU", "max": 25}]}
    r = client.put("/api/v1/action-levels", json=body, headers=site.headers)
    assert r.status_code == 403 and r.get_json()["error"] == "forbidden"
    _, supervisor = factory.as_role("supervisor")
    bad = {"levels": [{"parameter": "turbidity", "basis": "weekly_average", "unit": "FNU", "max": 25},
                      {"parameter": "ph", "basis": "per_sample", "unit": "SU", "min": 9, "max": 6},
                      {"parameter": "tss", "basis": "per_sample", "unit": "mg/L"},
                      {"parameter": "nitrate", "basis": "per_sample", "unit": "mg/L", "max": "NaN"}]}
    r = client.put("/api/v1/action-levels", json=bad, headers=supervisor)
    assert r.status_code == 422
    assert r.get_json()["errors"]["levels"] == {
        "0": {"unit": ["Unknown unit 'FNU' for turbidity; use one of: NTU."]},
        "1": {"min": ["Must not be above max."]},
        "2": {"max": ["Give a min, a max, or both."]},
        "3": {"max": ["Must be a number."]},
    }
    assert len(client.get("/api/v1/action-levels", headers=supervisor).get_json()["levels"]) == 2


def test_the_list_gives_each_sample_the_findings_it_raised_as_its_own_answer_does(site, client):
    """The list reads the findings of a whole page in one statement: each sample gets its own, a
    sample that raised none gets none, and a finding removed by a corrected value is left out."""
    raised = client.post(URL, json=sample_body(site, parameters=ph(9.1)), headers=site.headers).get_json()
    quiet = client.post(URL, json=sample_body(site, parameters=ph(7.0)), headers=site.headers).get_json()
    corrected = client.post(URL, json=sample_body(site, parameters=ph(5.9)), headers=site.headers).get_json()
    assert client.patch(f"{URL}/{corrected['id']}", json={"version": 1, "parameters": ph(7.1)},
                        headers=site.headers).status_code == 200
    (finding,) = findings(site.permit.id)
    listed = client.get(f"{URL}?permit_id={site.permit.id}", headers=site.headers)
    assert listed.status_code == 200
    by_id = {item["id"]: item["finding_ids"] for item in listed.get_json()}
    assert by_id == {raised["id"]: [finding.id], quiet["id"]: [], corrected["id"]: []}
    for item in listed.get_json():
        own = client.get(f"{URL}/{item['id']}", headers=site.headers).get_json()
        assert own["finding_ids"] == item["finding_ids"]
