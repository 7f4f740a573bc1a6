"""The bylaw's enforcement rules (DOMAIN.md R-O, R-P) as pure date and money functions.

No database, no Flask: plain dates, Decimals and tuples in, plain values out. Money is Decimal from
end to end and is rounded to cents (ROUND_HALF_UP) only once, at the end of a computation.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import ROUND_HALF_UP, Decimal, localcontext
from typing import Iterable, Sequence

CENT = Decimal("0.01")
ZERO = Decimal("0.00")

# --- Orders (R-O1, R-O2) -------------------------------------------------------------------------
# The four kinds of order of bylaw Enforcement §B(1)(a)-(d), and `other`: the list "may include" them,
# so an order may also hold another requirement stated in words (R-O1).
ORDER_KINDS = ("cease_and_desist", "controls", "monitoring", "remediation", "other")
OTHER_KIND = "other"


def requirement_problems(kinds: Sequence[str], requirements: Iterable[dict]) -> list[str]:
    """R-O1: a requirement of kind `other` is stated in words, and an order of kind `other` holds one."""
    requirements = list(requirements)
    problems = []
    others = [r for r in requirements if r.get("kind") == OTHER_KIND]
    if any(not (r.get("text") or "").strip() for r in others):
        problems.append("A requirement of kind other states it in words.")
    elif OTHER_KIND in kinds and not others:
        problems.append("Kind other needs the requirement stated in words.")
    return problems


SERVICE_METHODS = ("hand", "certified_mail", "first_class_mail", "posted_on_site", "email")
STORED_ORDER_STATUSES = ("open", "complied", "town_performed", "closed")
# "overdue" is never stored: it is an open order seen after its deadline (no nightly job to forget).
ORDER_STATUSES = ("open", "complied", "overdue", "town_performed", "closed")
_ORDER_MOVES = {
    "open": ("complied", "town_performed", "closed"),
    "complied": ("closed",),
    "town_performed": ("closed",),
    "closed": (),
}


def order_status(stored: str, deadline: date, today: date) -> str:
    """R-O1/§B(2): an open order is overdue from the day after its deadline (the deadline day itself
    is still in time)."""
    if stored == "open" and today > deadline:
        return "overdue"
    return stored


def order_transition_problem(stored: str, to: str, deadline: date, today: date) -> str | None:
    """Why an order may not move from `stored` to `to` today, or None when it may.

    R-O2: the Town may do the work itself only once the deadline has passed unmet."""
    if to == "overdue":
        return "An order becomes overdue by itself the day after its deadline; it cannot be set."
    if to not in _ORDER_MOVES.get(stored, ()):
        return f"An order that is {order_status(stored, deadline, today)} cannot become {to}."
    if to == "town_performed" and today <= deadline:
        return (f"The Town may perform the work only after the deadline ({deadline.isoformat()}) "
                "has passed unmet (bylaw Enforcement §B(2)).")
    return None


def deadline_problem(issued_on: date, deadline: date) -> str | None:
    if deadline < issued_on:
        return "The deadline cannot be before the day the order is issued."
    return None


# --- Cost recovery (R-O3) ------------------------------------------------------------------------
COST_CATEGORIES = ("labor", "equipment", "materials", "contractor", "administrative")
PROTEST_DECISIONS = ("affirm", "reduce", "void")
NOTICE_ROLES = ("owner", "violator")  # R-O3: "the violator and the property owner"
NOTICE_DAYS = 30              # notice of costs within 30 days after the abatement is completed
PROTEST_DAYS = 30             # written protest within 30 days of receipt of the notice
LIEN_AFTER_DECISION_DAYS = 30  # lien 30 days after an SA decision affirming or reducing the costs
# R-O3 (corrected): "within 30 days following a decision of the Stormwater Authority ..., or from a
# final decision of a court": the 30 days govern both branches.
LIEN_AFTER_COURT_DAYS = 30
INTEREST_GRACE_DAYS = 30      # interest "after the 30th day at which they first become due"
# MGL c.59 §57: 14% a year. The rates in force are configuration (COST_INTEREST_RATES, R-O3); this is
# the schedule a rule uses when it is given none.
INTEREST_RATE = Decimal("0.14")
DEFAULT_RATES: tuple[tuple[date, Decimal], ...] = ((date(1900, 1, 1), INTEREST_RATE),)
DAY_COUNT_BASIS = 365         # actual/365 fixed: every calendar day is 1/365 of a year, Feb 29 included


def notice_due_by(abatement_completed_on: date) -> date:
    """R-O3: the cost notice is due within 30 days after the abatement is completed, i.e. on or
    before completed_on + 30."""
    return abatement_completed_on + timedelta(days=NOTICE_DAYS)


def notice_late(abatement_completed_on: date, sent_on: date | None) -> bool:
    """A notice sent after day 30 is flagged late; the SA or a court weighs what that means."""
    return sent_on is not None and sent_on > notice_due_by(abatement_completed_on)


def protest_window_ends(received_on: date) -> date:
    """R-O3: the last day a protest is timely: received_on + 30 (day 1 is the day after receipt)."""
    return received_on + timedelta(days=PROTEST_DAYS)


def protest_timely(received_on: date | None, filed_on: date) -> bool:
    """Day 30 after receipt is still timely; day 31 is late. Before receipt is recorded, the window
    cannot have closed."""
    return received_on is None or filed_on <= protest_window_ends(received_on)


def costs_due_on(received_on: date | None) -> date | None:
    """The day the costs first become due: the day the notice of costs is received.

    The notice is the Town's demand for an ascertained sum; the bylaw makes the costs a lien if they
    are "unpaid when the protest window ends", which presumes they were payable during the window.
    A protest does not move this day ("first become due"), just as an abatement application does
    not postpone the due date of a tax on which MGL c.59 §57 interest runs."""
    return received_on


def interest_starts_on(due_on: date) -> date:
    """Day 1 is the day after the costs become due; interest accrues from day 31, "after the 30th
    day" (R-O3, MGL c.59 §57), so paying by day 30 costs no interest."""
    return due_on + timedelta(days=INTEREST_GRACE_DAYS + 1)


