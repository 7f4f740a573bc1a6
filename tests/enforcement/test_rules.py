"""The pure enforcement rules (R-O1-R-O3, R-P1, R-P2) at their edges."""
from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

import pytest

from inspect_api.enforcement import rules
from inspect_api.enforcement.rules import CostFacts, ViolationSpan

D = Decimal


# --- orders (R-O1, R-O2) -------------------------------------------------------------------------
@pytest.mark.parametrize("stored, today, expected", [
    ("open", date(2026, 5, 8), "open"),            # before the deadline
    ("open", date(2026, 5, 9), "open"),            # the deadline day is still in time
    ("open", date(2026, 5, 10), "overdue"),        # the day after
    ("complied", date(2026, 6, 1), "complied"),    # complied orders never become overdue
    ("town_performed", date(2026, 6, 1), "town_performed"),
    ("closed", date(2026, 6, 1), "closed"),
])
def test_order_status_r_o1(stored, today, expected):
    assert rules.order_status(stored, date(2026, 5, 9), today) == expected


def test_town_may_perform_only_after_the_deadline_r_o2():
    deadline = date(2026, 5, 9)
    assert "only after the deadline" in rules.order_transition_problem("open", "town_performed", deadline, deadline)
    assert rules.order_transition_problem("open", "town_performed", deadline, date(2026, 5, 10)) is None


@pytest.mark.parametrize("stored, to, allowed", [
    ("open", "complied", True), ("open", "closed", True), ("open", "overdue", False), ("open", "open", False),
    ("complied", "closed", True), ("complied", "town_performed", False), ("town_performed", "closed", True),
    ("closed", "open", False), ("closed", "complied", False),
])
def test_order_moves(stored, to, allowed):
    problem = rules.order_transition_problem(stored, to, date(2026, 5, 9), date(2026, 5, 20))
    assert (problem is None) is allowed


def test_deadline_not_before_issue():
    assert rules.deadline_problem(date(2026, 5, 4), date(2026, 5, 4)) is None
    assert rules.deadline_problem(date(2026, 5, 4), date(2026, 5, 3)) is not None


# --- cost notice and protest windows (R-O3) ------------------------------------------------------
def test_notice_due_within_30_days_of_abatement():
    completed = date(2026, 3, 2)
    assert rules.notice_due_by(completed) == date(2026, 4, 1)
    assert rules.notice_late(completed, date(2026, 4, 1)) is False   # day 30
    assert rules.notice_late(completed, date(2026, 4, 2)) is True    # day 31
    assert rules.notice_late(completed, None) is False


def test_protest_day_30_timely_day_31_late():
    received = date(2026, 5, 1)
    assert rules.protest_window_ends(received) == date(2026, 5, 31)
    assert rules.protest_timely(received, date(2026, 5, 31)) is True
    assert rules.protest_timely(received, date(2026, 6, 1)) is False
    assert rules.protest_timely(None, date(2027, 1, 1)) is True  # receipt not yet recorded


@pytest.mark.parametrize("received, last_day", [
    (date(2024, 2, 1), date(2024, 3, 2)),    # leap February has 29 days
    (date(2023, 2, 1), date(2023, 3, 3)),
    (date(2024, 1, 30), date(2024, 2, 29)),  # the window ends on a leap day
])
def test_protest_window_across_february(received, last_day):
    assert rules.protest_window_ends(received) == last_day
    assert rules.protest_timely(received, last_day)
    assert not rules.protest_timely(received, last_day + timedelta(days=1))


def test_lien_dates():
    received = rules.protest_window_ends(date(2026, 5, 1))  # the last recipient's window ends 31 May
    assert rules.lien_on(received, None, None, None, None) == date(2026, 5, 31)         # window ends
    assert rules.lien_on(received, date(2026, 5, 20), None, None, None) is None         # protest pending
    assert rules.lien_on(received, date(2026, 5, 20), "affirm", date(2026, 6, 10), None) == date(2026, 7, 10)
    assert rules.lien_on(received, date(2026, 5, 20), "reduce", date(2026, 6, 10), None) == date(2026, 7, 10)
    assert rules.lien_on(received, date(2026, 5, 20), "void", date(2026, 6, 10), None) is None
    # R-O3 (corrected): "within 30 days following ... a final decision of a court": the 30 days govern both.
    assert rules.lien_on(received, date(2026, 5, 20), "affirm", date(2026, 6, 10), date(2026, 9, 1)) == \
        date(2026, 10, 1)
    assert rules.lien_on(None, None, None, None, None) is None


