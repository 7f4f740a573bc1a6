"""Permit operations: load, check, change, flush (never commit)."""
from __future__ import annotations

from typing import Any

from .. import audit
from ..auth.models import User
from ..db import utcnow
from ..errors import NotFound
from ..extensions import db
from . import rules
from .models import Assignment, Permit, PermitEvent


def _determination_for(permit: Permit, exemptions: list[rules.ExemptionClaim] | None = None) -> dict:
    result = rules.determine(permit.disturbed_area_sqft, permit.drains_to_ms4, permit.drains_to_waters,
                             permit.luhppl_kind, exemptions or [])
    inputs = {"disturbed_area_sqft": permit.disturbed_area_sqft, "drains_to_ms4": permit.drains_to_ms4,
              "drains_to_waters": permit.drains_to_waters, "luhppl_kind": permit.luhppl_kind,
              "exemptions": [{"kind": e.kind, "document_valid": e.document_valid} for e in (exemptions or [])]}
    return {**result.as_dict(), "inputs": inputs}


def recompute_determination(permit: Permit, exemptions: list[rules.ExemptionClaim] | None = None) -> None:
    """R-A5: stored with its inputs and the rules that fired; recomputed whenever an input changes."""
    permit.determination = _determination_for(permit, exemptions)
    permit.review_level = permit.determination["review_level"]


def create_permit(applicant: User, data: dict[str, Any], actor: User | None = None) -> Permit:
    site, owner = data["site"], data["owner"]
    permit = Permit(
        id=data.get("id") or None, applicant_id=applicant.id, created_by=(actor or applicant).id,
        site_address=site["address"], parcel_id=site.get("parcel_id"),
        site_lat=site["location"]["lat"], site_lon=site["location"]["lon"], limit_of_work=site.get("limit_of_work"),
        owner_name=owner["name"], owner_email=owner.get("email"), owner_phone=owner.get("phone"),
        disturbed_area_sqft=data["disturbed_area_sqft"], drains_to_ms4=data["drains_to_ms4"],
        drains_to_waters=data["drains_to_waters"], proposed_use=data["proposed_use"],
        luhppl_kind=data.get("luhppl_kind"), luhppl_description=data.get("luhppl_description"),
        description=data.get("description"),
    )
    recompute_determination(permit)
    db.session.add(permit)
    db.session.flush()
    db.session.add(PermitEvent(permit_id=permit.id, from_status=None, to_status="draft", actor_id=(actor or applicant).id))
    audit.record("permit.create", "permit", permit.id, {"review_level": permit.review_level},
                 actor=actor or applicant, permit_id=permit.id)
    return permit


def force_status(permit: Permit, status: str) -> None:
    """Set a status without the transition rules: for fixtures and demo data only."""
    permit.status = status
    permit.bump_version()
    db.session.flush()


def assign_inspector(permit: Permit, inspector_id: str, actor: User) -> Assignment:
    inspector = db.session.get(User, inspector_id)
    if inspector is None or inspector.role != "inspector":
        raise NotFound("No such inspector.")
    for existing in permit.assignments:
        if existing.inspector_id == inspector_id and existing.removed_at is None:
            return existing
    assignment = Assignment(permit_id=permit.id, inspector_id=inspector_id, assigned_by=actor.id, assigned_at=utcnow())
    db.session.add(assignment)
    db.session.flush()
    audit.record("permit.assign", "permit", permit.id, {"inspector_id": inspector_id}, actor=actor, permit_id=permit.id)
    return assignment