def amount_due(costs_total: Decimal, decision: str | None, decided_amount: Decimal | None,
               court_amount: Decimal | None) -> Decimal:
    """The principal owed: a final court decision's amount, else the SA's reduced amount, nothing
    after a void, else the itemised total."""
    if court_amount is not None:
        return court_amount
    if decision == "void":
        return ZERO
    if decision == "reduce" and decided_amount is not None:
        return decided_amount
    return costs_total


def lien_on(windows_end: date | None, protest_filed_on: date | None, decision: str | None,
            decided_on: date | None, court_decision_on: date | None) -> date | None:
    """R-O3: the day at whose end costs still unpaid become a special assessment and a lien on the
    owner's property: when no protest was filed, the last day of the last recipient's protest window
    ("the expiration of the time in which to file a protest": while any recipient may still protest,
    no lien attaches); the 30th day after an SA decision affirming or reducing the costs; or the 30th
    day after a final court decision ("within 30 days following a decision of the Stormwater
    Authority ..., or from a final decision of a court": the 30 days govern both). None while none of
    these applies (a recipient not yet notified, a protest pending, costs voided). `windows_end` is
    `last_window_ends` of the notices."""
    if court_decision_on is not None:
        return court_decision_on + timedelta(days=LIEN_AFTER_COURT_DAYS)
    if decision == "void":
        return None
    if protest_filed_on is not None:
        if decision in ("affirm", "reduce") and decided_on is not None:
            return decided_on + timedelta(days=LIEN_AFTER_DECISION_DAYS)
        return None
    return windows_end


def parse_rates(text: str) -> tuple[tuple[date, Decimal], ...]:
    """R-O3: "YYYY-MM-DD=rate,..." (the day each rate takes effect) as a sorted schedule. A rate is a
    fraction a year (0.14 for 14 %), from 0 to 1."""
    schedule: dict[date, Decimal] = {}
    for part in (text or "").split(","):
        if not part.strip():
            continue
        try:
            day_text, rate_text = part.split("=")
            day, rate = date.fromisoformat(day_text.strip()), Decimal(rate_text.strip())
        except (ValueError, ArithmeticError):
            raise ValueError(f"Not an interest rate entry (YYYY-MM-DD=rate): {part.strip()!r}") from None
        if not Decimal(0) <= rate <= Decimal(1):
            raise ValueError(f"An interest rate is a fraction of a year from 0 to 1, not {rate}.")
        if day in schedule:
            raise ValueError(f"Two interest rates take effect on {day.isoformat()}.")
        schedule[day] = rate
    if not schedule:
        raise ValueError("At least one interest rate is needed.")
    return tuple(sorted(schedule.items()))


def rate_on(rates: Sequence[tuple[date, Decimal]], day: date) -> Decimal:
    """The rate in force on `day`: the last one taking effect on or before it (none before the first)."""
    current = Decimal(0)
    for effective, rate in rates:
        if effective > day:
            break
        current = rate
    return current


