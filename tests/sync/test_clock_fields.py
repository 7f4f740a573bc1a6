"""Values computed from the Town's clock do not go stale in what pull sends: pull dumps those records
when it is asked, exactly as GET does, never from the copy stored when they were last written.

The clock is pinned past each deadline after the records were written and first pulled; a fresh pull
and GET must then agree, and both must show the value as of the pinned day (so the test sees the
clock move). One case per clock field the sync declarations name."""
from __future__ import annotations

import uuid
from datetime import datetime, time, timedelta, timezone

import pytest

from inspect_api import clock
from inspect_api.sync.adapters import declarations

from .conftest import API, create, inspection_data, iso


def _post(site, who, path, body) -> dict:
    response = site.client.post(f"{API}{path}", json=body, headers=site.headers(getattr(site, who)))
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def _get(site, path) -> dict:
    response = site.client.get(f"{API}{path}", headers=site.headers(site.supervisor))
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def _pin(monkeypatch, day):
    """The Town's clock at noon (America/New_York) on `day`."""
    moment = datetime.combine(day, time(12, 0), tzinfo=clock.town_zone()).astimezone(timezone.utc)
    monkeypatch.setattr(clock, "now", lambda: moment)


@pytest.fixture
def written(site):
    """An order, a finding on an inspection, and a lab sample, written today and pulled once."""
    today = clock.today()
    order = _post(site, "supervisor", "/orders", {
        "permit_id": site.permit.id, "kinds": ["controls"],
        "requirements": [{"kind": "controls", "text": "Re-install the silt fence"}],
        "deadline": (today + timedelta(days=3)).isoformat()})
    entry_id = site.new_entry(valid_from=iso(clock.now() - timedelta(days=1)),
                              valid_to=iso(clock.now() + timedelta(days=90)))
    inspection_id = str(uuid.uuid4())
    result = site.tablet().push([create("inspection", inspection_data(
        site.permit.id, entry_id, started_at=iso(clock.now() - timedelta(hours=2))), inspection_id)])[0]
    assert result["status"] == "applied", result
    finding = _post(site, "inspector", "/findings", {
        "permit_id": site.permit.id, "inspection_id": inspection_id, "description": "Silt fence down",
        "observed_on": today.isoformat()})
    sample = _post(site, "inspector", "/samples", {
        "permit_id": site.permit.id, "entry_authorization_id": entry_id,
        "sampled_at": iso(clock.now() - timedelta(hours=1)), "sampler": "Dana Field", "outfall_id": "OF-1",
        "sample_type": "grab", "analysis": "lab", "lab_name": "Bay Labs",
        "parameters": [{"name": "turbidity", "value": 12.0, "unit": "NTU"}]})
    first = site.tablet(site.supervisor)
    first.sync_down()  # what a device holds from today
    return {"order": order, "finding": finding, "inspection": {"id": inspection_id}, "sample": sample,
            "first": first}


def _fresh_pull(site) -> dict:
    tablet = site.tablet(site.supervisor)
    tablet.sync_down()
    return {key: change["data"] for key, change in tablet.held.items()}


def test_the_clock_fields_are_the_ones_covered_here():
    declared = {a.entity: a.clock_fields for a in declarations() if a.clock_fields}
    assert declared == {
        "permit": ("review_level", "determination", "exemptions.stands", "approval_lapsed", "commencement_blocked"),
        "inspection": ("findings.overdue",), "finding": ("overdue",), "sample": ("holding_time",),
        "order": ("status", "overdue")}


def test_order_overdue_after_its_deadline_on_get_and_pull(site, written, monkeypatch):
    order = written["order"]
    assert (order["status"], order["overdue"]) == ("open", False)
    _pin(monkeypatch, clock.today() + timedelta(days=4))  # the day after the deadline

    got = _get(site, f"/orders/{order['id']}")
    pulled = _fresh_pull(site)[("order", order["id"])]
    assert (got["status"], got["overdue"]) == ("overdue", True)
    assert pulled == got
    # a device that pulls on from its cursor gets the same: the order is not re-sent (it did not
    # change), and what it sends is never the stale copy
    assert (pulled["status"], pulled["overdue"]) == ("overdue", True)


def test_finding_overdue_on_get_and_pull_and_inside_its_inspection(site, written, monkeypatch):
    finding = written["finding"]
    assert finding["overdue"] is False
    _pin(monkeypatch, datetime.fromisoformat(finding["due_on"]).date() + timedelta(days=1))

    got = _get(site, f"/findings/{finding['id']}")
    inspection = _get(site, f"/inspections/{written['inspection']['id']}")
    pulled = _fresh_pull(site)
    assert got["overdue"] is True
    assert pulled[("finding", finding["id"])] == got
    assert [f["overdue"] for f in inspection["findings"] if f["id"] == finding["id"]] == [True]
    assert pulled[("inspection", written["inspection"]["id"])] == inspection


def test_sample_holding_time_runs_on_get_and_pull(site, written, monkeypatch):
    sample = written["sample"]
    assert [h["ok"] for h in sample["holding_time"]] == [True]
    _pin(monkeypatch, clock.today() + timedelta(days=3))  # turbidity holds 48 hours (R-S1)

    got = _get(site, f"/samples/{sample['id']}")
    pulled = _fresh_pull(site)[("sample", sample["id"])]
    assert [h["ok"] for h in got["holding_time"]] == [False]
    assert pulled == got


def test_a_device_sending_back_yesterdays_flags_is_not_refused(site, written, monkeypatch):
    """Read-only values computed from the clock are left out of the comparison: the device's copy
    says `open`, the server now `overdue`, and the edit still applies."""
    held = written["first"].held[("order", written["order"]["id"])]["data"]
    _pin(monkeypatch, clock.today() + timedelta(days=4))
    data = {**held, "referral_note": "Sent to counsel"}
    result = written["first"].push([{"mutation_id": str(uuid.uuid4()), "entity": "order", "id": held["id"],
                                     "op": "upsert", "base_version": held["version"], "data": data}])[0]
    assert result["status"] == "applied", result
    assert _get(site, f"/orders/{held['id']}")["referral_note"] == "Sent to counsel"