def test_amount_due_after_decisions():
    assert rules.amount_due(D("900.00"), None, None, None) == D("900.00")
    assert rules.amount_due(D("900.00"), "affirm", None, None) == D("900.00")
    assert rules.amount_due(D("900.00"), "reduce", D("600.00"), None) == D("600.00")
    assert rules.amount_due(D("900.00"), "void", None, None) == D("0.00")
    assert rules.amount_due(D("900.00"), "reduce", D("600.00"), D("450.00")) == D("450.00")


# --- interest (R-O3, MGL c.59 §57) ---------------------------------------------------------------
def test_day_one_is_the_day_after_receipt_and_interest_starts_on_day_31():
    received = date(2026, 1, 1)
    assert rules.interest_starts_on(rules.costs_due_on(received)) == date(2026, 2, 1)
    facts = _facts(D("10000.00"), received)
    assert rules.cost_statement(facts, date(2026, 1, 31)).interest == D("0.00")   # day 30
    # Day 31: one day's interest, 10000 x 0.14 / 365 = 3.8356... -> 3.84
    assert rules.cost_statement(facts, date(2026, 2, 1)).interest == D("3.84")


def test_leap_year_accrues_366_days_over_365():
    # Actual/365 fixed: a full year spanning 29 Feb 2024 is 366 days of 0.14/365 each.
    start = date(2023, 4, 1)
    assert rules.accrued_interest(D("10000.00"), [], start, date(2024, 3, 31)) == D("1403.84")
    assert rules.accrued_interest(D("10000.00"), [], date(2024, 4, 1), date(2025, 3, 31)) == D("1400.00")


def test_leap_day_itself_accrues():
    feb_2024 = rules.accrued_interest(D("36500.00"), [], date(2024, 2, 1), date(2024, 2, 29))
    feb_2023 = rules.accrued_interest(D("36500.00"), [], date(2023, 2, 1), date(2023, 2, 28))
    assert feb_2024 == D("406.00") and feb_2023 == D("392.00")  # 14.00 a day


def test_rounding_happens_once_at_the_end():
    # 10.00 at 14% is 0.0038 a day: rounded daily it would be 0.00; over 10 days it is 0.0384 -> 0.04.
    assert rules.accrued_interest(D("10.00"), [], date(2026, 1, 1), date(2026, 1, 10)) == D("0.04")


def test_half_cent_rounds_up():
    # 273.75 x 0.14 / 365 = 0.105 exactly: ROUND_HALF_UP gives 0.11 (banker's rounding would give 0.10).
    assert rules.accrued_interest(D("273.75"), [], date(2026, 1, 1), date(2026, 1, 1)) == D("0.11")


def test_payment_lowers_the_balance_from_its_date():
    start = date(2026, 2, 1)
    payments = [(date(2026, 2, 11), D("400.00"))]
    # Feb 1-10 on 1000.00 (10 days), Feb 11-20 on 600.00 (10 days): 16000 x 0.14 / 365 = 6.1369... -> 6.14
    assert rules.accrued_interest(D("1000.00"), payments, start, date(2026, 2, 20)) == D("6.14")
    # A payment after the statement day does not count yet.
    assert rules.accrued_interest(D("1000.00"), payments, start, date(2026, 2, 10)) == D("3.84")
    # Paid in full before interest starts: nothing accrues.
    assert rules.accrued_interest(D("1000.00"), [(date(2026, 1, 20), D("1000.00"))], start,
                                  date(2026, 12, 31)) == D("0.00")


def test_statement_paid_by_day_30_means_no_lien_and_no_interest():
    facts = _facts(D("500.00"), date(2026, 5, 1), payments=((date(2026, 5, 31), D("500.00")),))
    s = rules.cost_statement(facts, date(2026, 7, 1))
    assert (s.status, s.interest, s.total_due, s.lien_on) == ("paid", D("0.00"), D("0.00"), None)


def test_statement_lien_for_the_unpaid_part():
    facts = _facts(D("500.00"), date(2026, 5, 1), payments=((date(2026, 5, 20), D("200.00")),))
    last_day = rules.cost_statement(facts, date(2026, 5, 31))       # day 30: still time to pay or protest
    assert (last_day.status, last_day.lien_on, last_day.lien_amount) == ("due", date(2026, 5, 31), D("300.00"))
    s = rules.cost_statement(facts, date(2026, 6, 1))
    # Day 31: a lien for the 300.00 unpaid, and one day's interest on it: 300 x 0.14 / 365 = 0.115 -> 0.12.
    assert (s.status, s.lien_amount, s.interest, s.total_due) == ("lien", D("300.00"), D("0.12"), D("300.12"))


