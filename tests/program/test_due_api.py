"""GET /inspections/due (R-I1, R-I4): what is due at which site by when, met by recorded inspections,
overdue ones kept on the list; filters, paging and who may see what."""
from __future__ import annotations

from datetime import time, timedelta

from .conftest import API, DAY0, town


def kinds(items, **match):
    return sorted(i["kind"] for i in items if all(i.get(k) == v for k, v in match.items()))


def test_active_site_owes_pre_construction_on_its_commencement_day_then_post_installation_routine_and_a_storm(
        site, town_clock):
    site.commence(DAY0)
    pre = next(i for i in site.due(assigned_to="me") if i["kind"] == "pre_construction")
    assert pre["overdue"] is False and pre["binding"] is True and pre["due_at"] == "2026-05-05T03:59:59+00:00"
    r = site.storm(town(DAY0 + timedelta(days=1), 23, 59), "0.25")
    assert r.status_code == 201 and r.get_json()["inches"] == "0.25" and r.get_json()["obliges"] is True
    town_clock.set(DAY0 + timedelta(days=2), time(9, 0))
    items = site.due(assigned_to="me")
    # Work has commenced: a pre-construction inspection can no longer happen, so it is missed, not listed.
    assert kinds(items) == ["post_installation", "routine", "storm_event"]
    assert site.due(assigned_to="me", overdue="true") == []
    storm = next(i for i in items if i["kind"] == "storm_event")
    assert storm["permit_id"] == site.permit.id and storm["permit_number"] == site.permit.number
    assert storm["due_at"] == "2026-05-07T03:59:00+00:00" and storm["overdue"] is False  # 23:59 EDT next day
    assert storm["source"] == "storm" and storm["source_id"] == r.get_json()["id"]
    assert "0.25 in" in storm["reason"] and storm["rules"] == ["R-I1"]
    routine = next(i for i in items if i["kind"] == "routine")
    assert routine["due_at"] == "2026-05-19T03:59:59+00:00" and routine["overdue"] is False
    assert [i["due_at"] for i in items] == sorted(i["due_at"] for i in items)


def test_storm_inspection_one_minute_late_meets_it_late_and_a_draft_meets_nothing(site, client, town_clock):
    site.commence(DAY0)
    site.storm(town(DAY0 + timedelta(days=1), 23, 59), "0.25")
    town_clock.set(DAY0 + timedelta(days=3), time(0, 30))
    storm = next(i for i in site.due() if i["kind"] == "storm_event")
    assert storm["overdue"] is True
    site.record("storm_event", town(DAY0 + timedelta(days=3), 0, 0), submit=False)
    assert "storm_event" in kinds(site.due()), "a draft is not a recorded inspection"
    site.record("storm_event", town(DAY0 + timedelta(days=3), 0, 0))  # 00:00, a minute past 23:59
    assert "storm_event" not in kinds(site.due())
    report = client.get(f"{API}/exports/ms4-annual-report", query_string={"from": "2026-05-01", "to": "2026-05-31"},
                        headers=site.supervisor_h)
    assert report.status_code == 200, report.get_json()
    rows = {(row["kind"], row["month"]): row for row in report.get_json()["inspection_program"]}
    assert rows[("storm_event", "2026-05")] == {"kind": "storm_event", "month": "2026-05", "due": 1, "on_time": 0,
                                                "late": 1, "not_done": 0, "missed": 0}
    assert rows[("pre_construction", "2026-05")] == {"kind": "pre_construction", "month": "2026-05", "due": 1,
                                                     "on_time": 0, "late": 0, "not_done": 1, "missed": 1}


def test_storm_inspection_at_2359_next_day_is_on_time(site, client, town_clock):
    site.commence(DAY0)
    site.storm(town(DAY0 + timedelta(days=1), 23, 59), "0.30")
    town_clock.set(DAY0 + timedelta(days=3), time(8, 0))
    site.record("storm_event", town(DAY0 + timedelta(days=2), 23, 59))
    report = client.get(f"{API}/exports/ms4-annual-report", query_string={"from": "2026-05-01", "to": "2026-05-31"},
                        headers=site.supervisor_h).get_json()
    row = next(r for r in report["inspection_program"] if r["kind"] == "storm_event")
    assert (row["due"], row["on_time"], row["late"]) == (1, 1, 0)


