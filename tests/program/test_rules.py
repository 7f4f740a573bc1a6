"""The inspection program's rules (R-I1 kinds, R-I4 findings) at their edges, as pure functions."""
from __future__ import annotations

from datetime import date, datetime, time, timedelta, timezone
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest

from inspect_api.program import rules
from inspect_api.program.noaa import CsvProblem, parse_daily_csv

TZ = ZoneInfo("America/New_York")
S = rules.Settings()


def at(day: date, hh: int = 12, mm: int = 0, ss: int = 0) -> datetime:
    return datetime.combine(day, time(hh, mm, ss), tzinfo=TZ).astimezone(timezone.utc)


D0 = date(2026, 5, 4)  # a Monday
ACTIVE = rules.Site("p1", "active", at(D0 - timedelta(days=10)), D0, None)


def owed(site=ACTIVE, visits=(), storms=(), findings=(), requests=(), settings=S):
    return rules.obligations(site, list(visits), list(storms), list(findings), list(requests), settings)


def of(kind, found):
    return [o for o in found if o.kind == kind]


# -- storm events (R-I1: within 24 h of >= 0.25 in) ---------------------------------------------------------
def test_storm_of_exactly_the_threshold_obliges_and_just_under_does_not():
    found = owed(storms=[rules.Storm("s1", at(D0 + timedelta(days=1)), Decimal("0.25")),
                         rules.Storm("s2", at(D0 + timedelta(days=2)), Decimal("0.24"))])
    storms = of("storm_event", found)
    assert [o.source_id for o in storms] == ["s1"]
    assert storms[0].due_at == at(D0 + timedelta(days=2)) and storms[0].rules == ("R-I1",)


def test_storm_ending_2359_town_time_is_due_2359_next_day_and_one_minute_late_is_late():
    ended = at(D0 + timedelta(days=3), 23, 59)
    storm = rules.Storm("s", ended, Decimal("0.50"))
    open_ = of("storm_event", owed(storms=[storm]))[0]
    assert open_.due_at == at(D0 + timedelta(days=4), 23, 59)
    assert not open_.overdue(at(D0 + timedelta(days=4), 23, 59))
    assert open_.overdue(at(D0 + timedelta(days=4), 23, 59, 1))
    on_time = of("storm_event", owed(storms=[storm], visits=[rules.Visit("v", "storm_event",
                                                                          at(D0 + timedelta(days=4), 23, 59))]))[0]
    late = of("storm_event", owed(storms=[storm], visits=[rules.Visit("v", "storm_event",
                                                                       at(D0 + timedelta(days=5), 0, 0))]))[0]
    assert on_time.done and not on_time.late
    assert late.done and late.late and late.inspection_id == "v"


def test_storm_ending_2359_on_the_commencement_day_obliges_a_site_commencing_next_day_does_not():
    storm = rules.Storm("s", at(D0, 23, 59), Decimal("1.00"))
    assert len(of("storm_event", owed(storms=[storm]))) == 1
    later = rules.Site("p1", "active", at(D0 - timedelta(days=10)), D0 + timedelta(days=1), None)
    assert of("storm_event", owed(site=later, storms=[storm])) == []


def test_site_becoming_active_after_the_storm_owes_nothing_for_it():
    storm = rules.Storm("s", at(D0 - timedelta(days=1), 18), Decimal("2.00"))
    assert of("storm_event", owed(storms=[storm])) == []
    approved = rules.Site("p1", "approved", at(D0 - timedelta(days=10)), None, None)
    assert of("storm_event", owed(site=approved, storms=[rules.Storm("s", at(D0), Decimal("2.00"))])) == []


def test_two_storms_in_one_day_each_oblige_and_one_visit_after_both_meets_both():
    first, second = rules.Storm("a", at(D0 + timedelta(days=1), 8), Decimal("0.30")), \
        rules.Storm("b", at(D0 + timedelta(days=1), 20), Decimal("0.40"))
    both = of("storm_event", owed(storms=[first, second]))
    assert [o.source_id for o in both] == ["a", "b"] and not any(o.done for o in both)
    between = of("storm_event", owed(storms=[first, second], visits=[
        rules.Visit("v1", "storm_event", at(D0 + timedelta(days=1), 10))]))
    assert [(o.source_id, o.done) for o in between] == [("a", True), ("b", False)]
    after = of("storm_event", owed(storms=[first, second], visits=[
        rules.Visit("v2", "storm_event", at(D0 + timedelta(days=2), 9))]))
    assert [(o.source_id, o.done, o.late) for o in after] == [("a", True, True), ("b", True, False)]


