"""Storm events (POST, list, NOAA CDO import through the API and the CLI) and applicants' inspection
requests (R-I1): who may make them, their edges, and what the applicant sees once one is done."""
from __future__ import annotations

import io
from datetime import time, timedelta

from .conftest import API, DAY0, new_id, town

CDO = ('"STATION","NAME","DATE","PRCP","SNOW","SNWD","TMAX","TMIN"\n'
       '"USW00094726","NEW BEDFORD REGIONAL AIRPORT, MA US","2026-05-01","0.25","0.0","0","61","44"\n'
       '"USW00094726","NEW BEDFORD REGIONAL AIRPORT, MA US","2026-05-02","0.24","0.0","0","60","45"\n'
       '"USW00094726","NEW BEDFORD REGIONAL AIRPORT, MA US","2026-05-03","","","","58","41"\n'
       '"USW00094726","NEW BEDFORD REGIONAL AIRPORT, MA US","2026-05-05","1.07","0.0","0","55","47"\n')


def _import(client, headers, text=CDO, **kw):
    return client.post(f"{API}/storm-events/import", data=text.encode(), headers={**headers, "Content-Type": "text/csv"},
                       **kw)


# -- POST /storm-events -----------------------------------------------------------------------------------
def test_supervisor_records_a_storm_idempotently_others_may_not(site, client, town_clock):
    town_clock.set(DAY0 + timedelta(days=1), time(9, 0))
    body = {"id": new_id(), "ended_at": "2026-05-05T03:59:00Z", "inches": "0.25", "source": "Town Hall gauge"}
    first = client.post(f"{API}/storm-events", json=body, headers=site.supervisor_h)
    assert first.status_code == 201, first.get_json()
    data = first.get_json()
    assert (data["id"], data["inches"], data["source"], data["source_kind"], data["obliges"]) == (
        body["id"], "0.25", "Town Hall gauge", "manual", True)
    assert data["ended_at"] == "2026-05-05T03:59:00+00:00" and data["rain_day"] == "2026-05-04"
    again = client.post(f"{API}/storm-events", json=body, headers=site.supervisor_h)
    assert again.status_code == 200 and again.get_json()["id"] == body["id"]
    clash = client.post(f"{API}/storm-events", json={**body, "inches": "0.30"}, headers=site.supervisor_h)
    assert clash.status_code == 409 and clash.get_json()["error"] == "conflict"
    for headers in (site.inspector_h, site.applicant_h):
        r = client.post(f"{API}/storm-events", json={**body, "id": new_id()}, headers=headers)
        assert r.status_code == 403 and r.get_json()["error"] == "forbidden"
    listed = client.get(f"{API}/storm-events", headers=site.inspector_h)
    assert listed.status_code == 200 and listed.headers["X-Total-Count"] == "1"
    assert [e["id"] for e in listed.get_json()] == [body["id"]]


def test_storm_body_errors(site, client):
    cases = [({"ended_at": "2026-05-05T03:59:00", "inches": "0.3", "source": "x"}, "ended_at"),  # no offset
             ({"ended_at": "2026-05-05T03:59:00Z", "inches": "0.255", "source": "x"}, "inches"),
             ({"ended_at": "2026-05-05T03:59:00Z", "inches": "-0.10", "source": "x"}, "inches"),
             ({"ended_at": "2026-05-05T03:59:00Z", "inches": "NaN", "source": "x"}, "inches"),
             ({"ended_at": "2026-05-05T03:59:00Z", "inches": "0.3", "source": ""}, "source"),
             ({"ended_at": "2026-05-05T03:59:00Z", "inches": "0.3"}, "source"),
             ({"ended_at": "2026-05-04T12:30:00Z", "inches": "0.3", "source": "forecast"}, "ended_at")]  # clock: 08:00 EDT
    for body, field in cases:
        r = client.post(f"{API}/storm-events", json=body, headers=site.supervisor_h)
        assert r.status_code == 422 and field in r.get_json()["errors"], (body, r.get_json())
    assert client.get(f"{API}/storm-events", headers=site.supervisor_h).headers["X-Total-Count"] == "0"


