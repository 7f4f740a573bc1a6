"""Demo data: the completion notice (R-F1) of an administrative-review project whose work is complete,
accepted by the supervisor, ready for its certificate of completion (R-F3).

One of the notice's photos has arrived (it is what lets the supervisor accept the notice, R-F1); the
other two are referenced but never uploaded, so the demo shows them as pending, as a notice filed from
a phone whose photos are still on their way does.
"""
from __future__ import annotations

import io

from PIL import Image, ImageDraw

from ..auth.models import User
from ..db import new_id
from ..demo_steps import DemoContext, demo_step
from ..extensions import db
from ..photos.services import ingest_received
from ..uploads import Pace, receive_to_tempfile
from . import rules
from .schemas import CompletionNoticeCreateSchema
from .services import create_completion_notice, review_completion_notice

STATEMENT = ("The barn, riding ring and gravel drive are complete as shown on the approved ESC plan. All disturbed "
             "areas are loamed and seeded with at least 70% cover; the silt fence has been removed and the "
             "infiltration trench along the ring's east side is clean and working.")


def _photo_of_the_work() -> bytes:
    """A seeded lawn with the trench's stone edge across it, as a JPEG."""
    image = Image.new("RGB", (640, 480), (96, 150, 72))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 300, 640, 340), fill=(150, 145, 135))
    draw.rectangle((0, 0, 640, 120), fill=(170, 200, 230))
    out = io.BytesIO()
    image.save(out, "JPEG", quality=80)
    return out.getvalue()


def _upload_photo(applicant: User, permit_id: str, notice_id: str, photo_id: str) -> None:
    data = _photo_of_the_work()
    with receive_to_tempfile(io.BytesIO(data), len(data), pace=Pace()) as received:
        ingest_received(applicant, photo_id, {"permit_id": permit_id, "parent_type": "completion_notice",
                                              "parent_id": notice_id}, received, received.sha256)


@demo_step
def seed_completion_notices(ctx: DemoContext) -> None:
    permit = next((p for p in ctx.permits.values() if p.status == "work_complete"
                   and rules.closeout_kind(p.review_level) == "completion_notice"), None)
    if permit is None:
        return  # No administrative-review permit with its work complete: nothing to give notice of.
    applicant = db.session.get(User, permit.applicant_id)
    completed_on = permit.work_completed_on or ctx.today
    notice_id, photo_ids = new_id(), [new_id(), new_id(), new_id()]
    _upload_photo(applicant, permit.id, notice_id, photo_ids[0])
    data = CompletionNoticeCreateSchema().load({
        "id": notice_id, "permit_id": permit.id, "statement": STATEMENT, "photo_ids": photo_ids,
        "completed_on": completed_on.isoformat()})
    notice, _ = create_completion_notice(applicant, data)
    review_completion_notice(ctx.users["supervisor"], notice, "accept", None)
