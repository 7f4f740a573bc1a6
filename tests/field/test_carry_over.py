"""Starting an inspection from the last one (R-I3): answers carried over are marked `carried_over` until
the inspector confirms or changes them; the server refuses to submit one still carried over, through
REST and sync push alike, and names the items; `carried_from_id` must name an earlier inspection of
the same permit that the caller may see."""
from __future__ import annotations

import uuid
from datetime import timedelta

from inspect_api.checklists.defaults import DEFAULT_ITEMS

from .conftest import API, T0, answers, iso

KEYS = [item["key"] for item in DEFAULT_ITEMS]
DEFICIENT = {"perimeter_controls_maintained": {"note": "Silt fence down along the east edge.", "severity": "high",
                                               "needs_new_control": True}}


def last_inspection(site, status: str = "submitted") -> str:
    """An earlier visit with one deficient item, submitted (and approved when asked)."""
    iid = site.inspection_id(entry_id=site.entry_id(valid_from=iso(T0 - timedelta(days=10))),
                             started_at=iso(T0 - timedelta(days=7)), ended_at=iso(T0 - timedelta(days=7, hours=-1)),
                             checklist={"template": "esc", "items": answers(DEFICIENT)})
    if status in ("submitted", "approved"):
        assert site.submit(iid).status_code == 200
    if status == "approved":
        assert site.review(iid).status_code == 200
    return iid


def carried(source: str, confirmed: tuple[str, ...] = (), changed: dict | None = None) -> dict:
    """The checklist a device makes from the last inspection: every answer as it was, marked carried
    over, except the keys confirmed (unchanged, carried_over false) and those changed."""
    items = []
    for answer in answers(DEFICIENT):
        if changed and answer["key"] in changed:
            items.append({"key": answer["key"], **changed[answer["key"]], "carried_over": False})
        else:
            items.append({**answer, "carried_over": answer["key"] not in confirmed})
    return {"template": "esc", "carried_from_id": source, "items": items}


def test_a_draft_keeps_carried_answers_and_their_source(site, client):
    source = last_inspection(site)
    r = site.inspection(site.entry_id(), checklist=carried(source, confirmed=("limit_of_work_marked",)))
    assert r.status_code == 201, r.get_json()
    body = r.get_json()
    assert body["checklist"]["carried_from_id"] == source
    items = {a["key"]: a for a in body["checklist"]["items"]}
    assert items["limit_of_work_marked"]["carried_over"] is False
    assert all(items[k]["carried_over"] is True for k in KEYS if k != "limit_of_work_marked")
    # a deficient answer carried over stays deficient, with its severity and note
    assert items["perimeter_controls_maintained"] == {
        "key": "perimeter_controls_maintained", "answer": "deficient", "note": "Silt fence down along the east edge.",
        "photo_ids": [], "needs_new_control": True, "severity": "high", "carried_over": True}
    assert body["findings"] == []  # a draft raises its deficiency findings only on submission
    assert client.get(f"{API}/inspections/{body['id']}", headers=site.supervisor_h).get_json() == body
    # a blank start has no source and nothing carried
    blank = site.inspection(site.entry_id()).get_json()
    assert blank["checklist"]["carried_from_id"] is None
    assert {a["carried_over"] for a in blank["checklist"]["items"]} == {False}


