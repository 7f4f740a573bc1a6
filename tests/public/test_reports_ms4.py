"""The MS4 annual report counts reports from the public (40 CFR 122.34(b)(4)(ii)): of those received in
the range, how many were triaged, led to an inspection (a complaint inspection recorded that met the one
triage made due), led to an order (issued on the linked permit or case on or after the day the report came
in), and the median days to a first response. A worked example, counted by hand."""
from __future__ import annotations

from datetime import date, time, timedelta

from inspect_api.public import rules

from ..program.conftest import site, town  # noqa: F401
from .test_reports_support import API, QUEUE, body, config, report_of, submit, town_clock  # noqa: F401


def _at(clock, day: date, hh: int, mm: int = 0):
    clock.set(day, time(hh, mm))


def _received(client, clock, day, hh):
    _at(clock, day, hh)
    return report_of(submit(client, body(observed_at=None))["reference"])


def _triage(client, clock, headers, report, day, hh, **payload):
    _at(clock, day, hh)
    r = client.post(f"{QUEUE}/{report.id}/triage", headers=headers,
                    json={"answer": "Thank you for telling us.", "version": 1, **payload})
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def _order(client, headers, permit_id, issued_on):
    r = client.post(f"{API}/orders", headers=headers, json={
        "permit_id": permit_id, "kinds": ["controls"], "issued_on": issued_on,
        "requirements": [{"kind": "controls", "text": "Clean the catch basin and re-set the inlet protection"}],
        "finding_ids": [], "deadline": "2026-05-20"})
    assert r.status_code == 201, r.get_json()


def test_the_counts_of_a_worked_example(site, client, factory, town_clock):
    sup, permit = site.supervisor_h, site.permit
    may = lambda d: date(2026, 5, d)  # noqa: E731
    r0 = _received(client, town_clock, date(2026, 4, 30), 10)                   # before the range: not counted
    _triage(client, town_clock, sup, r0, date(2026, 4, 30), 12, action="close")
    r1 = _received(client, town_clock, may(4), 10)
    r2 = _received(client, town_clock, may(4), 12)
    r3 = _received(client, town_clock, may(5), 11)                              # never triaged
    _order(client, sup, permit.id, "2026-05-03")                                # before r1 came in
    _triage(client, town_clock, sup, r1, may(5), 10, action="link", permit_id=permit.id)         # 1.0 day
    _at(town_clock, may(6), 10)
    site.record("complaint", town(may(6), 9, 0))                                 # meets r1's complaint
    r4 = _received(client, town_clock, may(6), 9)
    case = factory.permit_payload(parties=[{"role": "violator", "name": "Dana Digger"}])
    _triage(client, town_clock, sup, r4, may(6), 21, action="open_case", case=case)             # 0.5 day
    _triage(client, town_clock, sup, r2, may(7), 12, action="close")                           # 3.0 days
    _at(town_clock, may(7), 13)
    _order(client, sup, permit.id, "2026-05-07")                                # after r1: it led to an order
    r5 = _received(client, town_clock, may(8), 9)
    _triage(client, town_clock, sup, r5, may(10), 9, action="link", permit_id=permit.id)        # 2.0 days
    # r5 came in after both orders and after the complaint inspection: it led to neither
    _at(town_clock, may(31), 12)
    r = client.get(f"{API}/exports/ms4-annual-report", query_string={"from": "2026-05-01", "to": "2026-05-31"},
                   headers=sup)
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["public_reports"] == {"received": 5, "triaged": 4, "led_to_inspection": 1, "led_to_order": 1,
                                              "median_days_to_first_response": 1.5}  # of 0.5, 1.0, 2.0, 3.0
    assert r3.status == "received"
    april = client.get(f"{API}/exports/ms4-annual-report", query_string={"from": "2026-04-01", "to": "2026-04-30"},
                       headers=sup).get_json()["public_reports"]
    assert april == {"received": 1, "triaged": 1, "led_to_inspection": 0, "led_to_order": 0,
                     "median_days_to_first_response": 0.1}  # two hours
    empty = client.get(f"{API}/exports/ms4-annual-report", query_string={"from": "2026-06-01", "to": "2026-06-30"},
                       headers=sup).get_json()["public_reports"]
    assert empty == {"received": 0, "triaged": 0, "led_to_inspection": 0, "led_to_order": 0,
                     "median_days_to_first_response": None}
    # the range's ends are Town days: a report at 23:00 on the last day is in it
    _received(client, town_clock, may(31), 23)
    last = client.get(f"{API}/exports/ms4-annual-report", query_string={"from": "2026-05-31", "to": "2026-05-31"},
                      headers=sup).get_json()["public_reports"]
    assert last["received"] == 1


def test_the_median_of_waits():
    day = timedelta(days=1)
    assert rules.median_days([]) is None
    assert rules.median_days([day * 3]) == 3.0
    assert rules.median_days([day, day * 3, day / 2]) == 1.0
    assert rules.median_days([day / 2, day, day * 2, day * 3]) == 1.5
