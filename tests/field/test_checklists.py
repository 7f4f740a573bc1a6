"""Versioned checklist templates (R-I3): the seeded default, publishing, and answers kept against
the version they answered."""
from inspect_api.checklists.defaults import DEFAULT_ITEMS

from .conftest import API, answers

V2_ITEMS = [{k: v for k, v in item.items()} for item in DEFAULT_ITEMS if item["key"] != "plans_posted"] + [
    {"key": "spill_kit", "label": "Spill kit on site", "help_text": "A spill kit sized for the equipment on site.",
     "control": "spill response", "photo_expected_when_deficient": False, "needs_new_control_default": True}]


def publish(site, items=V2_ITEMS, **extra):
    return site.client.post(f"{API}/checklist-templates/esc/versions",
                            json={"title": "ESC inspection (2027)", "items": items, **extra}, headers=site.supervisor_h)


def test_seeded_default_checklist(site, client):
    r = client.get(f"{API}/checklist-templates", headers=site.inspector_h)
    assert r.status_code == 200
    (template,) = r.get_json()
    assert template["key"] == "esc" and template["version"] == 1 and template["current"] is True
    keys = [item["key"] for item in template["items"]]
    assert keys == ["limit_of_work_marked", "perimeter_controls_installed", "perimeter_controls_maintained",
                    "construction_entrance_stabilized", "no_tracking_street_sweeping", "inlet_protection",
                    "check_dams", "stockpiles_managed", "inactive_areas_stabilized", "slopes_protected",
                    "sediment_traps_basins", "dewatering_treated", "concrete_washout_contained", "dust_control",
                    "waste_sanitary_facilities", "outfalls_receiving_waters", "plans_posted"]
    for item in template["items"]:
        assert set(item) == {"key", "label", "help_text", "control", "photo_expected_when_deficient",
                             "needs_new_control_default"}
        assert len(item["help_text"]) > 40 and item["control"]
    by_key = {item["key"]: item for item in template["items"]}
    assert "1/2" in by_key["perimeter_controls_maintained"]["help_text"] or \
        "one half" in by_key["perimeter_controls_maintained"]["help_text"]
    assert "14 days" in by_key["inactive_areas_stabilized"]["help_text"]
    assert "50 ft" in by_key["waste_sanitary_facilities"]["help_text"]
    assert by_key["perimeter_controls_installed"]["needs_new_control_default"] is True
    assert by_key["perimeter_controls_maintained"]["needs_new_control_default"] is False


def test_reseeding_is_idempotent(app):
    from sqlalchemy import func, select

    from inspect_api.checklists.models import ChecklistTemplate
    from inspect_api.extensions import db
    from inspect_api.seed import run_all
    run_all()
    run_all()
    assert db.session.scalar(select(func.count()).select_from(ChecklistTemplate)) == 1


def test_publish_new_version(site, client):
    r = publish(site, based_on_version=1)
    assert r.status_code == 201
    body = r.get_json()
    assert body["version"] == 2 and body["current"] is True and body["published_by"] == site.supervisor.id
    assert [i["key"] for i in body["items"]][-1] == "spill_kit"
    current = client.get(f"{API}/checklist-templates", headers=site.inspector_h).get_json()
    assert [(t["key"], t["version"], t["current"]) for t in current] == [("esc", 2, True)]
    every = client.get(f"{API}/checklist-templates?all=1", headers=site.inspector_h).get_json()
    assert [(t["version"], t["current"]) for t in every] == [(1, False), (2, True)]
    v1 = client.get(f"{API}/checklist-templates/esc/versions/1", headers=site.inspector_h)
    assert v1.status_code == 200 and v1.get_json()["current"] is False and len(v1.get_json()["items"]) == 17
    head = client.get(f"{API}/checklist-templates/esc", headers=site.inspector_h)
    assert head.status_code == 200 and head.get_json()["version"] == 2
    missing = client.get(f"{API}/checklist-templates/esc/versions/9", headers=site.inspector_h)
    assert missing.status_code == 404 and missing.get_json()["error"] == "not_found"