def test_submit_refused_while_an_answer_is_carried_over_then_accepted_once_confirmed(site, client):
    source = last_inspection(site)
    r = site.inspection(site.entry_id(), checklist=carried(source, confirmed=tuple(
        k for k in KEYS if k not in ("check_dams", "perimeter_controls_maintained"))))
    iid, version = r.get_json()["id"], r.get_json()["version"]
    refused = site.submit(iid)
    assert refused.status_code == 422
    body = refused.get_json()
    assert body["error"] == "validation_error" and body["code"] == 422
    assert body["message"] == ("Confirm or change each answer carried over from the last inspection before submitting "
                               "(still carried over: perimeter_controls_maintained, check_dams).")
    assert body["errors"] == {"checklist": {"items": {
        "2": {"carried_over": ["Perimeter controls maintained: still as carried over from the last inspection; "
                               "confirm it or change it."]},
        "6": {"carried_over": ["Check dams: still as carried over from the last inspection; confirm it or change it."]}}}}
    stored = client.get(f"{API}/inspections/{iid}", headers=site.inspector_h).get_json()
    assert stored["status"] == "draft" and stored["findings"] == [] and stored["version"] == version

    # one left: still refused, naming only it
    r = site.patch(iid, version, {"checklist": carried(source, confirmed=tuple(k for k in KEYS if k != "check_dams"))})
    assert r.status_code == 200, r.get_json()
    refused = site.submit(iid)
    assert refused.status_code == 422 and list(refused.get_json()["errors"]["checklist"]["items"]) == ["6"]

    # confirmed (the deficient one unchanged) and check dams changed: submitted, the deficiency stays a finding
    r = site.patch(iid, r.get_json()["version"], {"checklist": carried(
        source, confirmed=tuple(KEYS), changed={"check_dams": {"answer": "deficient", "note": "Check dam washed out.",
                                                                "severity": "moderate"}})})
    assert r.status_code == 200, r.get_json()
    done = site.submit(iid)
    assert done.status_code == 200, done.get_json()
    body = done.get_json()
    assert body["status"] == "submitted" and body["checklist"]["carried_from_id"] == source
    assert {a["carried_over"] for a in body["checklist"]["items"]} == {False}
    findings = {f["item_key"]: f for f in body["findings"]}
    assert set(findings) == {"perimeter_controls_maintained", "check_dams"}
    assert findings["perimeter_controls_maintained"]["severity"] == "high"
    assert findings["perimeter_controls_maintained"]["needs_new_control"] is True
    assert findings["check_dams"]["description"] == "Check dams: deficient. Check dam washed out."


def test_created_as_submitted_with_a_carried_answer_is_refused_and_not_stored(site, client):
    source = last_inspection(site, status="approved")
    body = site.inspection_body(site.entry_id(), status="submitted",
                                checklist=carried(source, confirmed=tuple(k for k in KEYS if k != "dust_control")))
    r = client.post(f"{API}/inspections", json=body, headers=site.inspector_h)
    assert r.status_code == 422
    assert r.get_json()["errors"] == {"checklist": {"items": {"13": {"carried_over": [
        "Dust control: still as carried over from the last inspection; confirm it or change it."]}}}}
    assert client.get(f"{API}/inspections/{body['id']}", headers=site.inspector_h).status_code == 404


def test_carried_from_must_be_an_earlier_inspection_of_this_permit(site, client, factory):
    eid = site.entry_id()
    draft_elsewhere = last_inspection(site, status="draft")
    other = factory.permit(status="issued", disturbed_area_sqft=30000)
    factory.assign(other, site.inspector)
    other_eid = site.entry_id(permit_id=other.id)
    other_body = site.inspection_body(other_eid, permit_id=other.id, checklist={"template": "esc", "items": answers()})
    r = client.post(f"{API}/inspections", json=other_body, headers=site.inspector_h)
    assert r.status_code == 201
    assert site.submit(other_body["id"]).status_code == 200
    refusal = {"checklist": {"carried_from_id": [
        "Must be a submitted or reviewed inspection of this permit that you may see."]}}
    for source in (other_body["id"], str(uuid.uuid4()), draft_elsewhere):  # another permit's, unknown, a draft
        r = site.inspection(eid, checklist=carried(source))
        assert r.status_code == 422 and r.get_json()["errors"] == refusal, source
    # carried answers need their source, and a source needs the answers it gave
    no_source = carried(last_inspection(site))
    no_source["carried_from_id"] = None
    r = site.inspection(eid, checklist=no_source)
    assert r.status_code == 422 and r.get_json()["errors"] == {"checklist": {"carried_from_id": [
        "Name the inspection the carried-over answers come from."]}}
    source = last_inspection(site)
    r = site.inspection(eid, checklist={"template": "esc", "carried_from_id": source, "items": []})
    assert r.status_code == 422 and r.get_json()["errors"] == {"checklist": {"carried_from_id": [
        "Send the answers carried from it with it."]}}
    # an edit may not name the inspection itself, nor another permit's
    r = site.inspection(eid, checklist=carried(source))
    iid, version = r.get_json()["id"], r.get_json()["version"]
    for bad in (iid, other_body["id"]):
        r = site.patch(iid, version, {"checklist": carried(bad)})
        assert r.status_code == 422 and r.get_json()["errors"] == refusal
    stored = client.get(f"{API}/inspections/{iid}", headers=site.inspector_h).get_json()
    assert stored["version"] == version and stored["checklist"]["carried_from_id"] == source