def accrued_interest(principal: Decimal, payments: Iterable[tuple[date, Decimal]], start: date,
                     on: date, rates: Sequence[tuple[date, Decimal]] = DEFAULT_RATES) -> Decimal:
    """Simple interest on the unpaid principal, day by day from `start` through `on` inclusive:
    Σ balance(d) × rate(d) / 365, with rate(d) the MGL c.59 §57 rate in force on day d. A payment
    lowers the balance from its own date on (a payment on day d stops that day's interest on the
    amount paid). Exact Decimal arithmetic, rounded to cents ROUND_HALF_UP once at the end; interest is
    never compounded."""
    if on < start:
        return ZERO
    dated = sorted((d, Decimal(a)) for d, a in payments if d <= on)
    balance = Decimal(principal) - sum((a for d, a in dated if d < start), Decimal(0))
    changes: dict[date, Decimal] = {}
    for paid_on, paid in dated:
        if paid_on >= start:
            changes[paid_on] = changes.get(paid_on, Decimal(0)) + paid
    # Segments of constant balance and rate: cut at each payment and each rate change.
    cuts = sorted({start, *changes, *(d for d, _ in rates if start < d <= on)})
    weighted = Decimal(0)  # Σ balance × rate × days
    for i, begin in enumerate(cuts):
        balance -= changes.get(begin, Decimal(0))
        end = cuts[i + 1] if i + 1 < len(cuts) else on + timedelta(days=1)
        weighted += max(balance, Decimal(0)) * rate_on(rates, begin) * (end - begin).days
    with localcontext() as ctx:
        ctx.prec = 60  # 1/365 does not terminate; 60 digits leave the cent rounding exact
        interest = weighted / DAY_COUNT_BASIS
    return interest.quantize(CENT, rounding=ROUND_HALF_UP)


@dataclass(frozen=True)
class NoticeFacts:
    """One recipient's notice of costs (R-O3): each is notified, and each protest window runs from
    that recipient's own receipt."""

    role: str                      # owner | violator
    sent_on: date | None
    received_on: date | None
    protest_filed_on: date | None = None


@dataclass(frozen=True)
class CostFacts:
    """What the statement of R-O3 is computed from (all dates of one cost recovery record)."""

    costs_total: Decimal
    notices: tuple[NoticeFacts, ...]
    decision: str | None
    decided_on: date | None
    decided_amount: Decimal | None
    court_decision_on: date | None
    court_amount: Decimal | None
    payments: tuple[tuple[date, Decimal], ...]
    rates: tuple[tuple[date, Decimal], ...] = DEFAULT_RATES


def last_window_ends(notices: Sequence[NoticeFacts]) -> date | None:
    """R-O3: the end of the time in which to file a protest, the last day of the last recipient's
    window; None while a recipient has not received the notice (they may still protest) or no owner
    was notified (the lien is on the owner's property)."""
    if not any(n.role == "owner" for n in notices) or any(n.received_on is None for n in notices):
        return None
    return max(protest_window_ends(n.received_on) for n in notices)


def first_received_on(notices: Sequence[NoticeFacts]) -> date | None:
    days = [n.received_on for n in notices if n.received_on is not None]
    return min(days) if days else None


def first_protest_on(notices: Sequence[NoticeFacts]) -> date | None:
    """Any recipient's timely protest puts the amount in question until the SA decides (decision in
    the README): the lien waits for the decision."""
    days = [n.protest_filed_on for n in notices if n.protest_filed_on is not None]
    return min(days) if days else None


@dataclass(frozen=True)
class Statement:
    on: date
    costs_total: Decimal
    principal: Decimal
    payments_total: Decimal
    principal_outstanding: Decimal
    interest: Decimal
    total_due: Decimal
    due_on: date | None
    interest_from: date | None
    lien_on: date | None
    lien_amount: Decimal | None
    status: str


def _by(day: date | None, on: date) -> date | None:
    """A dated event counts in a statement only if it had happened by `on`."""
    return day if day is not None and day <= on else None


def cost_statement(facts: CostFacts, on: date) -> Statement:
    """R-O3: the amount due on `on`, with only what had happened by the end of that day."""
    decided_on = _by(facts.decided_on, on)
    decision = facts.decision if decided_on else None
    court_on = _by(facts.court_decision_on, on)
    notices = tuple(NoticeFacts(n.role, _by(n.sent_on, on), _by(n.received_on, on), _by(n.protest_filed_on, on))
                    for n in facts.notices)
    protest_on = first_protest_on(notices)
    principal = amount_due(facts.costs_total, decision, facts.decided_amount if decision else None,
                           facts.court_amount if court_on else None)
    payments = tuple((d, a) for d, a in facts.payments if d <= on)
    paid = sum((a for _, a in payments), ZERO)
    # The costs first become due when the first recipient receives the notice of them.
    due_on = costs_due_on(first_received_on(notices)) if principal > 0 else None
    interest_from = interest_starts_on(due_on) if due_on else None
    interest = accrued_interest(principal, payments, interest_from, on, facts.rates) if interest_from else ZERO
    lien_day = lien_on(last_window_ends(notices), protest_on, decision, decided_on, court_on) \
        if principal > 0 else None
    lien_amount = None
    if lien_day is not None:
        unpaid_then = principal - sum((a for d, a in payments if d <= lien_day), ZERO)
        lien_amount = unpaid_then if unpaid_then > 0 else None
        lien_day = lien_day if lien_amount is not None else None
    total = max(principal + interest - paid, ZERO)
    sent = any(n.sent_on is not None for n in notices)
    status = _statement_status(sent, on, principal, total, protest_on, decision, court_on, lien_day)
    return Statement(on=on, costs_total=facts.costs_total, principal=principal, payments_total=paid,
                     principal_outstanding=max(principal - paid, ZERO), interest=interest, total_due=total,
                     due_on=due_on, interest_from=interest_from, lien_on=lien_day,
                     lien_amount=lien_amount, status=status)


