"""Submission and review of inspections (R-I5) and the findings a submission raises (R-I3, R-I4, R-A6).

draft -> submitted -> approved | returned; returned -> (edited) -> submitted again. Approved is final:
a correction is a new inspection with `supersedes_id`.

Findings follow the answers they come from: each deficient item of a submitted inspection has
exactly one finding (kind "deficiency", keyed by the item), and disturbance seen before approval
one finding of kind "work_without_approval", which a draft already carries (R-A6). Re-submitting
after a return updates those findings, and withdraws (soft-deletes) an open one whose answer is no
longer deficient; nothing is duplicated.
Findings listed in a follow-up's `verifies_finding_ids` are closed when the follow-up is approved, so
only a reviewed visit can certify a corrective action done.
"""
from __future__ import annotations

from typing import Any

from sqlalchemy import select

from .. import clock
from .. import audit, signals
from ..checklists.services import find_template
from ..errors import Conflict, Forbidden, InvalidTransition, ValidationFailed
from ..extensions import db
from ..permits.access import check_field_work
from ..permits.models import Permit, PermitEvent
from ..permits.determination import review_level_today
from ..permits.rules import approval_lapsed
from ..questions import Question
from ..records import bump, check_version
from . import findings as finding_ops
from . import rules
from .models import Finding, Inspection
from .schemas import dump_inspection

WITHOUT_APPROVAL = ("work_without_approval", None)
CEASE_AND_DESIST = ("cease_and_desist_violation", None)

CEASE_AND_DESIST_OPEN = Question("cease_and_desist_open", """R-O1a: the numbers of the cease-and-desist
orders open on site `permit_id` on `day` (issued by then, not yet complied with or closed), in order.
Enforcement, which issues orders, answers.""")


def _dump(record: Inspection) -> dict[str, Any]:
    return dump_inspection(record)


def ensure_editable(record: Inspection) -> None:
    if record.status == "approved":
        raise Conflict("This inspection is approved and locked; record a new inspection that supersedes it.",
                       error="record_locked")
    if record.status == "submitted":
        raise Conflict("This inspection is submitted and awaits review; it can be edited again if returned.",
                       error="record_locked")


def _lock(record: Inspection) -> None:
    """Re-read the row under a lock so two concurrent submissions or reviews cannot both pass the
    status check (and, say, raise the same findings twice)."""
    db.session.refresh(record, with_for_update=True)


def submit_inspection(user, record: Inspection, expected_version: int | None = None) -> Inspection:
    permit = db.session.get(Permit, record.permit_id)
    check_field_work(user, permit)
    _lock(record)
    if record.status == "approved":
        ensure_editable(record)
    if record.status not in rules.EDITABLE_STATUSES:
        raise InvalidTransition("This inspection is already submitted and awaits review.")
    check_version(record, expected_version, _dump)
    template = _complete_checklist(record)
    before = _dump(record)
    record.status, record.submitted_at, record.submitted_by = "submitted", clock.now(), user.id
    _sync_findings(user, record, permit, template)
    bump(record)
    db.session.flush()
    db.session.expire(record, ["findings"])
    audit.record("inspection.submit", "inspection", record.id, audit.diff(before, _dump(record)),
                 actor=user, permit_id=record.permit_id)
    return record


def _complete_checklist(record: Inspection):
    if record.checklist_template is None:
        raise ValidationFailed("Submit the inspection with its checklist.",
                               errors={"checklist": ["An inspection is submitted with its checklist."]})
    template = find_template(record.checklist_template, record.checklist_template_version)
    missing = rules.unanswered(template.items, record.checklist_items)
    if missing:
        raise ValidationFailed("Answer every checklist item (n/a where it does not apply) before submitting.",
                               errors={"checklist": {"items": [f"Not answered: {', '.join(missing)}."]}})
    carried = rules.still_carried_over(record.checklist_items)
    if carried:
        keys = [record.checklist_items[index]["key"] for index in carried]
        raise ValidationFailed(
            "Confirm or change each answer carried over from the last inspection before submitting "
            f"(still carried over: {', '.join(keys)}).",
            errors={"checklist": {"items": {index: {"carried_over": [
                f"{_item_label(template, record.checklist_items[index]['key'])}: still as carried over from the "
                "last inspection; confirm it or change it."]} for index in carried}}})
    return template


def _item_label(template, key: str) -> str:
    item = template.item(key)
    return item["label"] if item else key


