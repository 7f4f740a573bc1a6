"""The app's offline rules are the server's rules: each JS mirror is run in Chromium against the
Python function it copies, over the edges of its decision table."""
from __future__ import annotations

from datetime import date, datetime, timedelta, timezone
from types import SimpleNamespace

import pytest

from inspect_api.entry.rules import coverage_problem, coverage_reason
from inspect_api.inspections.rules import finding_due_on
from inspect_api.permits.rules import ExemptionClaim, determine
from inspect_api.sampling.rules import duration_words, holding_times, normalise_parameter

from .helpers import release_db


@pytest.fixture
def page(live_server, new_context):
    release_db()
    page = new_context().new_page()
    page.goto(live_server.url + "/#/login")
    page.wait_for_selector("html[data-ready=true]")
    return page


def iso(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


T0 = datetime(2026, 5, 4, 14, 3, tzinfo=timezone.utc)
AUTH = dict(permit_id="p-1", scope=["examination", "survey"], valid_from=T0, valid_to=T0 + timedelta(days=30), revoked_at=None)
ENTRY_CASES = [
    (None, "p-1", "examination", T0),
    (AUTH, "p-2", "examination", T0),                                             # other site
    (AUTH, "p-1", "examination", T0 - timedelta(seconds=1)),                      # not yet valid
    (AUTH, "p-1", "examination", T0),                                             # first instant: covered
    (AUTH, "p-1", "examination", T0 + timedelta(days=30)),                        # valid_to is exclusive
    (AUTH, "p-1", "examination", T0 + timedelta(days=30, microseconds=-1000)),    # last millisecond
    (AUTH, "p-1", "sampling", T0 + timedelta(days=1)),                            # scope lacks sampling
    ({**AUTH, "revoked_at": T0 + timedelta(days=2, milliseconds=250)}, "p-1", "survey", T0 + timedelta(days=3)),
    ({**AUTH, "revoked_at": T0 + timedelta(days=2)}, "p-1", "survey", T0 + timedelta(days=2)),   # at revocation
    ({**AUTH, "revoked_at": T0 + timedelta(days=2)}, "p-1", "survey", T0 + timedelta(days=1)),   # before it
    ({**AUTH, "revoked_at": T0 + timedelta(days=40)}, "p-1", "survey", T0 + timedelta(days=35)), # expired first
    ({**AUTH, "valid_to": None}, "p-1", "examination", T0 + timedelta(days=900)),                # open-ended
    ({**AUTH, "scope": []}, "p-1", "survey", T0 + timedelta(days=1)),
]


def test_entry_rule_mirror_matches_python(page):
    cases = [{"auth": None if a is None else {k: (iso(v) if isinstance(v, datetime) else v) for k, v in a.items()},
              "permit": p, "activity": act, "at": iso(at)} for a, p, act, at in ENTRY_CASES]
    js = page.evaluate("""async (cases) => {
        const m = await import('/static/pwa/js/rules/entry.js');
        return cases.map(c => [m.coverageReason(c.auth, c.permit, c.activity, c.at), m.coverageProblem(c.auth, c.permit, c.activity, c.at)]);
    }""", cases)
    python = [[coverage_reason(None if a is None else SimpleNamespace(**a), p, act, at),
               coverage_problem(None if a is None else SimpleNamespace(**a), p, act, at)] for a, p, act, at in ENTRY_CASES]
    assert js == python
    assert {row[0] for row in python} == {None, "none", "other_site", "not_yet_valid", "revoked", "expired", "scope"}


DETERMINATION_CASES = [
    (0, True, False, None, []), (4999, True, True, None, []), (5000, True, False, None, []),
    (5000, False, False, None, []), (20000, False, True, None, []), (20000.5, True, False, None, []),
    (20001, True, False, None, []), (12345.67, True, False, None, []), (1_250_000, True, False, None, []),
    (6000, True, False, "marina", []), (6000, True, False, "other", []), (4000, True, False, "auto_fueling", []),
    (9000, True, False, None, [("B1", False)]), (9000, True, False, None, [("B5", True), ("B2", False)]),
    (30000, True, False, None, [("B5", False)]), (30000, True, False, "marina", [("B6", False), ("B5", False)]),
]


def test_determination_mirror_matches_python(page):
    cases = [{"area": a, "ms4": m, "waters": w, "luhppl": l, "claims": [{"kind": k, "document_valid": v} for k, v in c]}
             for a, m, w, l, c in DETERMINATION_CASES]
    js = page.evaluate("""async (cases) => {
        const m = await import('/static/pwa/js/rules/determination.js');
        return cases.map(c => m.determine(c.area, c.ms4, c.waters, c.luhppl, c.claims, c.luhppl === 'other' ? 'boat storage' : null));
    }""", cases)
    python = [determine(a, m, w, l, [ExemptionClaim(k, v) for k, v in c], "boat storage" if l == "other" else None).as_dict()
              for a, m, w, l, c in DETERMINATION_CASES]
    assert js == python


def test_due_date_mirror_matches_python_across_years(page):
    days = [date(2025, 12, 20) + timedelta(days=n) for n in range(0, 800, 1)]
    js = page.evaluate("""async (days) => {
        const m = await import('/static/pwa/js/rules/workdays.js');
        return days.map(d => [m.findingDueOn(d, false), m.findingDueOn(d, true)]);
    }""", [d.isoformat() for d in days])
    python = [[finding_due_on(d, False).isoformat(), finding_due_on(d, True).isoformat()] for d in days]
    assert js == python


def test_action_level_warnings_at_the_edges(page):
    readings = [("turbidity", "50", "NTU"), ("turbidity", "50.1", "NTU"), ("ph", "6.5", "SU"), ("ph", "6.49", "SU"),
                ("ph", "8.3", "SU"), ("ph", "8.31", "SU"), ("tss", "0.2", "g/L"), ("ph", "15", "SU"), ("turbidity", "60", "FNU")]
    js = page.evaluate("""async (readings) => {
        const m = await import('/static/pwa/js/rules/samples.js');
        return readings.map(([n, v, u]) => [m.actionWarnings(n, v, u).length, m.valueProblem(n, v, u)]);
    }""", readings)
    assert [w for w, _ in js] == [0, 1, 0, 1, 0, 1, 0, 0, 0]
    assert [p is not None for _, p in js] == [False] * 7 + [True, True]


HOLD_T0 = datetime(2026, 5, 4, 13, 0, tzinfo=timezone.utc)
# (parameter, analysis, analyzed after, now after): at each limit, a second and a minute over, running to now.
HOLDING_CASES = [
    *[(name, "lab", limit + extra, None) for name, limit in (("turbidity", timedelta(hours=48)),
                                                             ("ph", timedelta(minutes=15)), ("tss", timedelta(days=7)))
      for extra in (timedelta(0), timedelta(seconds=1), timedelta(minutes=1), -timedelta(milliseconds=1))],
    ("turbidity", "lab", None, timedelta(hours=48)), ("turbidity", "lab", None, timedelta(hours=48, milliseconds=1)),
    ("turbidity", "lab", None, timedelta(hours=48, minutes=1)), ("ph", "lab", None, timedelta(minutes=15)),
    ("conductivity", "lab", None, timedelta(days=28, seconds=-1)), ("oil_and_grease", "lab", None, timedelta(days=29)),
    ("ph", "field", None, timedelta(days=2)), ("dissolved_oxygen", "field", timedelta(minutes=16), None),
    ("temperature", "lab", timedelta(minutes=14, seconds=59), None),
]


def test_holding_time_mirror_matches_python(page):
    """The countdown and its flag on the tablet decide as the server does (sampling/rules.py holding_times)."""
    cases = [{"name": n, "analysis": a, "analyzed": iso(HOLD_T0 + d) if d is not None else None,
              "now": iso(HOLD_T0 + (w if w is not None else timedelta(0)))} for n, a, d, w in HOLDING_CASES]
    js = page.evaluate("""async ([t0, cases]) => {
        const m = await import('/static/pwa/js/rules/samples.js');
        return cases.map(c => m.holdingTimes([{name: c.name}], t0, c.analyzed, c.analysis, new Date(c.now)).map(h =>
            [h.parameter, h.status, h.ok, h.elapsed_seconds, h.exceeded_by_seconds, h.limit_seconds, Date.parse(h.deadline),
             m.durationWords(h.exceeded_by_seconds ?? h.limit_seconds)]));
    }""", [iso(HOLD_T0), cases])
    unit = {"turbidity": "NTU", "ph": "SU", "tss": "mg/L", "conductivity": "uS/cm", "oil_and_grease": "mg/L",
            "dissolved_oxygen": "mg/L", "temperature": "C"}
    python = []
    for n, a, d, w in HOLDING_CASES:
        item = normalise_parameter({"name": n, "value": None if a == "lab" else 7, "unit": unit[n]})
        report = holding_times([item], HOLD_T0, HOLD_T0 + d if d is not None else None, a,
                               HOLD_T0 + (w if w is not None else timedelta(0)))
        python.append([[h["parameter"], h["status"], h["ok"], h["elapsed_seconds"], h["exceeded_by_seconds"],
                        h["limit_seconds"], int(h["deadline"].timestamp() * 1000),
                        duration_words(h["exceeded_by_seconds"] if h["exceeded_by_seconds"] is not None
                                       else h["limit_seconds"])] for h in report])
    assert js == python
    assert {row[0][1] for row in python} == {"within", "exceeded", "running", "not_judged"}
