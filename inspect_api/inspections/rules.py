"""Inspections, checklists and findings (DOMAIN.md R-I, R-A6) as pure functions. No database, no Flask."""
from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from .. import workdays
from ..permits.rules import unapproved_work

ANSWERS = ("ok", "deficient", "n/a")
NEW_CONTROL_DAYS = 7
EDITABLE_STATUSES = ("draft", "returned")


def finding_due_on(observed_on: date, needs_new_control: bool) -> date:
    """R-I4 (practice, EPA CGP Part 5.2): maintenance by close of the next business day after the day
    observed; where a new or replaced control is needed, within 7 calendar days (not moved off
    weekends or holidays: the CGP counts calendar days)."""
    if needs_new_control:
        return observed_on + timedelta(days=NEW_CONTROL_DAYS)
    return workdays.next_business_day(observed_on)


def is_overdue(status: str, due_on: date, today: date) -> bool:
    """Open past the close of its due day."""
    return status == "open" and due_on < today


def disturbance_without_approval(disturbance_observed: bool, review_level: str | None, permit_status: str) -> bool:
    """R-A6: disturbance seen on a project the bylaw covers, before approval or permit (or after close)."""
    return bool(disturbance_observed) and unapproved_work(review_level, permit_status)


def disturbance_after_lapse(disturbance_observed: bool, lapsed: bool, visit_day: date,
                            last_valid: date | None) -> bool:
    """R-A6: disturbance seen after the exemption an approval rested on lapsed (B5/B6: the day after the
    order or decision's last valid day) is work without approval, whether work had commenced while it
    was valid or not; seen on or before that day, the approval covered it."""
    return bool(disturbance_observed) and lapsed and (last_valid is None or visit_day > last_valid)


def checklist_errors(template_items: list[dict[str, Any]], answers: list[dict[str, Any]]) -> dict[Any, Any]:
    """Field errors of checklist answers against the template version they answer (R-I3), keyed like
    marshmallow's ({index: {field: [message]}}); empty when valid. Items the response leaves out are
    simply unanswered; a submitted inspection must answer every item (see `unanswered`)."""
    known = {item["key"] for item in template_items}
    errors: dict[Any, Any] = {}
    seen: set[str] = set()
    for index, answer in enumerate(answers):
        item_errors: dict[str, list[str]] = {}
        key = answer.get("key")
        if key not in known:
            item_errors["key"] = [f"Unknown item {key!r} for this template version."]
        elif key in seen:
            item_errors["key"] = [f"Item {key!r} is answered twice."]
        seen.add(key)
        if answer.get("answer") not in ANSWERS:
            item_errors["answer"] = ["Must be one of: ok, deficient, n/a."]
        elif answer.get("answer") != "deficient" and answer.get("severity") is not None:
            item_errors["severity"] = ["Only a deficient item has a severity."]
        if item_errors:
            errors[index] = item_errors
    return errors


def unanswered(template_items: list[dict[str, Any]], answers: list[dict[str, Any]]) -> list[str]:
    answered = {answer.get("key") for answer in answers}
    return [item["key"] for item in template_items if item["key"] not in answered]


def deficiency_needs_new_control(item: dict[str, Any], answer: dict[str, Any]) -> bool:
    """The inspector's call when made; otherwise the template item's default."""
    if answer.get("needs_new_control") is not None:
        return bool(answer["needs_new_control"])
    return bool(item.get("needs_new_control_default", False))


def deficiency_description(item: dict[str, Any], answer: dict[str, Any]) -> str:
    note = (answer.get("note") or "").strip()
    return f"{item['label']}: deficient" + (f". {note}" if note else ".")


def deficiency_action(item: dict[str, Any], needs_new_control: bool) -> str:
    control = item.get("control") or "the control"
    if needs_new_control:
        return f"Install or replace {control} as the ESC plan requires."
    return f"Repair or maintain {control} so it works as the ESC plan requires."


def shown_to_applicant(status: str, reviewed_before: bool) -> bool:
    """May the applicant see an inspection (and what is recorded on it)? A draft is the inspector's
    working copy; a returned one is back in the inspector's hands with the supervisor's comments, and
    stays so once resubmitted until it is approved (a submitted inspection reviewed before was
    returned: an approval is final). The applicant sees a first submission and an approved one."""
    return status == "approved" or (status == "submitted" and not reviewed_before)


def carried_from(answers: list[dict[str, Any]]) -> str | None:
    """The inspection a checklist was started from ("start from the last inspection"): kept with each
    answer the checklist holds, so it lives in the checklist's own JSON; None for a blank start."""
    return next((a["carried_from_id"] for a in answers if a.get("carried_from_id")), None)


def shown_answer(answer: dict[str, Any]) -> dict[str, Any]:
    """An answer as the API shows it: `carried_over` always present (false on answers stored before
    answers could be carried); the source inspection is shown once, on the checklist."""
    shown = dict(answer)
    shown.pop("carried_from_id", None)
    shown["carried_over"] = bool(shown.get("carried_over"))
    return shown


def still_carried_over(answers: list[dict[str, Any]]) -> list[int]:
    """Indexes of the answers still as carried over from an earlier inspection: neither confirmed nor
    changed by the inspector. A submitted inspection states what was seen on this visit, so none may
    remain (a deficient answer carried over stays deficient until changed: it is never made ok here)."""
    return [index for index, answer in enumerate(answers) if answer.get("carried_over")]