def test_storm_after_work_complete_day_owes_nothing_a_follow_up_does_not_meet_it_a_routine_visit_does():
    done = rules.Site("p1", "work_complete", at(D0 - timedelta(days=10)), D0, D0 + timedelta(days=5))
    assert len(of("storm_event", owed(site=done, storms=[rules.Storm("s", at(D0 + timedelta(days=5), 23, 0),
                                                                          Decimal("1"))]))) == 1
    assert of("storm_event", owed(site=done, storms=[rules.Storm("s", at(D0 + timedelta(days=6), 0, 1),
                                                                     Decimal("1"))])) == []
    storm = rules.Storm("s", at(D0 + timedelta(days=1)), Decimal("1"))
    follow_up_only = of("storm_event", owed(storms=[storm], visits=[
        rules.Visit("v", "follow_up", at(D0 + timedelta(days=1), 14))]))
    assert not follow_up_only[0].done
    routine = of("storm_event", owed(storms=[storm], visits=[rules.Visit("v", "routine", at(D0 + timedelta(days=1), 14))]))
    assert routine[0].inspection_id == "v" and not routine[0].late


def test_storm_threshold_and_window_are_settings():
    custom = rules.Settings(storm_threshold_inches=Decimal("0.50"), storm_window_hours=48)
    storms = [rules.Storm("s1", at(D0 + timedelta(days=1)), Decimal("0.49")),
              rules.Storm("s2", at(D0 + timedelta(days=2)), Decimal("0.50"))]
    found = of("storm_event", owed(storms=storms, settings=custom))
    assert [o.source_id for o in found] == ["s2"] and found[0].due_at == at(D0 + timedelta(days=4))


# -- routine --------------------------------------------------------------------------------------------------
def test_routine_every_14_days_from_commencement_then_from_each_routine_inspection():
    first = of("routine", owed())
    assert len(first) == 1 and first[0].due_at == at(D0 + timedelta(days=14), 23, 59, 59)
    visit = rules.Visit("v", "routine", at(D0 + timedelta(days=10), 9))
    chain = of("routine", owed(visits=[visit]))
    assert [(o.done, o.due_at) for o in chain] == [(True, at(D0 + timedelta(days=14), 23, 59, 59)),
                                                    (False, at(D0 + timedelta(days=24), 23, 59, 59))]


def test_routine_done_one_second_into_the_next_day_is_late_and_restarts_the_interval():
    late_visit = rules.Visit("v", "routine", at(D0 + timedelta(days=15), 0, 0, 0))
    chain = of("routine", owed(visits=[late_visit]))
    assert chain[0].late and chain[1].due_at == at(D0 + timedelta(days=29), 23, 59, 59)
    on_time = of("routine", owed(visits=[rules.Visit("v", "routine", at(D0 + timedelta(days=14), 23, 59, 59))]))
    assert on_time[0].done and not on_time[0].late


def test_routine_interval_of_7_where_the_town_sets_it_and_none_past_completion():
    assert of("routine", owed(settings=rules.Settings(routine_days=7)))[0].due_at == at(
        D0 + timedelta(days=7), 23, 59, 59)
    finished = rules.Site("p1", "work_complete", at(D0 - timedelta(days=10)), D0, D0 + timedelta(days=10))
    assert of("routine", owed(site=finished)) == []


