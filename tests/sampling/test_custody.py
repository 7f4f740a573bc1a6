"""R-S1 chain of custody: the holding-time rule at its edges, and the custody fields of a sample
(containers and preservatives per analysis, hand-overs, the lab's receipt) through the API."""
from __future__ import annotations

import uuid
from datetime import datetime, timedelta, timezone

import pytest

from inspect_api.sampling import rules

from .conftest import T0, sample_body

URL = "/api/v1/samples"


def analysis(name, unit, value=None, **labels):
    return rules.normalise_parameter({"name": name, "value": value, "unit": unit, **labels})


# The rule ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name,unit,limit", [("turbidity", "NTU", timedelta(hours=48)),
                                             ("ph", "SU", timedelta(minutes=15)),
                                             ("tss", "mg/L", timedelta(days=7))])
def test_analysed_exactly_at_the_limit_is_within_one_minute_over_is_exceeded(name, unit, limit):
    parameters = [analysis(name, unit, 1)]
    at_limit = rules.holding_times(parameters, T0, T0 + limit, "lab", T0 + timedelta(days=30))[0]
    assert (at_limit["status"], at_limit["ok"], at_limit["exceeded_by_seconds"]) == ("within", True, None)
    assert at_limit["deadline"] == T0 + limit
    minute_over = rules.holding_times(parameters, T0, T0 + limit + timedelta(minutes=1), "lab", T0)[0]
    assert (minute_over["status"], minute_over["ok"], minute_over["exceeded_by_seconds"]) == ("exceeded", False, 60)
    # The edge is the instant itself: one second over is already over.
    second_over = rules.holding_times(parameters, T0, T0 + limit + timedelta(seconds=1), "lab", T0)[0]
    assert second_over["status"] == "exceeded" and second_over["exceeded_by_seconds"] == 1


def test_not_analysed_runs_to_now_and_is_exceeded_once_past():
    parameters = [analysis("turbidity", "NTU"), analysis("ph", "SU")]
    at_48h = rules.holding_times(parameters, T0, None, "lab", T0 + timedelta(hours=48))
    assert [(h["parameter"], h["status"], h["elapsed_seconds"]) for h in at_48h] == [
        ("turbidity", "running", 172800), ("ph", "exceeded", 172800)]
    assert at_48h[1]["exceeded_by_seconds"] == 172800 - 900
    later = rules.holding_times(parameters, T0, None, "lab", T0 + timedelta(hours=48, minutes=1))
    assert later[0]["status"] == "exceeded" and later[0]["exceeded_by_seconds"] == 60 and later[0]["ok"] is False
    ph_edge = rules.holding_times([analysis("ph", "SU")], T0, None, "lab", T0 + timedelta(minutes=15))[0]
    assert ph_edge["status"] == "running" and ph_edge["ok"] is True


def test_a_field_reading_without_analysis_time_is_not_judged():
    report = rules.holding_times([analysis("ph", "SU", 7)], T0, None, "field", T0 + timedelta(days=2))[0]
    assert (report["status"], report["ok"], report["exceeded_by_seconds"]) == ("not_judged", None, None)


@pytest.mark.parametrize("seconds,words", [(0, "under 1 min"), (59, "under 1 min"), (60, "1 min"), (900, "15 min"),
                                           (3599, "59 min"), (3600, "1 h"), (4320, "1 h 12 min"),
                                           (172800, "48 h"), (259140, "71 h 59 min"), (259200, "3 days"),
                                           (604800, "7 days"), (273600, "3 days 4 h"), (-5, "under 1 min")])
def test_duration_words(seconds, words):
    assert rules.duration_words(seconds) == words


def test_a_pending_analysis_keeps_its_unit_container_and_preservative():
    item = analysis("TSS", "g/L", container=" 1 L HDPE ", preservative="ice \u2264 6 \u00b0C")
    assert item == {"name": "tss", "value": None, "unit": "g/L", "method": None, "container": "1 L HDPE",
                    "preservative": "ice \u2264 6 \u00b0C", "normalized_value": None, "normalized_unit": "mg/L"}
    with pytest.raises(rules.ParameterProblem) as caught:
        analysis("turbidity", "FNU")
    assert caught.value.field == "unit"
    # Not judged against any action level while pending.
    level = rules.Level("ph", "SU", None, None, rules.PER_SAMPLE, "")
    assert rules.sample_exceedances([analysis("ph", "SU")], [level]) == []
    assert rules.parameter_value([analysis("turbidity", "NTU")], "turbidity", "NTU") is None


