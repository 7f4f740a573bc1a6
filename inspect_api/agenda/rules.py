"""What is due and by when, as plain data: the agenda's kinds, its window, overdue and the order of a
day (no database, no Flask)."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any, Mapping

DEFAULT_DAYS_AHEAD = 7

# The kinds the Deadlines view lists (GET /deadlines, `inspect-api deadlines`), in the order it lists
# them on one day. These names are published: clients match on them, so they are never renamed.
DEADLINE_KINDS = ("finding_due", "order_due", "final_report_due", "cost_notice_due", "protest_window_ends",
                  "bond_phase_release", "inspection_overdue", "approval_lapsed")
# A supervisor's queue with no deadline of its own: a certificate to issue (R-F3) and the rest of a bond
# to release once the certificate is issued (R-D3). The reminders read them; the Deadlines view does not
# list them, so no client sees a kind it does not know.
QUEUE_KINDS = ("certificate_waiting", "bond_full_release")
KINDS = DEADLINE_KINDS + QUEUE_KINDS
# Their day is the day they began waiting, not a deadline: never overdue, and listed however long ago.
WAITING = frozenset({"bond_phase_release", "certificate_waiting", "bond_full_release"})


@dataclass
class Item:
    """One thing due: its day, kind and record, a one-line summary, and the records its domain loaded
    for it (`records`: finding, order, record and notice, row, basis, ...), so that whoever reads the
    item (a reminder's text) needs no query of its own."""

    due_on: date
    kind: str
    permit_id: str | None
    record_type: str
    record_id: str
    summary: str
    overdue: bool
    records: Mapping[str, Any] = field(default_factory=dict)
    permit: Any = None  # the permit, loaded for all items at once

    @property
    def permit_number(self) -> str | None:
        return self.permit.number if self.permit is not None else None

    @property
    def site_address(self) -> str | None:
        return self.permit.site_address if self.permit is not None else None


def default_before(today: date) -> date:
    """The next seven days: items due on or before today + 7."""
    return today + timedelta(days=DEFAULT_DAYS_AHEAD + 1)


def in_window(kind: str, day: date, today: date, before: date, since: date | None = None) -> bool:
    """Due strictly before `before` and, for a kind with a deadline, not before `since` (None: however
    long overdue). A protest window that has ended is no longer anyone's deadline (R-O3: the costs are
    then a lien if unpaid), so it is listed only from today."""
    if day >= before:
        return False
    if kind == "protest_window_ends" and day < today:
        return False
    return since is None or kind in WAITING or day >= since


def is_overdue(kind: str, day: date, today: date) -> bool:
    """Overdue from the day after the due day. The bylaw sets no deadline for a release or a certificate
    waiting; an inspection is listed only once the program finds it overdue."""
    if kind in WAITING:
        return False
    if kind == "inspection_overdue":
        return True
    return today > day


def sort_key(item: Item) -> tuple:
    """Soonest first; on one day by kind, then permit number and record."""
    return (item.due_on, KINDS.index(item.kind) if item.kind in KINDS else len(KINDS),
            item.permit_number or "", str(item.record_id))


def clip(text: str | None, length: int = 90) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= length else text[: length - 3] + "..."