# -- pre-construction, post-installation, final ---------------------------------------------------------------
def test_pre_construction_has_no_deadline_until_work_commences_then_is_missed_never_overdue():
    approved = rules.Site("p1", "issued", at(D0 - timedelta(days=3)), None, None)
    pre = of("pre_construction", owed(site=approved))[0]
    assert not pre.binding and not pre.overdue(at(D0 + timedelta(days=300)))
    commenced = of("pre_construction", owed())[0]
    assert commenced.binding and commenced.due_at == at(D0, 23, 59, 59)
    assert not commenced.missed(at(D0, 23, 59, 59)) and rules.due([commenced], "active", at(D0, 23, 59, 59))
    after = at(D0 + timedelta(days=1), 0, 0, 0)
    assert commenced.missed(after) and not commenced.overdue(after) and rules.due([commenced], "active", after) == []
    met = of("pre_construction", owed(visits=[rules.Visit("v", "pre_construction", at(D0 - timedelta(days=1)))]))[0]
    assert met.done and not met.late


def test_post_installation_reported_by_request_or_by_commencement_whichever_first():
    approved = rules.Site("p1", "issued", at(D0 - timedelta(days=3)), None, None)
    assert of("post_installation", owed(site=approved)) == []
    request = rules.Request("r", "post_installation", at(D0 - timedelta(days=2), 9))
    derived = [o for o in owed(site=approved, requests=[request]) if o.kind == "post_installation"]
    assert {o.source for o in derived} == {"program", "request"}
    program = next(o for o in derived if o.source == "program")
    assert program.due_at == at(D0 - timedelta(days=2) + timedelta(days=5), 23, 59, 59)
    from_commencement = of("post_installation", owed())[0]
    assert from_commencement.due_at == at(D0 + timedelta(days=5), 23, 59, 59)


def test_final_when_work_reported_complete():
    finished = rules.Site("p1", "work_complete", at(D0 - timedelta(days=10)), D0, D0 + timedelta(days=20))
    final = of("final", owed(site=finished))[0]
    assert final.due_at == at(D0 + timedelta(days=25), 23, 59, 59) and not final.done
    assert of("final", owed()) == []


def test_closed_denied_and_draft_sites_list_nothing_due():
    closed = rules.Site("p1", "closed", at(D0 - timedelta(days=10)), D0, D0 + timedelta(days=20))
    assert owed(site=closed) and rules.due(owed(site=closed), "closed", at(D0)) == []
    assert owed(site=rules.Site("p1", "draft", None, None, None)) == []
    assert owed(site=rules.Site("p1", "denied", at(D0), None, None)) == []


# -- follow-up (R-I4) and requests -----------------------------------------------------------------------------
def test_follow_up_at_the_finding_due_day_met_only_by_a_follow_up_naming_it():
    finding = rules.FindingDue("f1", D0 + timedelta(days=1), "open")
    follow = of("follow_up", owed(findings=[finding]))[0]
    assert follow.due_at == at(D0 + timedelta(days=1), 23, 59, 59) and follow.rules == ("R-I1", "R-I4")
    other = of("follow_up", owed(findings=[finding], visits=[rules.Visit("v", "follow_up", at(D0, 15), ("f9",))]))
    assert not other[0].done
    naming = of("follow_up", owed(findings=[finding], visits=[rules.Visit("v", "follow_up",
                                                                            at(D0 + timedelta(days=2), 8), ("f1",))]))
    assert naming[0].done and naming[0].late
    closed = rules.FindingDue("f2", D0, "closed", at(D0, 10), "v7")
    assert of("follow_up", owed(findings=[closed]))[0].inspection_id == "v7"


def test_request_due_at_first_preferred_day_else_response_days_and_met_by_inspection_after_it():
    made = at(D0, 10)
    preferred = rules.Request("r", "final", made, (D0 + timedelta(days=9), D0 + timedelta(days=3)))
    plain = rules.Request("q", "re_inspection", made)
    found = [o for o in owed(requests=[preferred, plain]) if o.source == "request"]
    by_id = {o.source_id: o for o in found}
    assert by_id["r"].kind == "final" and by_id["r"].due_at == at(D0 + timedelta(days=3), 23, 59, 59)
    assert by_id["q"].kind == "follow_up" and by_id["q"].due_at == at(D0 + timedelta(days=5), 23, 59, 59)
    before = [o for o in owed(requests=[plain], visits=[rules.Visit("v", "follow_up", at(D0, 9))])
              if o.source == "request"]
    after = [o for o in owed(requests=[plain], visits=[rules.Visit("v", "follow_up", at(D0, 11))])
             if o.source == "request"]
    assert not before[0].done and after[0].done_at == at(D0, 11)


