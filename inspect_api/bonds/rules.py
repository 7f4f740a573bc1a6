"""Bond rules of the bylaw's surety section as pure functions (DOMAIN.md R-D). No database, no Flask.

Money is Decimal throughout: amounts are whole cents, sums are exact.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Iterable

FORMS = ("surety_bond", "letter_of_credit", "cash", "other")
RELEASE_KINDS = ("partial", "full")
CENT = Decimal("0.01")
ZERO = Decimal("0.00")


@dataclass(frozen=True)
class Problem:
    """Why a change cannot be made, in words and a stable code. `field` names the part of the request at
    fault; without one the state of the bond or phase forbids the change. How that is answered is the
    service's affair, never a rule's."""

    error: str
    message: str
    field: str | None = None
    state: bool = True  # the records' state forbids it (else the request itself is wrong)


def invalid(message: str, field: str) -> Problem:
    """The request itself is wrong (a date, an amount, a phase the bond does not hold)."""
    return Problem("validation_error", message, field, state=False)


def money(value) -> Decimal:
    return Decimal(value if value is not None else 0).quantize(CENT)


def allocation_problems(amount: Decimal, phases: Iterable[tuple[str, Decimal]]) -> dict[str, list[str]]:
    """R-D1: a bond may be split by phase; each phase once, each share positive, the shares within the amount."""
    errors: dict[str, list[str]] = {}
    seen: set[str] = set()
    total = ZERO
    for phase_id, share in phases:
        if phase_id in seen:
            errors.setdefault("phases", []).append(f"Phase {phase_id} is listed twice.")
        seen.add(phase_id)
        if share <= ZERO:
            errors.setdefault("phases", []).append("Each phase's share must be more than zero.")
        total += share
    if total > amount:
        errors.setdefault("phases", []).append(
            f"The phases add up to {total}, more than the bond amount of {amount}.")
    return errors


def amount_problem(new_amount: Decimal, released: Decimal, *, full_release_allowed: bool) -> Problem | None:
    """The amount may be corrected, but never below what has already been released, and (until R-D3
    holds) never down to it: that would make the phase releases a full release (R-D2)."""
    if new_amount < released:
        return Problem("amount_below_released",
                       f"{released} has already been released; the amount cannot be less.", "amount")
    if not full_release_allowed and released > ZERO and new_amount <= released:
        return Problem("release_reaches_amount",
                       f"{released} has already been released: an amount of {new_amount} would release the whole "
                       "bond before the certificate of completion; the rest is released with the certificate of "
                       "completion (R-D2, R-D3).", "amount")
    return None


def partial_release_problem(*, phase_on_bond: bool, phase_share: Decimal | None, completed_in_compliance: bool,
                            completed_on: date | None, already_released: bool, amount: Decimal,
                            bond_amount: Decimal, released: Decimal, released_on: date,
                            full_release_allowed: bool) -> Problem | None:
    """R-D2: part of the bond is released as a phase completes in compliance, once per phase, never past
    the phase's share nor, summed, past the bond amount; and until R-D3 holds (`full_release_allowed`)
    the sum stays below the amount: phase releases cannot add up to a full release."""
    if not phase_on_bond:
        return invalid("The bond holds no share for this phase.", "phase_id")
    if not completed_in_compliance:
        return Problem("phase_not_complete",
                       "This phase has not been recorded complete in compliance; its share cannot be released (R-D2).")
    if already_released:
        return Problem("phase_already_released", "This phase's share has already been released.")
    if completed_on is not None and released_on < completed_on:
        return invalid(f"The phase was completed on {completed_on}; a release cannot come before that.",
                       "released_on")
    if amount > phase_share:
        return invalid(f"The phase's share is {phase_share}; more cannot be released for it.", "amount")
    if released + amount > bond_amount:
        return Problem("exceeds_bond_amount",
                       f"Releasing {amount} would bring the total released to {released + amount}, more than "
                       f"the bond amount of {bond_amount} (R-D2).")
    if not full_release_allowed and released + amount >= bond_amount:
        return Problem("release_reaches_amount",
                       f"Releasing {amount} would bring the total released to the whole bond amount of "
                       f"{bond_amount} before the certificate of completion; at most {bond_amount - released - CENT} "
                       f"may be released for this phase now, and the rest is released with the certificate of "
                       "completion (R-D2, R-D3).")
    return None


BASIS_WORDS = {"completion_notice": "the completion notice is accepted",
               "final_report": "the final report is accepted"}


def full_release_missing(*, closeout_kind: str | None, basis_accepted: bool, certificate_issued: bool) -> list[str]:
    """R-D3: what the full release still waits for, in words (empty once it holds). The SA has the final
    report (R-F2) or, for an administrative review, the completion notice that stands in its place
    (R-F1), accepted, and has issued the certificate of completion."""
    missing = []
    if not basis_accepted:
        missing.append(BASIS_WORDS.get(closeout_kind or "", "the completion notice or final report is accepted"))
    if not certificate_issued:
        missing.append("the certificate of completion is issued")
    return missing


def full_release_problem(*, closeout_kind: str | None, basis_accepted: bool, certificate_issued: bool,
                         bond_amount: Decimal, released: Decimal, amount: Decimal | None) -> Problem | None:
    """R-D3: the remainder is released only after the final report (for an administrative review, the
    completion notice) is accepted and the certificate of completion issued."""
    missing = full_release_missing(closeout_kind=closeout_kind, basis_accepted=basis_accepted,
                                   certificate_issued=certificate_issued)
    if missing:
        return Problem("certificate_required",
                       "The bond cannot be fully released until " + " and ".join(missing) + " (R-D3).")
    remaining = bond_amount - released
    if remaining <= ZERO:
        return Problem("already_released", "Nothing of this bond remains to be released.")
    if amount is not None and amount != remaining:
        return invalid(f"A full release releases the remaining {remaining}; leave the amount out or send it.",
                       "amount")
    return None


def release_date_problem(released_on: date, received_on: date | None, today: date) -> Problem | None:
    if released_on > today:
        return invalid("A release cannot be dated in the future.", "released_on")
    if received_on is not None and released_on < received_on:
        return invalid(f"The bond was received on {received_on}; a release cannot come before that.",
                       "released_on")
    return None


def bond_status(amount: Decimal, released: Decimal) -> str:
    if released <= ZERO:
        return "held"
    return "released" if released >= amount else "partially_released"
