"""Who may attach a photo to which record, and when a record takes no more photos, as pure
functions (DOMAIN.md "Evidence", "Who uses it", R-I3/R-I4, R-F1, R-F3). No database, no Flask.

A photo is evidence about its parent record, so attaching one is an edit of that record:
- field records (inspection, finding, sample, entry authorization): a supervisor, or an inspector
  assigned to the site;
- a completion notice (R-F1): the permit's applicant, or a supervisor filing one received on paper.
Final reports carry documents, not photos, so they are no photo parent.

Locked records take no new photos (409 record_locked): an approved inspection ("nothing approved is
edited in place"), a closed (verified fixed) finding, a revoked entry authorization, an accepted
completion notice, a deleted record, anything of a closed permit, and any child of a locked record: a
finding of an approved inspection is part of what was approved (R-I5), so a photo cannot reach the
approved record through it. A sample is no child of its entry authorization (it rests on one, R-E2):
a revocation ends entry from then on and leaves the samples taken before it open. A submitted
inspection still takes photos: a device pushes the record first and its photo bytes follow whenever
the connection allows, so refusing them would lose evidence the submission already references.
"""
from __future__ import annotations

FIELD_PARENTS = ("inspection", "finding", "sample", "entry_authorization")
FILED_PARENTS = ("completion_notice",)
LOCKED_PERMIT_STATUSES = ("closed",)


def may_attach(parent_type: str | None, role: str, *, assigned: bool, owns_permit: bool) -> bool:
    """May a user of `role` attach a photo to a record of `parent_type` on a permit where they are
    (or are not) the assigned inspector / the applicant? A photo without a parent is evidence of the
    permit itself: anyone who may see the permit and make records on it (not admins)."""
    if role == "supervisor":
        return True
    if parent_type is None:
        return role == "inspector" or (role == "applicant" and owns_permit)
    if parent_type in FIELD_PARENTS:
        return role == "inspector" and assigned
    if parent_type in FILED_PARENTS:
        return role == "applicant" and owns_permit
    return False


def refusal(parent_type: str | None, role: str) -> str:
    """Why may_attach said no, in words for the 403 message."""
    if parent_type in FIELD_PARENTS:
        if role == "inspector":
            return "You are not assigned to this site; ask a supervisor to assign you."
        return f"Only inspectors assigned to the site and supervisors add photos to a {words(parent_type)}."
    if parent_type in FILED_PARENTS:
        return f"Only the permit's applicant and supervisors add photos to a {words(parent_type)}."
    return "Your role may not add photos to this permit."


def parent_locked(parent_type: str, *, status: str | None = None, deleted: bool = False,
                  revoked: bool = False) -> bool:
    """Is the (existing) parent record closed to new photos?"""
    if deleted or revoked:
        return True
    return {"inspection": status == "approved", "finding": status == "closed",
            "completion_notice": status == "accepted"}.get(parent_type, False)


def owner_locked(parent_type: str, *, owner_status: str | None = None, owner_deleted: bool = False) -> bool:
    """Is the record that holds the parent (a finding's inspection) locked, and the parent with it?"""
    if parent_type != "finding":
        return False
    return owner_deleted or owner_status == "approved"


def permit_locked(permit_status: str) -> bool:
    return permit_status in LOCKED_PERMIT_STATUSES


def words(parent_type: str) -> str:
    return parent_type.replace("_", " ")