def test_answers_stored_before_carrying_show_carried_over_false(site, client):
    from inspect_api.extensions import db
    from inspect_api.inspections.models import Inspection
    iid = site.inspection_id()
    record = db.session.get(Inspection, iid)
    record.checklist_items = [{"key": "dust_control", "answer": "ok", "note": None, "photo_ids": [],
                               "needs_new_control": None, "severity": None}]
    db.session.commit()
    body = client.get(f"{API}/inspections/{iid}", headers=site.inspector_h).get_json()
    assert body["checklist"]["carried_from_id"] is None
    assert body["checklist"]["items"] == [{"key": "dust_control", "answer": "ok", "note": None, "photo_ids": [],
                                           "needs_new_control": None, "severity": None, "carried_over": False}]


def _push(site, client, headers, mutations):
    r = client.post(f"{API}/sync/push", json={"device_id": "tablet-carry", "mutations": mutations}, headers=headers)
    assert r.status_code == 200, r.get_json()
    return r.get_json()["results"]


def _mutation(record_id, data, base_version=None):
    return {"mutation_id": str(uuid.uuid4()), "entity": "inspection", "id": record_id, "op": "upsert",
            "base_version": base_version, "data": data}


def test_sync_push_rejects_a_carried_answer_submitted_and_pull_shows_the_fields(site, client, factory):
    headers = factory.headers(site.inspector, device_id="tablet-carry")
    source = last_inspection(site)
    eid = site.entry_id()
    record_id = str(uuid.uuid4())
    data = {k: v for k, v in site.inspection_body(eid, checklist=carried(source, confirmed=tuple(
        k for k in KEYS if k != "inlet_protection"))).items() if k != "id"}
    # created as submitted straight from the device: rejected, naming the item, nothing stored
    [result] = _push(site, client, headers, [_mutation(record_id, {**data, "status": "submitted"})])
    assert result["status"] == "rejected" and result["error"] == "validation_error", result
    assert result["errors"] == {"checklist": {"items": {"5": {"carried_over": [
        "Catch basin and inlet protection: still as carried over from the last inspection; confirm it or change it."]}}}}
    assert "inlet_protection" in result["message"]
    assert client.get(f"{API}/inspections/{record_id}", headers=site.inspector_h).status_code == 404
    # the draft is fine
    [result] = _push(site, client, headers, [_mutation(record_id, data)])
    assert result["status"] == "applied", result
    # an edit that submits with the answer still carried: rejected, the draft unchanged
    [result] = _push(site, client, headers, [_mutation(record_id, {"status": "submitted"}, base_version=1)])
    assert result["status"] == "rejected" and list(result["errors"]["checklist"]["items"]) == ["5"], result
    # the pull gives the device both new fields
    pulled = client.get(f"{API}/sync/pull", headers={**headers, "X-Device-Id": "tablet-carry"}).get_json()
    [change] = [c for c in pulled["changes"] if c["entity"] == "inspection" and c["id"] == record_id]
    assert change["data"]["status"] == "draft" and change["data"]["checklist"]["carried_from_id"] == source
    flags = {a["key"]: a["carried_over"] for a in change["data"]["checklist"]["items"]}
    assert [k for k, v in flags.items() if v] == ["inlet_protection"]
    # confirmed and submitted in one push: applied
    confirmed = carried(source, confirmed=tuple(KEYS))
    [result] = _push(site, client, headers, [_mutation(record_id, {"checklist": confirmed, "status": "submitted"},
                                                       base_version=change["version"])])
    assert result["status"] == "applied", result
    body = client.get(f"{API}/inspections/{record_id}", headers=site.inspector_h).get_json()
    assert body["status"] == "submitted" and {a["carried_over"] for a in body["checklist"]["items"]} == {False}
    assert [f["item_key"] for f in body["findings"]] == ["perimeter_controls_maintained"]