def test_publish_refusals(site, client):
    stale = publish(site, based_on_version=0)
    assert stale.status_code == 409 and stale.get_json()["error"] == "version_conflict"
    assert stale.get_json()["errors"]["current"]["version"] == 1
    dup = publish(site, items=V2_ITEMS + V2_ITEMS[:1])
    assert dup.status_code == 422 and dup.get_json()["errors"] == {
        "items": ["Item keys must be unique: limit_of_work_marked."]}
    bad_key = site.client.post(f"{API}/checklist-templates/ESC!/versions", json={"title": "x", "items": V2_ITEMS},
                               headers=site.supervisor_h)
    assert bad_key.status_code == 422 and "key" in bad_key.get_json()["errors"]
    by_inspector = client.post(f"{API}/checklist-templates/esc/versions", json={"title": "x", "items": V2_ITEMS},
                               headers=site.inspector_h)
    assert by_inspector.status_code == 403 and by_inspector.get_json()["error"] == "forbidden"
    assert client.get(f"{API}/checklist-templates", headers=site.applicant_h).status_code == 403


def test_new_template_key_starts_at_version_1(site):
    r = site.client.post(f"{API}/checklist-templates/final_stabilization/versions",
                         json={"title": "Final stabilization", "items": V2_ITEMS[:2]}, headers=site.supervisor_h)
    assert r.status_code == 201 and r.get_json()["key"] == "final_stabilization" and r.get_json()["version"] == 1


def test_answers_validate_against_the_version_they_answer(site, client):
    assert publish(site).status_code == 201
    eid = site.entry_id()
    # version 1 still has plans_posted and no spill_kit
    old = site.inspection(eid, checklist={"template": "esc", "template_version": 1, "items": answers()})
    assert old.status_code == 201 and old.get_json()["checklist"]["template_version"] == 1
    spill_on_v1 = site.inspection(eid, checklist={"template": "esc", "template_version": 1,
                                                  "items": [{"key": "spill_kit", "answer": "ok"}]})
    assert spill_on_v1.status_code == 422
    assert spill_on_v1.get_json()["errors"] == {
        "checklist": {"items": {"0": {"key": ["Unknown item 'spill_kit' for this template version."]}}}}
    posted_on_v2 = site.inspection(eid, checklist={"template": "esc", "template_version": 2,
                                                   "items": [{"key": "plans_posted", "answer": "ok"}]})
    assert posted_on_v2.status_code == 422
    # without a version the current one is pinned
    current = site.inspection(eid, checklist={"template": "esc", "items": [{"key": "spill_kit", "answer": "n/a"}]})
    assert current.status_code == 201 and current.get_json()["checklist"]["template_version"] == 2
    # editing the old inspection keeps it on version 1 and it submits against version 1's items
    iid, version = old.get_json()["id"], old.get_json()["version"]
    items = answers({"plans_posted": {"note": "permit sign missing"}})
    edited = site.patch(iid, version, {"checklist": {"template": "esc", "items": items}})
    assert edited.status_code == 200 and edited.get_json()["checklist"]["template_version"] == 1
    submitted = site.submit(iid)
    assert submitted.status_code == 200
    assert [f["item_key"] for f in submitted.get_json()["findings"]] == ["plans_posted"]


def test_unknown_answers_and_templates(site):
    eid = site.entry_id()
    r = site.inspection(eid, checklist={"template": "esc", "items": [{"key": "dust_control", "answer": "maybe"}]})
    assert r.status_code == 422 and r.get_json()["errors"]["checklist"]["items"]["0"]["answer"]
    r = site.inspection(eid, checklist={"template": "esc", "items": [{"key": "dust_control", "answer": "ok"},
                                                                     {"key": "dust_control", "answer": "ok"}]})
    assert r.status_code == 422 and r.get_json()["errors"] == {
        "checklist": {"items": {"1": {"key": ["Item 'dust_control' is answered twice."]}}}}
    r = site.inspection(eid, checklist={"template": "nope", "items": []})
    assert r.status_code == 422 and r.get_json()["errors"] == {
        "checklist": {"template": ["No such checklist template version."]}}
    r = site.inspection(eid, checklist={"template": "esc", "template_version": 7, "items": []})
    assert r.status_code == 422 and r.get_json()["errors"] == {
        "checklist": {"template_version": ["No such checklist template version."]}}
    r = site.inspection(eid, checklist={"template": "esc", "items": [
        {"key": "dust_control", "answer": "ok", "severity": "high"}]})
    assert r.status_code == 422 and r.get_json()["errors"]["checklist"]["items"]["0"] == {
        "severity": ["Only a deficient item has a severity."]}
