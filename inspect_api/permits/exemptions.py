"""Exemption claims under bylaw §B (R-B1, R-B2): claimed with evidence, decided by a supervisor.

Claims are made by the permit's applicant (or a supervisor filing for them) while the application is
a draft or under review, and may be completed (e.g. the order of conditions attached) until decided.
Every claim that is not rejected counts in the stored determination: B1-B4 on the claim alone,
B5/B6 only with a document valid today, so an expired order voids the exemption.
"""
from __future__ import annotations

from typing import Any

from sqlalchemy import select

from .. import clock
from .. import audit, signals
from ..auth.models import User
from ..auth.permissions import current_device_id
from ..db import new_id
from ..errors import Conflict, Forbidden, NotFound, ValidationFailed
from ..extensions import db
from ..records import bump, check_version, existing_for_create
from . import rules
from ..clock import today as local_today
from .models import Permit, PermitDocument, PermitExemption
from .parts import PHOTO_SEEN_ON_PERMIT
from .schemas import ExemptionSchema
from .determination import recompute_determination

EVIDENCE = ("statement", "single_family", "utility_kind", "document_number", "issued_on", "expires_on",
            "document_photo_id", "document_id")
CLAIMABLE = ("draft", "submitted", "under_review")
DECIDABLE = ("submitted", "under_review")
_schema = ExemptionSchema()


def dump_exemption(claim: PermitExemption) -> dict:
    return _schema.dump(claim)


def _check_claimant(user: User, permit: Permit) -> None:
    if not (user.role == "supervisor" or (user.role == "applicant" and permit.applicant_id == user.id)):
        raise Forbidden("Only the applicant or a supervisor may claim an exemption.")
    if permit.status not in CLAIMABLE:
        raise Conflict(f"The application is {permit.status.replace('_', ' ')}; exemptions are claimed before "
                       "the decision.", error="permit_locked")


def _check_evidence(user: User, permit: Permit, kind: str, evidence: dict[str, Any],
                    new_photo_id: str | None = None) -> None:
    problems = rules.exemption_evidence_problems(kind, evidence)
    # The scan of the order or decision is shown with the claim to everyone who sees the permit: it
    # must be a photo of this permit the caller sees, and one they cannot answers like an unknown id.
    if new_photo_id and not PHOTO_SEEN_ON_PERMIT(user, permit.id, str(new_photo_id)):
        problems.setdefault("document_photo_id", []).append("No such photo on this permit; upload it first.")
    document_id = evidence.get("document_id")
    if document_id:
        document = db.session.get(PermitDocument, str(document_id))
        if document is None or document.permit_id != permit.id:
            problems.setdefault("document_id", []).append("No document with this id on this permit.")
    if problems:
        raise ValidationFailed("The claim lacks evidence the bylaw asks for.", errors=problems)


def _recompute(permit: Permit, user: User, action: str) -> None:
    # The permit's JSON carries its claims, so any claim change is a new permit version for devices.
    before = (permit.review_level, permit.number)
    bump(permit)
    if recompute_determination(permit):
        db.session.flush()
        audit.record(action, "permit", permit.id, {"review_level": [before[0], permit.review_level],
                                                   "number": [before[1], permit.number]},
                     actor=user, permit_id=permit.id)
    db.session.flush()


def claim_exemption(user: User, permit: Permit, data: dict[str, Any]) -> tuple[PermitExemption, bool]:
    _check_claimant(user, permit)
    evidence = {key: data.get(key) for key in EVIDENCE if data.get(key) is not None}
    _check_evidence(user, permit, data["kind"], evidence, evidence.get("document_photo_id"))
    claim_id = str(data["id"]) if data.get("id") else None
    existing = existing_for_create(PermitExemption, claim_id, lambda c: c.permit_id == permit.id and c.kind == data[
        "kind"] and all(getattr(c, k) == v for k, v in evidence.items()))
    if existing is not None:
        return existing, False
    claim = PermitExemption(id=claim_id or new_id(), permit_id=permit.id, kind=data["kind"], status="claimed",
                            created_by=user.id, device_id=current_device_id(), **evidence)
    permit.exemptions.append(claim)
    db.session.flush()
    audit.record("exemption.claim", "exemption", claim.id, {"kind": claim.kind, **evidence}, actor=user,
                 permit_id=permit.id)
    _recompute(permit, user, "permit.determination")
    return claim, True


def get_exemption(permit: Permit, exemption_id: str) -> PermitExemption:
    claim = db.session.get(PermitExemption, exemption_id)
    if claim is None or claim.permit_id != permit.id:
        raise NotFound("No such exemption claim on this permit.")
    return claim


def list_exemptions(permit: Permit) -> list[PermitExemption]:
    return list(db.session.scalars(select(PermitExemption).where(PermitExemption.permit_id == permit.id)
                                   .order_by(PermitExemption.created_at, PermitExemption.id)))


def update_exemption(user: User, permit: Permit, claim: PermitExemption, data: dict[str, Any],
                     expected_version: int | None) -> PermitExemption:
    """Complete a claim's evidence (e.g. attach the order of conditions) until it is decided."""
    _check_claimant(user, permit)
    check_version(claim, expected_version, dump_exemption)
    if claim.status != "claimed":
        raise Conflict(f"The claim was {claim.status}; make a new claim instead.", error="exemption_decided")
    changes = {key: data[key] for key in EVIDENCE if key in data}
    merged = {key: getattr(claim, key) for key in EVIDENCE} | changes
    _check_evidence(user, permit, claim.kind, {k: v for k, v in merged.items() if v is not None},
                    changes.get("document_photo_id") if changes.get("document_photo_id") != claim.document_photo_id
                    else None)
    diff = audit.diff({key: getattr(claim, key) for key in changes}, changes)
    if not diff:
        return claim
    for key, value in changes.items():
        setattr(claim, key, value)
    bump(claim)
    db.session.flush()
    audit.record("exemption.update", "exemption", claim.id, diff, actor=user, permit_id=permit.id)
    _recompute(permit, user, "permit.determination")
    return claim


def decide_exemption(user: User, permit: Permit, claim: PermitExemption, decision: str,
                     reason: str | None = None) -> PermitExemption:
    """R-B1: a supervisor accepts or rejects; an accepted B5/B6 must hold a document valid today."""
    if user.role != "supervisor":
        raise Forbidden("Only a supervisor decides exemption claims.")
    if permit.status not in DECIDABLE:
        raise Conflict(f"The application is {permit.status.replace('_', ' ')}; claims are decided while it is "
                       "submitted or under review.", error="permit_locked")
    if claim.status != "claimed":
        raise Conflict(f"The claim was already {claim.status}.", error="exemption_decided")
    today = local_today()
    if decision == "accepted":
        problem = rules.acceptance_problem(claim.kind, has_document=claim.has_document, issued_on=claim.issued_on,
                                           expires_on=claim.expires_on, on=today)
        if problem:
            raise Conflict(problem, error="exemption_document_invalid")
    elif not (reason or "").strip():
        raise ValidationFailed(errors={"reason": ["Say why the claim is rejected."]})
    claim.status, claim.decision_reason = decision, reason
    claim.decided_by, claim.decided_at, claim.decided_on = user.id, clock.now(), today
    bump(claim)
    db.session.flush()
    audit.record("exemption.decide", "exemption", claim.id, {"status": ["claimed", decision], "reason": reason},
                 actor=user, permit_id=permit.id)
    _recompute(permit, user, "permit.determination")
    signals.exemption_decided.send(claim, permit=permit, actor=user)  # the claimant is told
    return claim