# -- MS4 counts ---------------------------------------------------------------------------------------------
def test_month_counts_due_on_time_late_and_not_done_per_kind_and_month():
    storms = [rules.Storm("a", at(date(2026, 5, 10)), Decimal("1")), rules.Storm("b", at(date(2026, 5, 20)), Decimal("1")),
              rules.Storm("c", at(date(2026, 6, 2)), Decimal("1"))]
    visits = [rules.Visit("v1", "storm_event", at(date(2026, 5, 11), 11)),
              rules.Visit("v2", "storm_event", at(date(2026, 5, 21), 12, 1))]
    found = owed(storms=storms, visits=visits)
    counts = {(c.kind, c.month): c for c in rules.month_counts(found, date(2026, 1, 1), date(2026, 12, 31),
                                                              at(date(2026, 6, 10)), TZ)}
    may, june = counts[("storm_event", "2026-05")], counts[("storm_event", "2026-06")]
    assert (may.due, may.on_time, may.late, may.not_done) == (2, 1, 1, 0)
    assert (june.due, june.on_time, june.late, june.not_done) == (1, 0, 0, 1)


def test_month_counts_missed_among_not_done_the_day_after_completion_not_on_it():
    # Commenced 6 April, routine met 10 April, the next (due 24 April) never made; work complete 4 May.
    finished = rules.Site("p1", "work_complete", at(date(2026, 3, 30)), date(2026, 4, 6), date(2026, 5, 4))
    found = owed(site=finished, visits=[rules.Visit("v", "routine", at(date(2026, 4, 10)))])

    def april(now):
        counts = {c.kind: c for c in rules.month_counts(found, date(2026, 4, 1), date(2026, 4, 30), now, TZ)}
        return [(k, counts[k].due, counts[k].on_time, counts[k].late, counts[k].not_done, counts[k].missed)
                for k in ("pre_construction", "post_installation", "routine")]
    assert april(at(date(2026, 5, 4), 23, 59, 59)) == [("pre_construction", 1, 0, 0, 1, 1),
                                                       ("post_installation", 1, 1, 0, 0, 0),
                                                       ("routine", 2, 1, 0, 1, 0)]
    assert april(at(date(2026, 5, 5), 0, 0, 0))[2] == ("routine", 2, 1, 0, 1, 1)


# -- NOAA CDO daily CSV ---------------------------------------------------------------------------------------
CDO = '''"STATION","NAME","DATE","PRCP","SNOW","TMAX"
"USW00094726","NEW BEDFORD REGIONAL AIRPORT, MA US","2026-05-01","0.25","0.0","61"
"USW00094726","NEW BEDFORD REGIONAL AIRPORT, MA US","2026-05-02","0.24","0.0","60"
"USW00094726","NEW BEDFORD REGIONAL AIRPORT, MA US","2026-05-03","","0.0","58"
"USC00190535","FAIRHAVEN, MA US","2026-05-02","0.31","",""
'''


def test_cdo_csv_one_storm_per_day_at_or_over_threshold_highest_station_reading_missing_prcp_ignored():
    rows = parse_daily_csv(CDO)
    assert [(r.day.isoformat(), str(r.inches)) for r in rows] == [
        ("2026-05-01", "0.25"), ("2026-05-02", "0.24"), ("2026-05-02", "0.31")]
    storms = rules.storm_days(rows, S)
    assert [(s.day.isoformat(), str(s.inches), s.station) for s in storms] == [
        ("2026-05-01", "0.25", "USW00094726"), ("2026-05-02", "0.31", "USC00190535")]
    assert rules.day_storm_ends(date(2026, 5, 1), S) == at(date(2026, 5, 1), 23, 59, 59)