def review_inspection(user, record: Inspection, data: dict[str, Any], expected_version: int | None = None) -> Inspection:
    """R-I5: a supervisor approves, or returns with comments for the inspector to edit and resubmit."""
    if not user.is_supervisor:
        raise Forbidden("Only supervisors review inspections.")
    _lock(record)
    if record.status == "approved":
        ensure_editable(record)
    if record.status != "submitted":
        raise InvalidTransition("Only a submitted inspection can be reviewed.")
    check_version(record, expected_version, _dump)
    decision, comment = data["decision"], (data.get("comment") or "").strip() or None
    if decision == "returned" and not comment:
        raise ValidationFailed(errors={"comment": ["Say what to change when returning an inspection."]})
    before = _dump(record)
    now = clock.now()
    record.status, record.reviewed_at, record.reviewed_by, record.review_comment = decision, now, user.id, comment
    record.reviews = [*(record.reviews or []),
                      {"decision": decision, "comment": comment, "by": user.id, "at": now.isoformat()}]
    if decision == "approved":
        _verify_findings(user, record)
    bump(record)
    db.session.flush()
    audit.record(f"inspection.{decision}", "inspection", record.id, audit.diff(before, _dump(record)),
                 actor=user, permit_id=record.permit_id)
    if decision == "approved":
        signals.inspection_approved.send(record, actor=user)  # R-I5: findings to the applicant and owner
    return record


def _wanted_findings(record: Inspection, permit: Permit, template) -> dict[tuple[str, str | None], dict]:
    wanted: dict[tuple[str, str | None], dict] = {}
    for answer in record.checklist_items:
        if answer["answer"] != "deficient":
            continue
        item = template.item(answer["key"])
        new_control = rules.deficiency_needs_new_control(item, answer)
        wanted[("deficiency", answer["key"])] = {
            "description": rules.deficiency_description(item, answer), "needs_new_control": new_control,
            "required_action": rules.deficiency_action(item, new_control), "severity": answer.get("severity"),
            "photo_ids": list(answer.get("photo_ids") or [])}
    without_approval = _without_approval(record, permit)
    if without_approval:
        wanted[WITHOUT_APPROVAL] = without_approval
    orders = _cease_and_desist_orders(permit, record)
    if record.disturbance_observed and orders:
        wanted[CEASE_AND_DESIST] = {
            "description": f"Land disturbance observed while cease-and-desist order {', '.join(orders)} was open "
                           "(bylaw Enforcement §B(1)(a); R-O1a).",
            "needs_new_control": False, "severity": "critical", "photo_ids": [],
            "required_action": "Stop all land-disturbing activity at once, as the order requires, until there is "
                               "compliance."}
    return wanted


def _without_approval(record: Inspection, permit: Permit) -> dict | None:
    """The work_without_approval finding the visit's disturbance raises (R-A6), or None. R-A6, R-B1: the
    review the project needs as it stands today: an order of conditions or decision that expired since
    the permit last changed has voided the exemption the approval rested on."""
    level = review_level_today(permit)
    status = _permit_status_at(permit, record.started_at)
    if rules.disturbance_without_approval(record.disturbance_observed, level, status):
        return {
            "description": f"Land disturbance observed while the project's status was {status.replace('_', ' ')}: "
                           "no approval or permit is in force (bylaw §A, §C; R-A6).",
            "needs_new_control": False, "severity": "high", "photo_ids": [],
            "required_action": "Stop land-disturbing activity and stabilize the site until the approval or permit "
                               "is issued."}
    if rules.disturbance_after_lapse(record.disturbance_observed, _lapsed_at(permit, level),
                                     clock.local_date(record.started_at), _last_valid_day(permit)):
        return {
            "description": "Land disturbance observed after the exemption the approval rested on lapsed "
                           "before the visit: no approval or permit covers the work (bylaw §A, §C; R-A6).",
            "needs_new_control": False, "severity": "high", "photo_ids": [],
            "required_action": "Stop land-disturbing activity and stabilize the site; apply for the review the "
                               "project now needs."}
    return None


def _lapsed_at(permit: Permit, level: str) -> bool:
    """R-A6: the approval rested on an exemption that has since lapsed (judged on today's level)."""
    return approval_lapsed(permit.status, level, permit.number)


def _last_valid_day(permit: Permit):
    """The last day the accepted order of conditions or decision under the approval was valid."""
    return max((e.expires_on for e in permit.exemptions if e.status == "accepted" and e.expires_on), default=None)


def _cease_and_desist_orders(permit: Permit, record: Inspection) -> list[str]:
    """R-O1a: numbers of the cease-and-desist orders open on the site on the day of the visit."""
    return CEASE_AND_DESIST_OPEN(permit.id, clock.local_date(record.started_at))