def test_custody_times():
    transfers = [{"at": T0 + timedelta(hours=1)}, {"at": T0 + timedelta(hours=3)}]
    assert rules.check_times(T0, None, T0 + timedelta(hours=3), transfers) == {}   # the lab at the courier's minute
    assert rules.check_times(T0, None, T0 + timedelta(hours=3, seconds=-1), transfers) == {
        "received_by_lab_at": ["The lab cannot receive the sample before its last hand-over."]}
    assert rules.check_times(T0, None, None, [{"at": T0 - timedelta(minutes=1)}]) == {
        "chain_of_custody": ["Transfer 0 is before sampled_at."]}
    assert rules.check_times(T0, None, None, [], lab_receipt_given=True) == {
        "received_by_lab_at": ["Give when the lab received the sample."]}
    assert rules.check_times(T0, None, None, [{"at": T0}]) == {}   # a hand-over at the minute of sampling


# Through the API -----------------------------------------------------------------------------------

def custody_body(site, **overrides):
    return sample_body(site, analysis="lab", lab_name="Bay Labs", parameters=[
        {"name": "turbidity", "value": None, "unit": "NTU", "container": "500 mL HDPE", "preservative": "ice \u2264 6 \u00b0C"},
        {"name": "tss", "value": None, "unit": "mg/L", "container": "1 L HDPE", "preservative": "ice \u2264 6 \u00b0C"}],
        chain_of_custody=[
            {"from_name": "Dana Field", "to_name": "Casey Courier", "at": (T0 + timedelta(hours=1)).isoformat(),
             "signature_photo_id": str(uuid.uuid4())},
            {"from_name": "Casey Courier", "to_name": "Lee Lab", "at": (T0 + timedelta(hours=3)).isoformat()}],
        **overrides)


def test_a_lab_sample_with_containers_hand_overs_and_the_lab_receipt(site, client, town_clock):
    town_clock.set_utc(T0 + timedelta(hours=47, minutes=59))
    body = custody_body(site, received_by_lab_at=(T0 + timedelta(hours=3)).isoformat(), lab_received_by="Lee Lab",
                        lab_receipt_temperature_c=4.5)
    r = client.post(URL, json=body, headers=site.headers)
    assert r.status_code == 201, r.get_json()
    got = r.get_json()
    assert got["parameters"][0] == {"name": "turbidity", "value": None, "unit": "NTU", "method": None,
                                    "container": "500 mL HDPE", "preservative": "ice \u2264 6 \u00b0C",
                                    "normalized_value": None, "normalized_unit": "NTU"}
    assert [(t["from_name"], t["to_name"], t["at"]) for t in got["chain_of_custody"]] == [
        ("Dana Field", "Casey Courier", "2026-05-04T14:00:00+00:00"), ("Casey Courier", "Lee Lab", "2026-05-04T16:00:00+00:00")]
    assert got["chain_of_custody"][0]["signature_photo_id"] == body["chain_of_custody"][0]["signature_photo_id"]
    assert (got["received_by_lab_at"], got["lab_received_by"], got["lab_receipt_temperature_c"]) == (
        "2026-05-04T16:00:00+00:00", "Lee Lab", 4.5)
    assert got["exceedances"] == [] and got["finding_ids"] == []
    assert [(h["parameter"], h["status"], h["deadline"]) for h in got["holding_time"]] == [
        ("turbidity", "running", "2026-05-06T13:00:00+00:00"), ("tss", "running", "2026-05-11T13:00:00+00:00")]
    # The clock runs on: one minute past 48 h the turbidity analysis is flagged on every read.
    town_clock.set_utc(T0 + timedelta(hours=48, minutes=1))
    again = client.get(f"{URL}/{body['id']}", headers=site.headers).get_json()
    assert [(h["status"], h["exceeded_by_seconds"]) for h in again["holding_time"]] == [("exceeded", 60), ("running", None)]
    # Results arrive: the analysis time decides, not the reading time.
    r = client.patch(f"{URL}/{body['id']}", json={"version": 1, "analyzed_at": (T0 + timedelta(hours=48)).isoformat(),
                                                    "parameters": [{**p, "value": 12} for p in body["parameters"]]},
                     headers=site.headers)
    assert r.status_code == 200, r.get_json()
    assert [h["status"] for h in r.get_json()["holding_time"]] == ["within", "within"]
    assert r.get_json()["parameters"][1]["container"] == "1 L HDPE"


