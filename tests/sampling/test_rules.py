"""R-S1 holding times and R-S2 action levels and weekly averages, as pure rules at their edges."""
from __future__ import annotations

from datetime import date, datetime, timedelta, timezone
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest

from inspect_api.sampling import rules

TOWN = ZoneInfo("America/New_York")
T0 = datetime(2026, 5, 4, 13, 0, tzinfo=timezone.utc)
PH = rules.Level("ph", "SU", Decimal("6.5"), Decimal("8.3"), rules.PER_SAMPLE, "314 CMR 4.05")
TURBIDITY_WEEKLY = rules.Level("turbidity", "NTU", None, Decimal(50), rules.WEEKLY_AVERAGE, "EPA CGP")


def params(*pairs):
    return [rules.normalise_parameter({"name": n, "value": v, "unit": u}) for n, v, u in pairs]


@pytest.mark.parametrize("name,unit,limit", [("turbidity", "NTU", timedelta(hours=48)),
                                             ("tss", "mg/L", timedelta(days=7)),
                                             ("ph", "SU", timedelta(minutes=15))])
def test_holding_time_edges(name, unit, limit):
    parameters = params((name, 1, unit))
    at_limit = rules.holding_times(parameters, T0, T0 + limit, "lab", T0)
    assert at_limit[0]["ok"] is True and at_limit[0]["elapsed_seconds"] == limit.total_seconds()
    assert at_limit[0]["limit_seconds"] == limit.total_seconds() and at_limit[0]["analyzed"] is True
    assert at_limit[0]["deadline"] == T0 + limit
    late = rules.holding_times(parameters, T0, T0 + limit + timedelta(seconds=1), "lab", T0)
    assert late[0]["ok"] is False


def test_holding_time_limits_as_iso_durations():
    parameters = params(("turbidity", 1, "NTU"), ("tss", 1, "mg/L"), ("ph", 7, "SU"), ("ORP", 5, "mV"))
    report = rules.holding_times(parameters, T0, T0 + timedelta(minutes=10), "field", T0)
    assert [(r["parameter"], r["limit"], r["elapsed"], r["ok"]) for r in report] == [
        ("turbidity", "P2D", "PT10M", True), ("tss", "P7D", "PT10M", True), ("ph", "PT15M", "PT10M", True)]


def test_lab_sample_not_yet_analysed_runs_to_now():
    parameters = params(("turbidity", 1, "NTU"))
    running = rules.holding_times(parameters, T0, None, "lab", T0 + timedelta(hours=47))
    assert running[0] | {"deadline": None} == {
        "parameter": "turbidity", "limit": "P2D", "limit_seconds": 172800, "elapsed": "P1DT23H",
        "elapsed_seconds": 169200, "analyzed": False, "deadline": None, "ok": True, "status": "running",
        "exceeded_by_seconds": None}
    assert rules.holding_times(parameters, T0, None, "lab", T0 + timedelta(hours=49))[0]["ok"] is False


def test_field_reading_without_analysis_time_is_not_judged():
    report = rules.holding_times(params(("ph", 7, "SU")), T0, None, "field", T0 + timedelta(days=1))
    assert report[0]["elapsed"] is None and report[0]["ok"] is None


@pytest.mark.parametrize("value,exceeds", [(6.5, False), (8.3, False), (7.0, False), (6.49, True), (8.31, True),
                                           (0, True), (14, True)])
def test_ph_outside_6_5_to_8_3(value, exceeds):
    found = rules.sample_exceedances(params(("ph", value, "SU")), [PH])
    assert bool(found) is exceeds
    if exceeds:
        assert found == [{"parameter": "ph", "value": float(value), "unit": "SU",
                          "action_level": {"min": 6.5, "max": 8.3, "unit": "SU", "basis": "per_sample"},
                          "rule": "R-S2: pH outside 6.5\u20138.3 SU; 314 CMR 4.05"}]


def test_weekly_levels_are_not_judged_per_sample():
    assert rules.sample_exceedances(params(("turbidity", 900, "NTU")), [TURBIDITY_WEEKLY]) == []


def test_level_compares_in_the_canonical_unit():
    tss = rules.Level("tss", "mg/L", None, Decimal(100), rules.PER_SAMPLE, "")
    assert rules.sample_exceedances(params(("tss", "0.1", "g/L")), [tss]) == []
    assert rules.sample_exceedances(params(("tss", "0.1001", "g/L")), [tss])[0]["value"] == 100.1


