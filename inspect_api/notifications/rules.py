"""Who is reminded of what, on which Town day: pure rules over plain data (no database, no Flask).

The daily pass (reminders.py) reads the items, asks these rules which are due a reminder today, and
writes one message per item, recipient and day. Business days are inspect_api/workdays.py's calendar
(weekends and Massachusetts legal holidays), the one the findings' due dates use (R-I4).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from ..workdays import is_business_day, next_business_day

ORDER_DAYS_AHEAD = 3                 # R-O1: an order's deadline (§B(2)), 3 days ahead
FINAL_REPORT_DAYS_AHEAD = (60, 30)   # R-F2: the final report, due two years after completion
WINDOW_DAYS_LEFT = (7, 1, 0)         # R-O3: a 30-day window: a week before, the day before, the last day
OVERDUE_LOOKBACK_DAYS = 7            # a finding overdue longer than this is not "newly" overdue

KINDS = ("finding_due", "finding_overdue", "order_deadline", "final_report_due", "cost_notice_due",
         "protest_window", "certificate_waiting", "bond_release_waiting")


@dataclass(frozen=True)
class Item:
    """One thing that may be due a reminder: its kind, its record and the day that matters (a due
    date, a deadline, the last day of a window, or the day it began waiting)."""

    kind: str
    record_id: str
    day: date


def finding_due_tomorrow(due_on: date, today: date) -> bool:
    """R-I4: remind on the last business day before a finding falls due, so "tomorrow" is the next
    business day: on a Friday, a finding due Saturday, Sunday or Monday (or Tuesday after a Monday
    holiday) is due "tomorrow". No reminder on a weekend or holiday: nobody is at work to act on it."""
    return is_business_day(today) and today < due_on <= next_business_day(today)


def newly_overdue(due_on: date, today: date) -> bool:
    """A finding's due day has passed (overdue from the day after, like the deadlines view). The pass
    writes it once per finding; the look-back only keeps the first run after an outage, or after the
    feature is switched on, from mailing findings long overdue and already chased."""
    return due_on < today <= due_on + timedelta(days=OVERDUE_LOOKBACK_DAYS)


def order_deadline_soon(deadline: date, today: date) -> bool:
    """R-O1, §B(2): the order's deadline is exactly three calendar days away (order deadlines are
    calendar days)."""
    return (deadline - today).days == ORDER_DAYS_AHEAD


def final_report_reminder(due_on: date, today: date) -> bool:
    """R-F2: 60 and 30 days before the final report is due."""
    return (due_on - today).days in FINAL_REPORT_DAYS_AHEAD


def window_closing(last_day: date, today: date) -> bool:
    """R-O3 windows of 30 days (the Town's notice of costs after abatement; a recipient's protest
    after receipt): 7 days before the last day, the day before it, and on the last day itself."""
    return (last_day - today).days in WINDOW_DAYS_LEFT


def waiting_on_supervisor(since: date | None, today: date) -> bool:
    """R-F3, R-D2/R-D3: a certificate or a bond release waiting for a supervisor: every business day
    from the day after it began waiting (the day itself is already in the office's queue)."""
    return is_business_day(today) and since is not None and since < today


def days_left(day: date, today: date) -> int:
    return (day - today).days


def due_today(item: Item, today: date) -> bool:
    """Whether `item` is due its reminder on `today`, by kind."""
    rule = {"finding_due": finding_due_tomorrow, "finding_overdue": newly_overdue,
            "order_deadline": order_deadline_soon, "final_report_due": final_report_reminder,
            "cost_notice_due": window_closing, "protest_window": window_closing,
            "certificate_waiting": waiting_on_supervisor, "bond_release_waiting": waiting_on_supervisor}[item.kind]
    return rule(item.day, today)


def reminder_key(kind: str, record_id: str, on: date) -> str:
    """The once-per-item-and-day key (the outbox adds the recipient): unique in the database."""
    return f"reminder:{kind}:{record_id}:{on.isoformat()}"