@pytest.mark.parametrize("text, problem", [
    ('"STATION","DATE","PRCP"\n"X","2026-05-01","0.3"\n', "missing column NAME"),
    ('"STATION","NAME","DATE","PRCP"\n"X","N","05/01/2026","0.3"\n', "line 2: DATE"),
    ('"STATION","NAME","DATE","PRCP"\n"X","N","2026-05-01","T"\n', "line 2: PRCP"),
    ('"STATION","NAME","DATE","PRCP"\n"X","N","2026-05-01","-1"\n', "line 2: PRCP"),
])
def test_cdo_csv_problems_name_the_line_and_column(text, problem):
    with pytest.raises(CsvProblem) as caught:
        parse_daily_csv(text)
    assert any(p.startswith(problem) for p in caught.value.problems), caught.value.problems


# -- what an import refuses: units, future days, the Massachusetts record, the size of a file --------------
def _cdo(*rows: tuple[str, str]) -> str:
    return '"STATION","NAME","DATE","PRCP"\n' + "".join(
        f'"USW00094726","NEW BEDFORD REGIONAL AIRPORT, MA US","{day}","{prcp}"\n' for day, prcp in rows)


def test_cdo_csv_in_metric_units_is_read_as_millimetres_and_never_rounded_over_the_threshold():
    rows = parse_daily_csv(_cdo(("2026-05-01", "3.0"), ("2026-05-02", "6.3"), ("2026-05-03", "6.4"),
                                ("2026-05-04", "25.4")), units="metric")
    assert [str(r.inches) for r in rows] == ["0.11", "0.24", "0.25", "1.00"]
    assert [s.day.isoformat() for s in rules.storm_days(rows, S)] == ["2026-05-03", "2026-05-04"]
    # The same figures in standard units are inches, as before.
    assert [str(r.inches) for r in parse_daily_csv(_cdo(("2026-05-01", "3.0")))] == ["3.00"]
    with pytest.raises(ValueError):
        parse_daily_csv(_cdo(("2026-05-01", "3.0")), units="imperial")


def test_cdo_csv_over_the_massachusetts_24_hour_record_is_refused_after_conversion():
    assert [str(r.inches) for r in parse_daily_csv(_cdo(("1955-08-19", "18.15")))] == ["18.15"]
    with pytest.raises(CsvProblem) as caught:
        parse_daily_csv(_cdo(("2026-05-01", "0.30"), ("2026-05-02", "18.16")))
    assert caught.value.problems[0].startswith("line 3: PRCP '18.16'") and "18.15" in caught.value.problems[0]
    # 461.0 mm is 18.149 in; 461.1 mm is 18.15 in and a little more (18.153...).
    assert [str(r.inches) for r in parse_daily_csv(_cdo(("2026-05-01", "461.0")), units="metric")] == ["18.14"]
    with pytest.raises(CsvProblem) as caught:
        parse_daily_csv(_cdo(("2026-05-01", "461.1")), units="metric")
    assert "18.15" in caught.value.problems[0] and "metric" not in caught.value.problems[0]
    # A metric file imported as standard: 25.0 "inches" is refused, with the hint of the units.
    with pytest.raises(CsvProblem) as caught:
        parse_daily_csv(_cdo(("2026-05-01", "25.0")))
    assert "millimetres" in caught.value.problems[0]


def test_cdo_csv_refuses_a_day_after_today():
    text = _cdo(("2026-05-04", "0.30"), ("2026-05-05", "0.40"))
    assert len(parse_daily_csv(text, today=date(2026, 5, 5))) == 2
    with pytest.raises(CsvProblem) as caught:
        parse_daily_csv(text, today=date(2026, 5, 4))
    assert caught.value.problems == ["line 3: DATE 2026-05-05 is after today (2026-05-04): no rain is measured ahead"]


def test_cdo_csv_refuses_a_file_of_more_rows_than_allowed():
    text = _cdo(*((f"2026-04-{d:02d}", "0.10") for d in range(1, 21)))
    assert len(parse_daily_csv(text, max_rows=20)) == 20
    with pytest.raises(CsvProblem) as caught:
        parse_daily_csv(text + '"X","N","2026-04-21",""\n', max_rows=20)
    assert caught.value.problems == ["more than 20 rows"]
