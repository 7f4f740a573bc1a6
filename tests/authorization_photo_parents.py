"""Photo parents for the authorization sweep: one record of every parent type, open and locked, on
applicant B's permits, and what each member of the cast must get when attaching a photo to it.

Permits (all B's, administrative review, so they close with a completion notice):
- `same`: the open parents, and the locked ones (approved inspection, closed finding, revoked entry
  authorization); its completion notice is open (submitted);
- `accepted`: holds the accepted (locked) completion notice;
- `other`: no parents; a photo on it naming a parent of `same` names another permit's record;
- `closed`: one parent of every type, then the permit is closed.
A sample has no lock of its own: its locked case is the one on the closed permit.
"""
from __future__ import annotations

import hashlib
import uuid
from datetime import datetime, timedelta, timezone

from inspect_api.checklists.defaults import DEFAULT_ITEMS
from inspect_api.extensions import db
from inspect_api.inspections.models import Finding
from inspect_api.permits import services as permit_services

from .authorization_world import iso, small_jpeg

PARENT_TYPES = ("inspection", "finding", "sample", "entry_authorization", "completion_notice")
FIELD = ("inspection", "finding", "sample", "entry_authorization")
CAST = ("b", "a", "i", "u", "s", "admin")  # owner, other applicant, assigned / unassigned inspector, supervisor, admin
STATES = ("open", "locked", "closed_permit")
WHERE = ("same", "other")


class PhotoParents:
    def __init__(self, world) -> None:
        self.w = world
        self.permits: dict[str, str] = {}
        self.parents: dict[tuple[str, str], tuple[str, str]] = {}  # (type, state) -> (permit id, record id)

    def build(self) -> "PhotoParents":
        w = self.w
        self.unassigned = w.f.user("inspector")
        w.h.setdefault("u", w.f.headers(self.unassigned))
        for name in ("same", "accepted", "other", "closed"):
            permit = w.f.permit(applicant=w.b, status="active")
            self.permits[name] = permit.id
            w.call("s", "POST", f"/permits/{permit.id}/assignments", json={"inspector_id": w.inspector.id})
        same, closed = self.permits["same"], self.permits["closed"]
        for kind, record in self._records(same).items():
            self.parents[(kind, "open")] = (same, record)
        for kind, record in self._records(closed).items():
            self.parents[(kind, "closed_permit")] = (closed, record)
        self._locked(same)
        permit_services.force_status(db.session.get(type(w.permit), closed), "closed")
        db.session.commit()
        return self

    def _entry(self, permit_id: str) -> str:
        now = datetime.now(timezone.utc)
        return self.w.call("i", "POST", "/entry-authorizations", json={
            "permit_id": permit_id, "basis": "permit_condition", "granted_by_name": "Condition 12",
            "granted_by_relation": "permit condition", "scope": ["examination", "sampling"],
            "valid_from": iso(now - timedelta(days=2)), "valid_to": iso(now + timedelta(days=30))})["id"]

    def _inspection(self, permit_id: str, entry: str) -> str:
        return self.w.call("i", "POST", "/inspections", json={
            "permit_id": permit_id, "entry_authorization_id": entry, "kind": "routine",
            "started_at": iso(datetime.now(timezone.utc) - timedelta(hours=2)),
            "checklist": {"template": "esc", "items": [{"key": i["key"], "answer": "ok"} for i in DEFAULT_ITEMS]}})["id"]

    def _finding(self, permit_id: str) -> str:
        return self.w.call("i", "POST", "/findings", json={
            "permit_id": permit_id, "description": "Silt fence down",
            "observed_on": datetime.now(timezone.utc).date().isoformat()})["id"]

    def _records(self, permit_id: str) -> dict[str, str]:
        w, entry = self.w, self._entry(permit_id)
        inspection = self._inspection(permit_id, entry)
        w.call("i", "POST", f"/inspections/{inspection}/submit", expect=200, json={})
        sample = w.call("i", "POST", "/samples", json={
            "permit_id": permit_id, "entry_authorization_id": entry,
            "sampled_at": iso(datetime.now(timezone.utc) - timedelta(hours=1)), "sampler": "Dana Field",
            "outfall_id": "OF-1", "sample_type": "grab", "analysis": "field",
            "parameters": [{"name": "ph", "value": 7.1, "unit": "SU"}]})["id"]
        notice = w.call("b", "POST", "/completion-notices", json={
            "permit_id": permit_id, "statement": "Work complete.", "photo_ids": [str(uuid.uuid4())]})["id"]
        return {"inspection": inspection, "finding": self._finding(permit_id), "sample": sample,
                "entry_authorization": entry, "completion_notice": notice}

    def _locked(self, same: str) -> None:
        w = self.w
        entry = self._entry(same)
        approved = self._inspection(same, entry)
        w.call("i", "POST", f"/inspections/{approved}/submit", expect=200, json={})
        w.call("s", "POST", f"/inspections/{approved}/review", expect=200, json={"decision": "approved"})
        self.parents[("inspection", "locked")] = (same, approved)
        closed_finding = self._finding(same)
        # Closing a finding takes a later inspection verifying the fix; only its status matters here.
        db.session.get(Finding, closed_finding).status = "closed"
        db.session.commit()
        self.parents[("finding", "locked")] = (same, closed_finding)
        revoked = self._entry(same)
        w.call("i", "POST", f"/entry-authorizations/{revoked}/revoke", expect=200, json={})
        self.parents[("entry_authorization", "locked")] = (same, revoked)
        accepted = self.permits["accepted"]
        notice, photo = str(uuid.uuid4()), small_jpeg()
        # R-F1: accepted once one of its photos has arrived, uploaded while the notice was still open.
        arrived = w.call("b", "PUT", f"/photos/{uuid.uuid4()}", data=photo,
                         query_string={"permit_id": accepted, "parent_type": "completion_notice", "parent_id": notice},
                         headers={"Content-Type": "image/jpeg", "X-Content-SHA256": hashlib.sha256(photo).hexdigest()})
        w.call("b", "POST", "/completion-notices", json={
            "id": notice, "permit_id": accepted, "statement": "Work complete.", "photo_ids": [arrived["id"]]})
        w.call("s", "POST", f"/completion-notices/{notice}/review", expect=200, json={"decision": "accept"})
        self.parents[("completion_notice", "locked")] = (accepted, notice)

    def target(self, kind: str, state: str, where: str) -> tuple[str, str]:
        """(permit the photo is uploaded to, parent id)."""
        if state == "locked" and kind == "sample":
            state = "closed_permit"
        permit_id, record = self.parents[(kind, state)]
        if where == "same":
            return permit_id, record
        if state == "closed_permit":  # a photo on the closed permit naming an open record elsewhere
            return self.permits["closed"], self.parents[(kind, "open")][1]
        return self.permits["other"], record


def expected(who: str, kind: str, state: str, where: str) -> tuple[int, str | None]:
    """What attaching a photo must answer: (status, error)."""
    if who in ("a", "admin"):
        return 404, "not_found"  # B's permits are not theirs to see
    if state == "closed_permit" or (state == "locked" and kind == "sample"):
        return 409, "record_locked"
    may = (kind in FIELD and who in ("i", "s")) or (kind == "completion_notice" and who in ("b", "s"))
    if not may:
        return 403, "forbidden"
    if where == "other":
        return 422, "validation_error"
    return (409, "record_locked") if state == "locked" else (201, None)