def test_site_becoming_active_after_the_storm_owes_no_storm_inspection(site, town_clock):
    site.storm(town(DAY0, 23, 59), "1.20")
    town_clock.set(DAY0 + timedelta(days=1), time(9, 0))
    site.commence(DAY0 + timedelta(days=1))
    assert "storm_event" not in kinds(site.due())
    site.storm(town(DAY0 + timedelta(days=1), 10, 0), "0.40")
    assert kinds(site.due(), kind="storm_event") == ["storm_event"]


def test_two_storms_in_one_day_are_two_items_and_one_visit_after_both_meets_both(site, town_clock):
    site.commence(DAY0)
    first = site.storm(town(DAY0 + timedelta(days=1), 7, 0), "0.50").get_json()
    second = site.storm(town(DAY0 + timedelta(days=1), 19, 0), "0.60").get_json()
    town_clock.set(DAY0 + timedelta(days=1), time(21, 0))
    storms = [i for i in site.due() if i["kind"] == "storm_event"]
    assert [i["source_id"] for i in storms] == [first["id"], second["id"]]
    site.record("storm_event", town(DAY0 + timedelta(days=2), 8, 0))
    assert "storm_event" not in kinds(site.due())


def test_below_threshold_storm_is_kept_but_obliges_nothing(site, town_clock):
    site.commence(DAY0)
    r = site.storm(town(DAY0 + timedelta(days=1), 9, 0), "0.24")
    assert r.status_code == 201 and r.get_json()["obliges"] is False
    assert "storm_event" not in kinds(site.due())


def test_follow_up_due_at_the_findings_due_day(site, town_clock):
    site.commence(DAY0)
    from ..field.conftest import answers
    items = answers({"perimeter_controls_maintained": {"note": "Silt fence down along the east line"}})
    inspection = site.record("routine", town(DAY0, 10, 0), checklist={"template": "esc", "items": items})
    finding = site.client.get(f"{API}/inspections/{inspection}", headers=site.inspector_h).get_json()["findings"][0]
    follow = [i for i in site.due() if i["kind"] == "follow_up"]
    assert len(follow) == 1 and follow[0]["source"] == "finding" and follow[0]["source_id"] == finding["id"]
    assert finding["due_on"] == "2026-05-05"  # close of the next business day (R-I4)
    assert follow[0]["due_at"] == "2026-05-06T03:59:59+00:00"  # 23:59:59 that day, Town time
    assert follow[0]["rules"] == ["R-I1", "R-I4"]
    site.record("follow_up", town(DAY0 + timedelta(days=1), 10, 0), verifies_finding_ids=[finding["id"]])
    assert "follow_up" not in kinds(site.due())


def test_filters_paging_and_total(site, client, factory, town_clock):
    site.commence(DAY0)
    other = factory.permit(applicant=site.applicant, status="issued", disturbed_area_sqft=25000)
    town_clock.set(DAY0 + timedelta(days=1), time(9, 0))
    everything = client.get(f"{API}/inspections/due", headers=site.supervisor_h)
    assert everything.status_code == 200 and int(everything.headers["X-Total-Count"]) == len(everything.get_json())
    mine = site.due(assigned_to="me")
    assert {i["permit_id"] for i in mine} == {site.permit.id}
    assert other.id in {i["permit_id"] for i in everything.get_json()}
    page = client.get(f"{API}/inspections/due", query_string={"permit_id": site.permit.id, "limit": 2, "offset": 1},
                      headers=site.inspector_h)
    full = site.due(permit_id=site.permit.id)
    assert page.get_json() == full[1:3] and page.headers["X-Total-Count"] == str(len(full))
    assert kinds(site.due(kind="routine")) == ["routine"]
    before = site.due(before=(DAY0 + timedelta(days=6)).isoformat(), permit_id=site.permit.id)
    assert kinds(before) == ["post_installation"]  # pre-construction was missed when the commencement day ended
    assert all(i["overdue"] for i in site.due(overdue="true"))
    bad = client.get(f"{API}/inspections/due", query_string={"kind": "re_inspection"}, headers=site.inspector_h)
    assert bad.status_code == 422 and bad.get_json()["error"] == "validation_error" and "kind" in bad.get_json()["errors"]
    bad = client.get(f"{API}/inspections/due", query_string={"before": "tomorrow"}, headers=site.inspector_h)
    assert bad.status_code == 422 and "before" in bad.get_json()["errors"]