# -- NOAA CDO import --------------------------------------------------------------------------------------
def test_import_makes_one_storm_per_day_at_or_over_threshold_ending_at_end_of_day_and_is_idempotent(site, client,
                                                                                                   town_clock):
    town_clock.set(DAY0 + timedelta(days=1))  # the file's last day is today
    r = _import(client, site.supervisor_h)
    assert r.status_code == 200, r.get_json()
    body = r.get_json()
    assert (body["created"], body["updated"], body["unchanged"], body["below_threshold"], body["days_read"]) == (
        2, 0, 0, 1, 3)
    events = body["events"]
    assert [(e["rain_day"], e["inches"], e["ended_at"]) for e in events] == [
        ("2026-05-01", "0.25", "2026-05-02T03:59:59+00:00"), ("2026-05-05", "1.07", "2026-05-06T03:59:59+00:00")]
    assert events[0]["source_kind"] == "noaa_cdo" and events[0]["station"] == "USW00094726"
    again = _import(client, site.supervisor_h).get_json()
    assert (again["created"], again["updated"], again["unchanged"]) == (0, 0, 2)
    assert [e["id"] for e in again["events"]] == [e["id"] for e in events]
    revised = _import(client, site.supervisor_h, CDO.replace('"1.07"', '"1.12"')).get_json()
    assert (revised["created"], revised["updated"], revised["unchanged"]) == (0, 1, 1)
    assert client.get(f"{API}/storm-events", headers=site.supervisor_h).headers["X-Total-Count"] == "2"


def test_import_as_a_form_upload_and_its_errors(site, client, town_clock):
    town_clock.set(DAY0 + timedelta(days=1))
    r = client.post(f"{API}/storm-events/import", data={"file": (io.BytesIO(CDO.encode()), "cdo.csv")},
                    headers=site.supervisor_h, content_type="multipart/form-data")
    assert r.status_code == 200 and r.get_json()["created"] == 2, r.get_json()
    assert "cdo.csv" in r.get_json()["events"][0]["source"]
    bad = _import(client, site.supervisor_h, '"STATION","DATE","PRCP"\n"X","2026-05-09","0.90"\n')
    assert bad.status_code == 422 and bad.get_json()["errors"]["file"] == ["missing column NAME"]
    bad = _import(client, site.supervisor_h, CDO + '"X","N","2026-05-04","0.9O"\n')
    assert bad.status_code == 422 and bad.get_json()["errors"]["file"] == ["line 6: PRCP '0.9O' is not a number of inches"]
    assert client.get(f"{API}/storm-events", headers=site.supervisor_h).headers["X-Total-Count"] == "2", \
        "a file with a bad row imports nothing"
    r = client.post(f"{API}/storm-events/import", json={"csv": CDO}, headers=site.supervisor_h)
    assert r.status_code == 415 and r.get_json()["error"] == "unsupported_media_type"
    r = client.post(f"{API}/storm-events/import", data=b"\xff\xfe\x00", headers={**site.supervisor_h,
                                                                                 "Content-Type": "text/csv"})
    assert r.status_code == 422 and r.get_json()["errors"] == {"file": ["Not UTF-8 text."]}
    r = _import(client, site.inspector_h)
    assert r.status_code == 403 and r.get_json()["error"] == "forbidden"


def test_cli_import_is_idempotent(site, app, tmp_path, town_clock):
    town_clock.set(DAY0 + timedelta(days=1))
    from inspect_api.program.cli import storm_events_group
    path = tmp_path / "cdo.csv"
    path.write_text(CDO, encoding="utf-8")
    runner = app.test_cli_runner()
    first = runner.invoke(storm_events_group, ["import", str(path)])
    assert first.exit_code == 0, first.output
    assert "3 day(s) read: 2 storm event(s) created, 0 updated, 0 unchanged, 1 day(s) under the threshold" in first.output
    assert "2026-05-05  1.07 in  USW00094726" in first.output
    second = runner.invoke(storm_events_group, ["import", str(path)])
    assert "0 storm event(s) created, 0 updated, 2 unchanged" in second.output
    path.write_text("DATE,PRCP\n2026-05-01,0.3\n", encoding="utf-8")
    bad = runner.invoke(storm_events_group, ["import", str(path)])
    assert bad.exit_code == 1 and "lacks the column(s) STATION, NAME" in bad.output