def test_a_hand_over_before_sampling_is_refused(site, client):
    body = custody_body(site)
    body["chain_of_custody"][0]["at"] = (T0 - timedelta(minutes=1)).isoformat()
    r = client.post(URL, json=body, headers=site.headers)
    assert r.status_code == 422
    assert r.get_json()["errors"] == {"chain_of_custody": ["Transfer 0 is before sampled_at."]}
    assert client.get(URL, headers=site.headers).get_json() == []


def test_the_lab_receipt_before_the_last_hand_over_is_refused(site, client):
    body = custody_body(site, received_by_lab_at=(T0 + timedelta(hours=2, minutes=59)).isoformat())
    r = client.post(URL, json=body, headers=site.headers)
    assert r.status_code == 422
    assert r.get_json()["errors"] == {"received_by_lab_at": ["The lab cannot receive the sample before its last hand-over."]}
    ok = client.post(URL, json=custody_body(site), headers=site.headers)
    assert ok.status_code == 201
    # On an edit the stored hand-overs count: a receipt before them is refused there too.
    r = client.patch(f"{URL}/{ok.get_json()['id']}", json={"version": 1, "received_by_lab_at": (
        T0 + timedelta(hours=2)).isoformat()}, headers=site.headers)
    assert r.status_code == 422 and list(r.get_json()["errors"]) == ["received_by_lab_at"]
    r = client.patch(f"{URL}/{ok.get_json()['id']}", json={"version": 1, "lab_received_by": "Lee Lab"},
                     headers=site.headers)
    assert r.status_code == 422
    assert r.get_json()["errors"] == {"received_by_lab_at": ["Give when the lab received the sample."]}


def test_preservative_text_is_free_but_bounded(site, client):
    body = custody_body(site)
    body["parameters"][0]["preservative"] = "H\u2082SO\u2084 to pH<2, then on ice (lab asked)"
    r = client.post(URL, json=body, headers=site.headers)
    assert r.status_code == 201 and r.get_json()["parameters"][0]["preservative"] == body["parameters"][0]["preservative"]
    long = custody_body(site)
    long["parameters"][1]["preservative"] = "x" * 101
    long["parameters"][0]["container"] = "y" * 101
    r = client.post(URL, json=long, headers=site.headers)
    assert r.status_code == 422
    errors = r.get_json()["errors"]["parameters"]
    assert set(errors) == {"0", "1"} and "container" in errors["0"] and "preservative" in errors["1"]
    long["parameters"][1]["preservative"] = "x" * 100
    long["parameters"][0]["container"] = "y" * 100
    assert client.post(URL, json=long, headers=site.headers).status_code == 201


def test_a_field_reading_needs_its_value_and_the_receipt_temperature_is_bounded(site, client):
    r = client.post(URL, json=sample_body(site, parameters=[{"name": "ph", "value": None, "unit": "SU"}]),
                    headers=site.headers)
    assert r.status_code == 422
    assert r.get_json()["errors"] == {"parameters": {"0": {"value": [
        "A field reading needs its value; only a lab analysis may await its result."]}}}
    hot = custody_body(site, received_by_lab_at=(T0 + timedelta(hours=4)).isoformat(), lab_receipt_temperature_c=61)
    r = client.post(URL, json=hot, headers=site.headers)
    assert r.status_code == 422 and list(r.get_json()["errors"]) == ["lab_receipt_temperature_c"]


def test_the_same_custody_posted_again_is_idempotent(site, client, town_clock):
    town_clock.set_utc(T0 + timedelta(hours=6))  # the holding-time clock in both answers reads the same now
    body = custody_body(site, received_by_lab_at=datetime(2026, 5, 4, 18, tzinfo=timezone.utc).isoformat(),
                        lab_received_by="Lee Lab", lab_receipt_temperature_c=3)
    first = client.post(URL, json=body, headers=site.headers)
    again = client.post(URL, json=body, headers=site.headers)
    assert (first.status_code, again.status_code) == (201, 200) and again.get_json() == first.get_json()
    other = client.post(URL, json={**body, "lab_receipt_temperature_c": 8}, headers=site.headers)
    assert other.status_code == 409