@pytest.mark.parametrize("local,expected", [
    (datetime(2026, 5, 3, 23, 59, 59), date(2026, 4, 27)),   # Sunday night belongs to the week before
    (datetime(2026, 5, 4, 0, 0), date(2026, 5, 4)),          # Monday midnight starts a week
    (datetime(2026, 5, 10, 23, 59), date(2026, 5, 4)),
    (datetime(2026, 3, 8, 3, 30), date(2026, 3, 2)),         # the Sunday clocks spring forward
    (datetime(2026, 11, 2, 0, 30), date(2026, 11, 2)),       # the Monday after they fall back
])
def test_week_start_is_the_town_calendar_monday(local, expected):
    instant = local.replace(tzinfo=TOWN).astimezone(timezone.utc)
    assert rules.week_start(instant, TOWN) == expected


def test_week_bounds_follow_local_midnight_across_dst():
    start, end = rules.week_bounds(date(2026, 3, 2), TOWN)
    assert start.astimezone(timezone.utc) == datetime(2026, 3, 2, 5, 0, tzinfo=timezone.utc)   # EST
    assert end.astimezone(timezone.utc) == datetime(2026, 3, 9, 4, 0, tzinfo=timezone.utc)     # EDT


def _at(y, m, d, hh=12, mm=0):
    return datetime(y, m, d, hh, mm, tzinfo=TOWN).astimezone(timezone.utc)


def test_weekly_average_groups_by_outfall_and_week_and_judges_the_average():
    readings = [
        ("OF-1", _at(2026, 5, 4), Decimal(40)), ("OF-1", _at(2026, 5, 10, 23, 59), Decimal(60)),  # avg 50: meets
        ("OF-1", _at(2026, 5, 11, 0, 0), Decimal("50.02")), ("OF-1", _at(2026, 5, 12), Decimal(50)),  # avg 50.01
        ("OF-2", _at(2026, 5, 4), Decimal(10)),
    ]
    rows = rules.weekly_rows(readings, TOWN, TURBIDITY_WEEKLY)
    assert [(r.outfall_id, r.week_start, r.samples, r.average, r.exceeds) for r in rows] == [
        ("OF-1", date(2026, 5, 4), 2, Decimal(50), False),
        ("OF-1", date(2026, 5, 11), 2, Decimal("50.01"), True),
        ("OF-2", date(2026, 5, 4), 1, Decimal(10), False),
    ]


def test_weekly_average_uses_the_exact_sum():
    # Three readings averaging 50.000...01 (not representable in binary) still exceed 50.
    readings = [("OF-1", _at(2026, 5, 5), Decimal("50")), ("OF-1", _at(2026, 5, 6), Decimal("50")),
                ("OF-1", _at(2026, 5, 7), Decimal("50.00000001"))]
    assert rules.weekly_rows(readings, TOWN, TURBIDITY_WEEKLY)[0].exceeds is True
    assert rules.weekly_rows(readings, TOWN, None)[0].exceeds is False


def test_impossible_times():
    custody = [{"at": T0 + timedelta(hours=2)}, {"at": T0 + timedelta(hours=1)}, {"at": T0 - timedelta(seconds=1)}]
    errors = rules.check_times(T0, T0 - timedelta(minutes=1), T0 - timedelta(minutes=1), custody)
    assert errors == {"analyzed_at": ["Cannot be before sampled_at."],
                      "received_by_lab_at": ["Cannot be before sampled_at."],
                      "chain_of_custody": ["Transfer 1 is before transfer 0.", "Transfer 2 is before transfer 1."]}
    assert rules.check_times(T0, T0, T0, [{"at": T0}, {"at": T0}]) == {}


def test_a_sample_is_placed_by_a_point_or_an_outfall():
    assert rules.place_problems(None, None) == {"location": ["Give the location, the outfall_id, or both."]}
    assert rules.place_problems(None, "") != {}
    assert rules.place_problems(41.6, None) == {} and rules.place_problems(None, "OF-1") == {}


def test_known_on_is_the_town_day_the_result_became_known():
    late_evening = datetime(2026, 5, 5, 2, 30, tzinfo=timezone.utc)   # 22:30 on May 4 in Fairhaven
    assert rules.known_on("field", late_evening, None, T0 + timedelta(days=9), TOWN) == date(2026, 5, 4)
    assert rules.known_on("lab", late_evening, T0 + timedelta(days=2), T0, TOWN) == date(2026, 5, 6)
    assert rules.known_on("lab", late_evening, None, T0 + timedelta(days=3), TOWN) == date(2026, 5, 7)


@pytest.mark.parametrize("delta,text", [(timedelta(0), "PT0S"), (timedelta(minutes=15), "PT15M"),
                                        (timedelta(days=7), "P7D"), (timedelta(days=1, hours=2, seconds=3), "P1DT2H3S"),
                                        (timedelta(minutes=-5), "-PT5M")])
def test_iso_duration(delta, text):
    assert rules.iso_duration(delta) == text