def test_scope_applicant_sees_own_sites_admin_none_and_foreign_permit_id_is_404(site, client, factory, town_clock):
    site.commence(DAY0)
    stranger, stranger_h = factory.as_role("applicant")
    theirs = factory.permit(applicant=stranger, status="issued", disturbed_area_sqft=25000)
    own = site.due(headers=site.applicant_h)
    assert own and {i["permit_id"] for i in own} == {site.permit.id}
    r = client.get(f"{API}/inspections/due", query_string={"permit_id": theirs.id}, headers=site.applicant_h)
    assert r.status_code == 404 and r.get_json()["error"] == "not_found"
    _admin, admin_h = factory.as_role("admin")
    r = client.get(f"{API}/inspections/due", headers=admin_h)
    assert r.status_code == 200 and r.get_json() == [] and r.headers["X-Total-Count"] == "0"


def test_routine_interval_is_a_setting(site, app, town_clock):
    site.commence(DAY0)
    app.config["INSPECTION_ROUTINE_DAYS"] = 7
    routine = next(i for i in site.due() if i["kind"] == "routine")
    assert routine["due_at"] == "2026-05-12T03:59:59+00:00"
    settings = site.client.get(f"{API}/inspections/program-settings", headers=site.inspector_h)
    assert settings.status_code == 200 and settings.get_json() == {
        "routine_days": 7, "storm_threshold_inches": "0.25", "storm_window_hours": 24, "response_days": 5,
        "timezone": "America/New_York"}


def test_final_when_work_reported_complete_and_closed_site_lists_nothing(site, client, town_clock):
    site.commence(DAY0)
    town_clock.set(DAY0 + timedelta(days=20), time(9, 0))
    r = client.post(f"{API}/permits/{site.permit.id}/transitions", json={"to": "work_complete"},
                    headers=site.supervisor_h)
    assert r.status_code == 200, r.get_json()
    final = next(i for i in site.due() if i["kind"] == "final")
    assert final["due_at"] == "2026-05-30T03:59:59+00:00" and "reported complete on 2026-05-24" in final["reason"]
    site.record("final", town(DAY0 + timedelta(days=20), 10, 0))
    assert "final" not in kinds(site.due())


def test_overdue_inspections_on_the_deadlines_view_and_the_cli(site, client, app, town_clock):
    site.commence(DAY0)
    town_clock.set(DAY0 + timedelta(days=6), time(9, 0))
    r = client.get(f"{API}/deadlines", headers=site.supervisor_h)
    assert r.status_code == 200
    rows = [d for d in r.get_json() if d["kind"] == "inspection_overdue"]
    # The missed pre-construction inspection is no deadline left to chase; post-installation is overdue.
    assert len(rows) == 1 and rows[0]["permit_id"] == site.permit.id and rows[0]["overdue"] is True
    assert rows[0]["due_on"] == "2026-05-09" and rows[0]["summary"].startswith("post-installation inspection")
    from inspect_api.agenda.cli import deadlines
    result = app.test_cli_runner().invoke(deadlines, ["--before", "2026-06-01"])
    assert result.exit_code == 0, result.output
    assert "inspection_overdue" in result.output and "post-installation inspection" in result.output
    assert "pre-construction inspection" not in result.output