def test_statement_protest_pending_then_reduced():
    base = dict(protest_filed_on=date(2026, 5, 31))
    pending = _facts(D("900.00"), date(2026, 5, 1), **base)
    assert rules.cost_statement(pending, date(2026, 6, 5)).status == "protest_pending"
    reduced = _facts(D("900.00"), date(2026, 5, 1), decision="reduce", decided_on=date(2026, 6, 10),
                     decided_amount=D("365.00"), **base)
    before_decision = rules.cost_statement(reduced, date(2026, 6, 9))
    assert before_decision.principal == D("900.00") and before_decision.status == "protest_pending"
    s = rules.cost_statement(reduced, date(2026, 7, 10))
    # Interest runs from the day the costs first became due (day 31 = 1 June), on the reduced amount:
    # 1 June - 10 July is 40 days x 365.00 x 0.14 / 365 = 5.60.
    assert (s.principal, s.interest, s.lien_on, s.status) == (D("365.00"), D("5.60"), date(2026, 7, 10), "due")
    assert rules.cost_statement(reduced, date(2026, 7, 11)).status == "lien"


def test_statement_void_and_not_noticed():
    void = _facts(D("900.00"), date(2026, 5, 1), protest_filed_on=date(2026, 5, 2), decision="void",
                  decided_on=date(2026, 5, 20))
    s = rules.cost_statement(void, date(2026, 12, 1))
    assert (s.status, s.total_due, s.interest, s.lien_on) == ("void", D("0.00"), D("0.00"), None)
    unsent = CostFacts(D("900.00"), (), None, None, None, None, None, ())
    assert rules.cost_statement(unsent, date(2026, 12, 1)).status == "not_noticed"


def _facts(total, received, *, payments=(), protest_filed_on=None, decision=None, decided_on=None,
           decided_amount=None, court_decision_on=None, court_amount=None) -> CostFacts:
    notice = rules.NoticeFacts("owner", received - timedelta(days=3), received, protest_filed_on)
    return CostFacts(total, (notice,), decision, decided_on, decided_amount, court_decision_on, court_amount,
                     tuple(payments))


# --- penalties (R-P1, R-P2) ----------------------------------------------------------------------
def test_violation_days_inclusive_and_capped():
    assert rules.violation_days(date(2026, 5, 1), date(2026, 5, 1), date(2026, 6, 1)) == 1
    assert rules.violation_days(date(2026, 5, 1), date(2026, 5, 10), date(2026, 6, 1)) == 10
    assert rules.violation_days(date(2026, 5, 1), date(2026, 5, 10), date(2026, 5, 5)) == 5   # capped
    assert rules.violation_days(date(2026, 5, 1), None, date(2026, 5, 7)) == 7                # ongoing
    assert rules.violation_days(date(2026, 5, 8), None, date(2026, 5, 7)) == 0                # not yet


def test_exposure_days_times_conditions():
    through = date(2026, 5, 31)
    spans = [ViolationSpan("condition:1", date(2026, 5, 1), date(2026, 5, 10)),
             ViolationSpan("condition:2", date(2026, 5, 5), date(2026, 5, 7)),
             ViolationSpan("bylaw:194-21", date(2026, 5, 30), None)]
    result = rules.penalty_exposure(spans, through)
    assert [(r.days, r.offenses, r.max_penalty) for r in result] == [
        (10, 10, D("3000.00")), (3, 3, D("900.00")), (2, 2, D("600.00"))]


def test_same_condition_same_day_is_one_offense():
    spans = [ViolationSpan("condition:1", date(2026, 5, 5), date(2026, 5, 12)),
             ViolationSpan("condition:1", date(2026, 5, 1), date(2026, 5, 6))]
    result = rules.penalty_exposure(spans, date(2026, 6, 1))
    assert [(r.days, r.offenses) for r in result] == [(8, 6), (6, 6)]  # 1-12 May: 12 offenses, not 14


@pytest.mark.parametrize("prior, expected", [
    ([], 1),
    ([date(2025, 5, 10)], 2),                        # exactly 12 months before: within
    ([date(2025, 5, 9)], 1),                         # a day more: outside
    ([date(2025, 12, 1), date(2026, 3, 1)], 3),
    ([date(2025, 12, 1), date(2026, 3, 1), date(2026, 4, 1)], 4),
])
def test_offense_number_within_12_months(prior, expected):
    assert rules.offense_number(prior, date(2026, 5, 10)) == expected


def test_twelve_months_before_a_leap_day():
    assert rules.twelve_months_before(date(2024, 2, 29)) == date(2023, 2, 28)
    assert rules.offense_number([date(2023, 2, 28)], date(2024, 2, 29)) == 2


def test_scheduled_fine_and_21_days():
    schedule = (D("100.00"), D("200.00"), D("300.00"))
    assert [rules.scheduled_fine(n, *schedule) for n in (1, 2, 3, 7)] == [D("100.00"), D("200.00"), D("300.00"),
                                                                          D("300.00")]
    assert rules.citation_respond_by(date(2026, 5, 1)) == date(2026, 5, 22)
    assert rules.citation_respond_by(None) is None
