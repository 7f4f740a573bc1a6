"""The determination of a permit (R-A5): which review the bylaw requires for it, stored with its
inputs when the permit changes, and as it stands today when read (R-B1: an order or decision that
expired since the last change voids its exemption). One project's linked applications are determined
on the project's total disturbed area (R-A7).
"""
from __future__ import annotations

from sqlalchemy import select

from .. import audit
from ..clock import today as local_today
from ..extensions import db
from ..records import bump
from . import rules
from .models import Permit
from .numbering import assign_number

INPUT_COLUMNS = ("disturbed_area_sqft", "drains_to_ms4", "drains_to_waters", "luhppl_kind", "luhppl_description")
UNDER_REVIEW = ("submitted", "under_review")


# ---- projects (R-A7) --------------------------------------------------------------------------
def project_members(permit: Permit) -> list[Permit]:
    if not permit.project_id:
        return [permit]
    return list(db.session.scalars(select(Permit).where(Permit.project_id == permit.project_id)
                                   .order_by(Permit.created_at, Permit.id)))


def project_area(permit: Permit) -> float:
    """R-A7: the land disturbed by the single project: every linked application that is still a
    live part of it (denied and withdrawn ones disturb nothing)."""
    members = project_members(permit)
    return sum(m.disturbed_area_sqft for m in members
               if m.id == permit.id or m.status not in ("denied", "withdrawn"))


# ---- determination (R-A5) -----------------------------------------------------------------------
def determination_for(permit: Permit, today) -> dict:
    claims = [c for c in permit.exemptions if c.status != "rejected"]
    inputs = [rules.ExemptionClaim(c.kind, rules.document_valid_on(c.expires_on, c.issued_on, today, c.has_document))
              for c in claims]
    # R-A7: the land disturbed "as part of a single project": every linked application's area.
    area = permit.disturbed_area_sqft
    if permit.project_id:
        area = project_area(permit)
    # R-B2: exempt on a claim that stands, but decided only once a supervisor accepted one that stands.
    accepted = any(c.status == "accepted" and rules.exemption_stands(i) for c, i in zip(claims, inputs))
    result = rules.determine(area, permit.drains_to_ms4, permit.drains_to_waters,
                             permit.luhppl_kind, inputs, permit.luhppl_description, exemption_accepted=accepted)
    valid_until = None
    if result.review_level == "exempt" and not any(c.kind not in rules.DOCUMENT_EXEMPTIONS for c in claims):
        valid_until = max(c.expires_on for c, i in zip(claims, inputs) if i.document_valid).isoformat()
    return {**result.as_dict(), "exemption_status": rules.exemption_status(result.review_level, accepted),
            "valid_until": valid_until, "as_of": today.isoformat(), "inputs": {
        **{key: getattr(permit, key) for key in INPUT_COLUMNS},
        **({"project_id": permit.project_id, "project_disturbed_area_sqft": area} if permit.project_id else {}),
        "exemptions": [{"id": c.id, "kind": c.kind, "status": c.status, "document_valid": i.document_valid}
                       for c, i in zip(claims, inputs)]}}


def recompute_determination(permit: Permit, today=None) -> bool:
    """Store the determination with its inputs (R-A5); True when it changed. A permit under review
    whose level changed gets the number of its new level."""
    today = today or local_today()
    new = determination_for(permit, today)
    old = dict(permit.determination or {})
    if old and {k: v for k, v in old.items() if k != "as_of"} == {k: v for k, v in new.items() if k != "as_of"}:
        return False
    permit.determination = new
    permit.review_level = new["review_level"]
    if permit.status in UNDER_REVIEW:
        assign_number(permit, today)
    return True


def recompute_project(permit: Permit, actor, reason: str) -> None:
    """R-A7, R-A5: the project's total changed through `permit` (its area, or it was withdrawn or denied
    and left the total), so every other linked application's determination follows, each change audited."""
    if not permit.project_id:
        return
    db.session.flush()
    for member in project_members(permit):
        if member.id == permit.id:
            continue
        before = (member.review_level, member.number)
        if recompute_determination(member):
            bump(member)
            audit.record("permit.determination", "permit", member.id,
                         {"review_level": [before[0], member.review_level], "number": [before[1], member.number],
                          "reason": reason}, actor=actor, permit_id=member.id)
    db.session.flush()


def _has_document_claims(permit: Permit) -> bool:
    return any(c.kind in rules.DOCUMENT_EXEMPTIONS and c.status != "rejected" for c in permit.exemptions)


def determination_today(permit: Permit) -> dict | None:
    """What recompute_determination would store today, without storing it (reads never write). One
    stored before R-B2 showed a claim as claimed (no `exemption_status`) is shown as it is today."""
    if not _has_document_claims(permit) and "exemption_status" in (permit.determination or {}):
        return permit.determination
    new = determination_for(permit, local_today())
    old = dict(permit.determination or {})
    if old and {k: v for k, v in old.items() if k != "as_of"} == {k: v for k, v in new.items() if k != "as_of"}:
        return old
    return new


def refresh_determination(permit: Permit) -> None:
    """An order of conditions or decision that expired since the last change voids its exemption
    (R-B1): re-evaluate document-based claims against today."""
    if _has_document_claims(permit):
        before = {"review_level": permit.review_level, "number": permit.number}
        if recompute_determination(permit):
            bump(permit)
            db.session.flush()
            changes = audit.diff(before, {"review_level": permit.review_level, "number": permit.number})
            audit.record("permit.determination", "permit", permit.id,
                         {**changes, "reason": "an exemption document is no longer valid today"}, permit_id=permit.id)


def review_level_today(permit: Permit) -> str:
    determination = determination_today(permit)
    return determination["review_level"] if determination else permit.review_level
