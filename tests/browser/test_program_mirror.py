"""The device's inspection program (static/pwa/js/rules/program.js) is the server's (inspect_api/program/
rules.py): both run in the same scenarios, edges included, and must owe the same inspections by the same
instants, met by the same visits."""
from __future__ import annotations

from datetime import date, datetime, time, timedelta, timezone
from decimal import Decimal

import pytest

from inspect_api.program import rules

from .helpers import release_db

TZ = rules.Settings().tz


@pytest.fixture
def page(live_server, new_context):
    release_db()
    page = new_context().new_page()
    page.goto(live_server.url + "/#/login")
    page.wait_for_selector("html[data-ready=true]")
    return page


def at(day: date, hh: int = 12, mm: int = 0, ss: int = 0) -> datetime:
    return datetime.combine(day, time(hh, mm, ss), tzinfo=TZ).astimezone(timezone.utc)


D0 = date(2026, 10, 26)  # the week before clocks go back (1 November 2026)
SCENARIOS = {
    "active with storms at the edges": dict(
        site=rules.Site("p", "active", at(D0 - timedelta(days=9)), D0, None),
        visits=[rules.Visit("v1", "storm_event", at(D0 + timedelta(days=2), 0, 0)),
                rules.Visit("v2", "routine", at(D0 + timedelta(days=3), 9)),
                rules.Visit("v3", "pre_construction", at(D0 - timedelta(days=1)))],
        storms=[rules.Storm("s1", at(D0, 23, 59), Decimal("0.25")), rules.Storm("s0", at(D0 - timedelta(days=1), 22),
                                                                                Decimal("3")),
                rules.Storm("s2", at(D0 + timedelta(days=5), 7), Decimal("0.24")),
                rules.Storm("s3", at(D0 + timedelta(days=5), 20), Decimal("0.40")),  # 20:00 on 31 Oct
                rules.Storm("s4", at(D0 + timedelta(days=6), 20), Decimal("0.40")),  # 20:00 on the day clocks go back
                rules.Storm("s5", at(D0 + timedelta(days=6), 22), Decimal("0.50"))],
        findings=[rules.FindingDue("f1", D0 + timedelta(days=2), "open"),
                  rules.FindingDue("f2", D0 + timedelta(days=1), "closed", at(D0 + timedelta(days=3), 9), "v2")],
        requests=[rules.Request("r1", "re_inspection", at(D0 + timedelta(days=1), 10), (D0 + timedelta(days=4),)),
                  rules.Request("r2", "post_installation", at(D0 - timedelta(days=3), 10))],
        settings={}),
    "approved, not commenced, weekly routine": dict(
        site=rules.Site("p", "approved", at(D0 - timedelta(days=2)), None, None), visits=[], storms=[
            rules.Storm("s1", at(D0), Decimal("2"))], findings=[], requests=[], settings={"routine_days": 7}),
    "work complete with a final": dict(
        site=rules.Site("p", "work_complete", at(D0 - timedelta(days=60)), D0 - timedelta(days=40), D0),
        visits=[rules.Visit("v1", "final", at(D0 + timedelta(days=5), 23, 59, 59))],
        storms=[rules.Storm("s1", at(D0, 23, 59, 59), Decimal("0.25")), rules.Storm("s2", at(D0 + timedelta(days=1), 0, 0, 1),
                                                                                      Decimal("0.25"))],
        findings=[], requests=[], settings={"storm_threshold_inches": "0.50", "storm_window_hours": 48,
                                            "response_days": 3}),
}


def _iso(value: datetime) -> str:
    return value.isoformat()


def _js_input(s: dict) -> dict:
    site = s["site"]
    return {
        "site": {"id": site.permit_id, "status": site.status, "decided_at": _iso(site.decided_at),
                 "created_at": _iso(site.decided_at), "work_commenced_on": site.commenced_on and site.commenced_on.isoformat(),
                 "work_completed_on": site.completed_on and site.completed_on.isoformat()},
        "inspections": [{"id": v.id, "kind": v.kind, "started_at": _iso(v.started_at), "status": "submitted",
                         "verifies_finding_ids": list(v.verifies)} for v in s["visits"]],
        "storms": [{"id": x.id, "ended_at": _iso(x.ended_at), "inches": str(x.inches)} for x in s["storms"]],
        "findings": [{"id": f.id, "due_on": f.due_on.isoformat(), "status": f.status,
                      "verified_by_inspection_id": f.verified_by} for f in s["findings"]],
        "requests": [{"id": r.id, "kind": r.kind, "created_at": _iso(r.created_at),
                      "preferred_dates": [d.isoformat() for d in r.preferred_dates]} for r in s["requests"]],
        "settings": s["settings"]}


def _python(s: dict) -> list[list]:
    raw = s["settings"]
    settings = rules.Settings(routine_days=int(raw.get("routine_days", 14)),
                              storm_threshold_inches=Decimal(raw.get("storm_threshold_inches", "0.25")),
                              storm_window_hours=int(raw.get("storm_window_hours", 24)),
                              response_days=int(raw.get("response_days", 5)))
    found = rules.obligations(s["site"], s["visits"], s["storms"], s["findings"], s["requests"], settings)
    return [[o.kind, o.source, o.source_id, int(o.due_at.timestamp() * 1000), o.binding,
             None if o.done_at is None else int(o.done_at.timestamp() * 1000), o.inspection_id, o.reason,
             None if o.closes_at is None else int(o.closes_at.timestamp() * 1000)] for o in found]


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_program_mirror_matches_python(page, name):
    scenario = SCENARIOS[name]
    # The verified-by visit of a closed finding is one of the site's inspections on the device too.
    js = page.evaluate("""async (c) => {
        const m = await import('/static/pwa/js/rules/program.js');
        return m.obligations(c.site, c.inspections, c.storms, c.findings, c.requests, c.settings)
          .map(o => [o.kind, o.source, o.source_id, o.due_at, o.binding, o.done_at, o.inspection_id, o.reason,
                     o.closes_at]);
    }""", _js_input(scenario))
    python = _python(scenario)
    assert js == python
    assert python, "an empty scenario proves nothing"


def test_scenarios_cover_the_edges():
    edges = _python(SCENARIOS["active with storms at the edges"])
    storms = {row[2]: row for row in edges if row[0] == "storm_event"}
    assert set(storms) == {"s1", "s3", "s4", "s5"}            # s0 before commencement, s2 under the threshold
    assert storms["s1"][5] is not None                        # 00:00 visit: met, one minute late
    assert storms["s4"][3] - storms["s3"][3] == 25 * 3600 * 1000   # the 25-hour day clocks go back