def _statement_status(sent: bool, on: date, principal: Decimal, total: Decimal, protest_on: date | None,
                      decision: str | None, court_on: date | None, lien_day: date | None) -> str:
    if principal <= 0 and (decision == "void" or court_on is not None):
        return "void"
    if not sent:
        return "not_noticed"
    if total <= 0:
        return "paid"
    if protest_on is not None and decision is None and court_on is None:
        return "protest_pending"
    if lien_day is not None and on > lien_day:  # the lien attaches at the end of lien_on
        return "lien"
    return "due"


def money(value: Decimal | int | str) -> Decimal:
    return Decimal(value).quantize(CENT, rounding=ROUND_HALF_UP)


# --- Penalties (R-P1, R-P2) ----------------------------------------------------------------------
MAX_PENALTY_PER_OFFENSE = Decimal("300.00")   # bylaw Enforcement §C
CITATION_RESPONSE_DAYS = 21                   # MGL c.40 §21D
PROVISION_KINDS = ("permit_condition", "bylaw", "esc_plan", "om_plan")  # R-C3, R-C4
EXPOSURE_NOTE = "maximum exposure; the court decides any fine"


@dataclass(frozen=True)
class ViolationSpan:
    key: str            # the condition or provision violated: each is a separate offense
    first: date
    last: date | None   # None while ongoing


@dataclass(frozen=True)
class SpanExposure:
    days: int
    offenses: int
    max_penalty: Decimal


def violation_days(first: date, last: date | None, through: date) -> int:
    """Days in the violation counted through `through`, first and last day inclusive (each day or
    part of a day is an offense); an ongoing violation runs to `through`."""
    end = min(last or through, through)
    return max((end - first).days + 1, 0)


def penalty_exposure(spans: Sequence[ViolationSpan], through: date) -> list[SpanExposure]:
    """R-P1: offenses = Σ over violated conditions of the days violated, at most $300 each.

    Two records of the same condition on the same day are one offense, not two: each span counts
    only the days that an earlier span (by first day, then input order) of the same key did not."""
    counted: dict[str, set[date]] = {}
    result: list[SpanExposure] = [SpanExposure(0, 0, ZERO)] * len(spans)
    order = sorted(range(len(spans)), key=lambda i: (spans[i].first, i))
    for i in order:
        span = spans[i]
        days = violation_days(span.first, span.last, through)
        seen = counted.setdefault(span.key, set())
        new = {span.first + timedelta(days=n) for n in range(days)} - seen
        seen |= new
        result[i] = SpanExposure(days, len(new), MAX_PENALTY_PER_OFFENSE * len(new))
    return result


def normal_key(text: str) -> str:
    """R-P2: how a violator's name (or a provision) is compared, so that prior offenses are counted
    whatever the spacing or case it was written with: runs of white space as one space, case folded."""
    return re.sub(r"\s+", " ", text).strip().casefold()


def twelve_months_before(day: date) -> date:
    try:
        return day.replace(year=day.year - 1)
    except ValueError:  # 29 February: a year earlier has no such day
        return day.replace(year=day.year - 1, day=28)


def offense_number(prior_offense_days: Iterable[date], offense_on: date) -> int:
    """R-P2: the ordinal of this offense among the violator's offenses of the same provision within
    the 12 months up to it (the same calendar day a year earlier counts as within)."""
    since = twelve_months_before(offense_on)
    return 1 + sum(1 for d in prior_offense_days if since <= d < offense_on)


def scheduled_fine(number: int, first: Decimal, second: Decimal, third_and_subsequent: Decimal) -> Decimal:
    if number <= 1:
        return first
    if number == 2:
        return second
    return third_and_subsequent


def citation_respond_by(delivered_on: date | None) -> date | None:
    """MGL c.40 §21D: 21 days from the notice to pay the fine or ask for a hearing."""
    return delivered_on + timedelta(days=CITATION_RESPONSE_DAYS) if delivered_on else None