def test_import_takes_the_units_of_the_order_metric_as_millimetres(site, client, app, tmp_path, town_clock):
    """A CDO order placed in metric units gives PRCP in millimetres: 3 mm is 0.11 in, no storm."""
    town_clock.set(DAY0 + timedelta(days=1))
    metric = CDO.replace('"0.25"', '"3.0"').replace('"0.24"', '"6.4"').replace('"1.07"', '"27.2"')
    r = _import(client, site.supervisor_h, metric, query_string={"units": "metric"})
    assert r.status_code == 200, r.get_json()
    body = r.get_json()
    assert [(e["rain_day"], e["inches"]) for e in body["events"]] == [("2026-05-02", "0.25"), ("2026-05-05", "1.07")]
    assert body["below_threshold"] == 1
    # Read as inches, the same file is refused: 27.2 in is more than any day Massachusetts has seen.
    r = _import(client, site.supervisor_h, metric)
    assert r.status_code == 422 and "millimetres" in r.get_json()["errors"]["file"][0], r.get_json()
    r = _import(client, site.supervisor_h, metric, query_string={"units": "kelvin"})
    assert r.status_code == 422 and set(r.get_json()["errors"]) == {"units"}, r.get_json()
    path = tmp_path / "cdo-metric.csv"
    path.write_text(metric, encoding="utf-8")
    from inspect_api.program.cli import storm_events_group
    result = app.test_cli_runner().invoke(storm_events_group, ["import", str(path), "--units", "metric"])
    assert result.exit_code == 0 and "0 storm event(s) created, 0 updated, 2 unchanged" in result.output, result.output
    result = app.test_cli_runner().invoke(storm_events_group, ["import", str(path)])
    assert result.exit_code == 1 and "Massachusetts 24-hour record" in result.output, result.output


def test_import_refuses_future_days_the_record_and_too_many_rows_importing_nothing(site, client, app, tmp_path):
    """Today (Town time) is 2026-05-04: a file naming the 5th is refused whole, by the API and the CLI."""
    r = _import(client, site.supervisor_h)
    assert r.status_code == 422, r.get_json()
    assert r.get_json()["errors"]["file"] == [
        "line 5: DATE 2026-05-05 is after today (2026-05-04): no rain is measured ahead"]
    path = tmp_path / "cdo.csv"
    path.write_text(CDO, encoding="utf-8")
    from inspect_api.program.cli import storm_events_group
    result = app.test_cli_runner().invoke(storm_events_group, ["import", str(path)])
    assert result.exit_code == 1 and "is after today" in result.output, result.output
    record = CDO.replace('"1.07"', '"18.16"').replace("2026-05-05", "2026-05-04")
    r = _import(client, site.supervisor_h, record)
    assert r.status_code == 422 and "Massachusetts 24-hour record" in r.get_json()["errors"]["file"][0]
    assert app.config["STORM_IMPORT_MAX_ROWS"] == 2000
    header, *_ = CDO.splitlines(keepends=True)
    line = '"USW00094726","NEW BEDFORD REGIONAL AIRPORT, MA US","2026-04-01","0.30"\n'
    r = _import(client, site.supervisor_h, header + line * 2001)
    assert r.status_code == 422 and r.get_json()["errors"]["file"] == ["more than 2000 rows"], r.get_json()
    assert _import(client, site.supervisor_h, header + line * 2000).status_code == 200
    app.config["STORM_IMPORT_MAX_ROWS"] = 3
    r = _import(client, site.supervisor_h, header + line * 4)
    assert r.status_code == 422 and r.get_json()["errors"]["file"] == ["more than 3 rows"]
    events = client.get(f"{API}/storm-events", headers=site.supervisor_h).get_json()
    assert [e["rain_day"] for e in events] == ["2026-04-01"], "only the file within every bound was imported"


def test_imported_storm_puts_the_active_site_on_the_list_due_end_of_next_day(site, client, town_clock):
    town_clock.set(DAY0 - timedelta(days=4), time(9, 0))
    site.commence(DAY0 - timedelta(days=4))  # 30 April
    town_clock.set(DAY0 + timedelta(days=1), time(9, 0))
    _import(client, site.supervisor_h)
    storms = [i for i in site.due() if i["kind"] == "storm_event"]
    assert [(i["due_at"], i["overdue"]) for i in storms] == [("2026-05-03T03:59:59+00:00", True),
                                                             ("2026-05-07T03:59:59+00:00", False)]