def _permit_status_at(permit: Permit, at) -> str:
    """The permit's status when the visit happened (R-A6 asks whether approval was in force then, not at
    submission); the current status when the history holds nothing that early."""
    status = db.session.scalar(select(PermitEvent.to_status).where(PermitEvent.permit_id == permit.id,
                                                                   PermitEvent.at <= at)
                               .order_by(PermitEvent.at.desc()).limit(1))
    return status or permit.status


def draft_findings(user, record: Inspection) -> None:
    """R-A6, "on a draft and on a submitted inspection alike": a draft or returned inspection carries
    the work_without_approval finding its disturbance raises as soon as it is saved, and loses it when
    the observation is taken back or the draft deleted. Its other findings come with the submission,
    which keeps this one (found by its key, never made twice)."""
    permit = db.session.get(Permit, record.permit_id)
    spec = None if record.deleted_at else _without_approval(record, permit)
    _apply_findings(user, record, permit, {WITHOUT_APPROVAL: spec} if spec else {}, (WITHOUT_APPROVAL[0],))
    db.session.flush()
    db.session.expire(record, ["findings"])


def _sync_findings(user, record: Inspection, permit: Permit, template) -> None:
    _apply_findings(user, record, permit, _wanted_findings(record, permit, template),
                    ("deficiency", "work_without_approval", "cease_and_desist_violation"))


def _apply_findings(user, record: Inspection, permit: Permit, wanted: dict, kinds: tuple[str, ...]) -> None:
    observed_on = clock.local_date(record.started_at)
    made = {(f.kind, f.item_key): f for f in db.session.scalars(
        select(Finding).where(Finding.inspection_id == record.id, Finding.kind.in_(kinds)))}
    for key, spec in wanted.items():
        finding = made.get(key)
        if finding is None:
            finding_ops.create_finding(
                permit, kind=key[0], item_key=key[1], inspection_id=record.id, observed_on=observed_on,
                description=spec["description"], needs_new_control=spec["needs_new_control"],
                severity=spec["severity"] or "moderate", required_action=spec["required_action"],
                photo_ids=spec["photo_ids"], actor=user)
        elif finding.status == "open":
            _refresh_finding(user, finding, spec, observed_on)
    for key, finding in made.items():
        if key not in wanted and finding.status == "open" and finding.deleted_at is None:
            finding.deleted_at = clock.now()
            bump(finding)
            audit.record("finding.withdraw", "finding", finding.id, {"reason": "answer no longer deficient"},
                         actor=user, permit_id=finding.permit_id)


def _refresh_finding(user, finding: Finding, spec: dict, observed_on) -> None:
    """The answer changed before approval: the finding it made follows (a supervisor's due-date
    override stays)."""
    before = {k: getattr(finding, k) for k in ("description", "needs_new_control", "severity", "photo_ids",
                                               "due_on", "required_action", "deleted_at", "observed_on")}
    finding.deleted_at = None
    finding.description, finding.photo_ids, finding.observed_on = spec["description"], spec["photo_ids"], observed_on
    if spec["severity"]:
        finding.severity = spec["severity"]
    if finding.needs_new_control != spec["needs_new_control"] or before["observed_on"] != observed_on:
        finding.needs_new_control = spec["needs_new_control"]
        finding.required_action = spec["required_action"]
        if not finding.due_on_override_reason:
            finding.due_on = rules.finding_due_on(observed_on, spec["needs_new_control"])
    after = {k: getattr(finding, k) for k in before}
    if after != before:
        bump(finding)
        audit.record("finding.update", "finding", finding.id, audit.diff(before, after), actor=user,
                     permit_id=finding.permit_id)


def _verify_findings(user, record: Inspection) -> None:
    fixed_on = clock.local_date(record.started_at)
    for finding_id in record.verifies_finding_ids or []:
        finding = db.session.get(Finding, finding_id)
        if finding is None or finding.permit_id != record.permit_id or finding.deleted_at is not None \
                or finding.status != "open":
            continue
        finding.status, finding.verified_fixed_on = "closed", fixed_on
        finding.verified_by_inspection_id, finding.closed_at = record.id, clock.now()
        bump(finding)
        finding_ops.touch_inspection(finding)
        audit.record("finding.verified_fixed", "finding", finding.id,
                     {"verified_fixed_on": fixed_on, "inspection_id": record.id}, actor=user,
                     permit_id=finding.permit_id)
