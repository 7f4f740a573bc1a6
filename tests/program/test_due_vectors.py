"""The shared cases of tests/program/due_vectors.json (what a site owes, R-I1, R-I4), run against the
server's rules; tests/js/program.test.js runs the same file against the device's mirror, so the two
agree case by case, at each rule's boundary."""
from __future__ import annotations

import json
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from inspect_api.program import rules

CASES = json.loads((Path(__file__).parent / "due_vectors.json").read_text())["cases"]


def _at(value: str | None) -> datetime | None:
    return None if value is None else datetime.fromisoformat(value)


def _day(value: str | None) -> date | None:
    return None if value is None else date.fromisoformat(value)


def scenario(case: dict) -> list[rules.Obligation]:
    """The case's records as services.program hands them to the rules."""
    site = case["site"]
    started = {i["id"]: _at(i["started_at"]) for i in case.get("inspections", [])}
    visits = [rules.Visit(i["id"], i["kind"], started[i["id"]], tuple(str(f) for f in i.get("verifies_finding_ids", [])))
              for i in case.get("inspections", []) if i.get("status", "submitted") in ("submitted", "approved", "returned")]
    storms = [rules.Storm(s["id"], _at(s["ended_at"]), Decimal(s["inches"])) for s in case.get("storms", [])]
    findings = [rules.FindingDue(f["id"], _day(f["due_on"]), f["status"],
                                 started.get(f.get("verified_by_inspection_id")), f.get("verified_by_inspection_id"))
                for f in case.get("findings", [])]
    requests = [rules.Request(r["id"], r["kind"], _at(r["created_at"]), tuple(_day(d) for d in r.get("preferred_dates", [])))
                for r in case.get("requests", [])]
    raw = case.get("settings", {})
    settings = rules.Settings(routine_days=int(raw.get("routine_days", 14)),
                              storm_threshold_inches=Decimal(raw.get("storm_threshold_inches", "0.25")),
                              storm_window_hours=int(raw.get("storm_window_hours", 24)),
                              response_days=int(raw.get("response_days", 5)))
    return rules.obligations(rules.Site(site["id"], site["status"], _at(site["decided_at"]),
                                        _day(site["work_commenced_on"]), _day(site["work_completed_on"])),
                             visits, storms, findings, requests, settings)


def state(o: rules.Obligation, now: datetime) -> str:
    if o.done:
        return "late" if o.late else "on_time"
    if o.missed(now):
        return "missed"
    return "overdue" if o.overdue(now) else "due"


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_due_vector(case):
    now = _at(case["now"])
    found = scenario(case)
    assert [[o.kind, o.source, o.source_id, o.due_at, state(o, now), o.inspection_id] for o in found] == \
        [[kind, source, source_id, _at(due_at), expected, by] for kind, source, source_id, due_at, expected, by
         in case["expect"]]
    listed = rules.due(found, case["site"]["status"], now)
    assert [state(o, now) for o in listed] == [row[4] for row in case["expect"] if row[4] in ("due", "overdue")]
