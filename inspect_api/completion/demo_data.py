"""Demo data: the completion notice (R-F1) of an administrative-review project whose work is complete,
accepted by the supervisor, ready for its certificate of completion (R-F3).

The notice's photos are referenced but never uploaded, so the demo shows them as pending, as a notice
filed from a phone whose photos are still on their way does.
"""
from __future__ import annotations

from ..auth.models import User
from ..db import new_id
from ..demo_steps import DemoContext, demo_step
from ..extensions import db
from . import rules
from .schemas import CompletionNoticeCreateSchema
from .services import create_completion_notice, review_completion_notice

STATEMENT = ("The barn, riding ring and gravel drive are complete as shown on the approved ESC plan. All disturbed "
             "areas are loamed and seeded with at least 70% cover; the silt fence has been removed and the "
             "infiltration trench along the ring's east side is clean and working.")


@demo_step
def seed_completion_notices(ctx: DemoContext) -> None:
    permit = next((p for p in ctx.permits.values() if p.status == "work_complete"
                   and rules.closeout_kind(p.review_level) == "completion_notice"), None)
    if permit is None:
        return  # No administrative-review permit with its work complete: nothing to give notice of.
    applicant = db.session.get(User, permit.applicant_id)
    completed_on = permit.work_completed_on or ctx.today
    data = CompletionNoticeCreateSchema().load({
        "permit_id": permit.id, "statement": STATEMENT, "photo_ids": [new_id(), new_id(), new_id()],
        "completed_on": completed_on.isoformat()})
    notice, _ = create_completion_notice(applicant, data)
    review_completion_notice(ctx.users["supervisor"], notice, "accept", None)
