"""The reminder rules (notifications/rules.py) at their edges: business days across a weekend and a
holiday (R-I4), 3 days before an order's deadline (R-O1), 60 and 30 days before a final report
(R-F2), days 23, 29 and 30 of a 30-day window (R-O3), and waiting on a supervisor (R-F3, R-D2)."""
from __future__ import annotations

from datetime import date, timedelta

import pytest

from inspect_api.notifications import rules

# 2026: Friday May 22, Memorial Day Monday May 25; Friday July 3 is the observed Independence Day.
THU, FRI, SAT, SUN, MON, TUE = (date(2026, 5, 21), date(2026, 5, 22), date(2026, 5, 23), date(2026, 5, 24),
                                date(2026, 5, 25), date(2026, 5, 26))


@pytest.mark.parametrize("today, due_on, expected", [
    (THU, FRI, True),          # due exactly tomorrow
    (THU, THU, False),         # due today: no longer a reminder (the overdue notice follows)
    (THU, SAT, False),         # Friday is a business day between: reminded on Friday instead
    (FRI, SAT, True),          # across the weekend ...
    (FRI, SUN, True),
    (FRI, MON, True),          # ... and the Memorial Day holiday:
    (FRI, TUE, True),          # Tuesday is the next business day after Friday
    (FRI, date(2026, 5, 27), False),
    (SAT, TUE, False),         # nobody is reminded on a weekend or holiday
    (MON, TUE, False),
    (TUE, date(2026, 5, 27), True),
    (date(2026, 7, 2), date(2026, 7, 6), True),   # Thursday before the observed Friday holiday
])
def test_finding_due_tomorrow_on_the_business_calendar(today, due_on, expected):
    assert rules.finding_due_tomorrow(due_on, today) is expected


def test_newly_overdue_from_the_day_after_and_only_for_a_week():
    due = date(2026, 5, 4)
    assert rules.newly_overdue(due, due) is False
    assert rules.newly_overdue(due, due + timedelta(days=1)) is True
    assert rules.newly_overdue(due, due + timedelta(days=rules.OVERDUE_LOOKBACK_DAYS)) is True
    assert rules.newly_overdue(due, due + timedelta(days=rules.OVERDUE_LOOKBACK_DAYS + 1)) is False


@pytest.mark.parametrize("days, expected", [(2, False), (3, True), (4, False), (0, False)])
def test_order_deadline_exactly_three_calendar_days_ahead(days, expected):
    assert rules.order_deadline_soon(SAT + timedelta(days=days), SAT) is expected  # weekends count


@pytest.mark.parametrize("days, expected", [(61, False), (60, True), (59, False), (31, False), (30, True),
                                            (29, False), (0, False), (-1, False)])
def test_final_report_reminded_60_and_30_days_before(days, expected):
    today = date(2026, 3, 1)
    assert rules.final_report_reminder(today + timedelta(days=days), today) is expected


@pytest.mark.parametrize("day_of_window, expected", [(22, False), (23, True), (28, False), (29, True), (30, True),
                                                     (31, False)])
def test_thirty_day_window_days_23_29_and_30(day_of_window, expected):
    """R-O3: the last day is received_on + 30 (day 30); reminders on days 23, 29 and 30, none after."""
    received = date(2026, 6, 3)
    last_day = received + timedelta(days=30)
    assert rules.window_closing(last_day, received + timedelta(days=day_of_window)) is expected


def test_waiting_on_a_supervisor_every_business_day_after_the_first():
    assert rules.waiting_on_supervisor(THU, THU) is False
    assert rules.waiting_on_supervisor(THU, FRI) is True
    assert rules.waiting_on_supervisor(THU, SAT) is False and rules.waiting_on_supervisor(THU, MON) is False
    assert rules.waiting_on_supervisor(THU, TUE) is True
    assert rules.waiting_on_supervisor(None, TUE) is False


def test_due_today_dispatches_by_kind_and_keys_name_item_and_day():
    assert rules.due_today(rules.Item("cost_notice_due", "r1", date(2026, 6, 17)), date(2026, 6, 16)) is True
    assert rules.due_today(rules.Item("order_deadline", "o1", date(2026, 6, 19)), date(2026, 6, 16)) is True
    assert rules.due_today(rules.Item("order_deadline", "o1", date(2026, 6, 19)), date(2026, 6, 17)) is False
    assert rules.reminder_key("order_deadline", "o1", date(2026, 6, 16)) == "reminder:order_deadline:o1:2026-06-16"
    with pytest.raises(KeyError):
        rules.due_today(rules.Item("nonsense", "x", THU), THU)