# -- inspection requests -----------------------------------------------------------------------------------
def test_applicant_requests_a_final_inspection_the_inspector_sees_it_and_then_when_it_was_done(site, client, town_clock):
    site.commence(DAY0)
    town_clock.set(DAY0 + timedelta(days=2), time(9, 0))
    body = {"id": new_id(), "permit_id": site.permit.id, "kind": "re_inspection",
            "preferred_dates": ["2026-05-08", "2026-05-07"], "note": "Silt fence replaced along the east line."}
    r = client.post(f"{API}/inspection-requests", json=body, headers=site.applicant_h)
    assert r.status_code == 201, r.get_json()
    made = r.get_json()
    assert (made["kind"], made["inspection_kind"], made["status"], made["done_at"], made["preferred_dates"]) == (
        "re_inspection", "follow_up", "open", None, ["2026-05-07", "2026-05-08"])
    assert made["due_at"] == "2026-05-08T03:59:59+00:00" and made["note"] == body["note"]
    assert client.post(f"{API}/inspection-requests", json=body, headers=site.applicant_h).status_code == 200
    listed = site.due(assigned_to="me", kind="follow_up")
    assert [(i["source"], i["source_id"], i["due_at"]) for i in listed] == [("request", body["id"], made["due_at"])]
    assert "preferred 2026-05-07, 2026-05-08" in listed[0]["reason"]
    inspection = site.record("follow_up", town(DAY0 + timedelta(days=3), 10, 0))
    assert site.due(assigned_to="me", kind="follow_up") == []
    seen = client.get(f"{API}/inspection-requests/{body['id']}", headers=site.applicant_h)
    assert seen.status_code == 200
    assert (seen.get_json()["status"], seen.get_json()["done_at"], seen.get_json()["inspection_id"]) == (
        "done", "2026-05-07T14:00:00+00:00", inspection)
    mine = client.get(f"{API}/inspection-requests", query_string={"permit_id": site.permit.id}, headers=site.applicant_h)
    assert mine.status_code == 200 and mine.headers["X-Total-Count"] == "1" and mine.get_json()[0]["status"] == "done"


def test_request_rules_who_when_and_which_days(site, client, factory, town_clock):
    base = {"permit_id": site.permit.id, "kind": "final", "preferred_dates": [], "note": None}
    r = client.post(f"{API}/inspection-requests", json=base, headers=site.applicant_h)
    assert r.status_code == 409 and r.get_json()["error"] == "invalid_transition" and "active" in r.get_json()["message"]
    post = client.post(f"{API}/inspection-requests", json={**base, "kind": "post_installation"}, headers=site.applicant_h)
    assert post.status_code == 201 and post.get_json()["due_at"] == "2026-05-10T03:59:59+00:00"  # end of 9 May: 5 days, none preferred
    past = client.post(f"{API}/inspection-requests", json={**base, "kind": "post_installation",
                                                           "preferred_dates": ["2026-05-03"]}, headers=site.applicant_h)
    assert past.status_code == 422 and "preferred_dates" in past.get_json()["errors"]
    for headers in (site.inspector_h,):
        r = client.post(f"{API}/inspection-requests", json={**base, "kind": "post_installation"}, headers=headers)
        assert r.status_code == 403 and r.get_json()["error"] == "forbidden"
    stranger, stranger_h = factory.as_role("applicant")
    r = client.post(f"{API}/inspection-requests", json={**base, "kind": "post_installation"}, headers=stranger_h)
    assert r.status_code == 404 and r.get_json()["error"] == "not_found"
    r = client.get(f"{API}/inspection-requests/{post.get_json()['id']}", headers=stranger_h)
    assert r.status_code == 404
    r = client.get(f"{API}/inspection-requests", headers=stranger_h)
    assert r.status_code == 200 and r.get_json() == []
    by_supervisor = client.post(f"{API}/inspection-requests", json={**base, "kind": "post_installation"},
                                headers=site.supervisor_h)
    assert by_supervisor.status_code == 201
    bad = client.post(f"{API}/inspection-requests", json={**base, "kind": "routine"}, headers=site.applicant_h)
    assert bad.status_code == 422 and "kind" in bad.get_json()["errors"]
