"""Completion notices (R-F1): load, check, change, flush (never commit).

The functions follow the record convention the sync engine adapts (create_/update_/get_/visible_/dump_),
so a notice written offline on the applicant's phone arrives exactly as one posted online.
"""
from __future__ import annotations

from typing import Any, Iterable

from sqlalchemy import Select, select

from .. import clock
from .. import audit
from ..auth.permissions import current_device_id
from ..errors import Conflict, NotFound, ValidationFailed
from ..extensions import db
from ..paging import chunks, page_query
from ..permits.access import permit_visible
from ..photos.models import Photo
from ..records import check_version, existing_for_create
from . import rules
from .common import (apply_review, as_utc, closeout_permit, require_editable, require_filer, require_supervisor,
                     review_view)
from .models import CompletionNotice
from .schemas import CompletionNoticeSchema

EDITABLE = ("submitted", "returned")


def visible_completion_notices(user) -> Select:
    return select(CompletionNotice).where(permit_visible(CompletionNotice.permit_id, user))


def get_completion_notice(user, record_id: str) -> CompletionNotice:
    notice = db.session.scalar(visible_completion_notices(user).where(CompletionNotice.id == str(record_id)))
    if notice is None:
        raise NotFound("No such completion notice.")
    return notice


def _photo_ids(values) -> list[str]:
    seen: list[str] = []
    for value in values or ():
        if str(value) not in seen:
            seen.append(str(value))
    return seen


def _uploaded_photos(notices: list[CompletionNotice]) -> set[tuple[str, str]]:
    """(photo id, permit id) of the referenced photos that have arrived, for all `notices` in one query.
    A photo counts only for its own permit: one of any other permit stays pending, exactly like an id
    nobody has uploaded."""
    ids = sorted({str(pid) for notice in notices for pid in notice.photo_ids or []})
    arrived: set[tuple[str, str]] = set()
    for chunk in chunks(ids):
        query = select(Photo.id, Photo.permit_id).where(Photo.id.in_(chunk))
        arrived.update((photo_id, permit_id) for photo_id, permit_id in db.session.execute(query))
    return arrived


def _check_photos(user, permit_id: str, photo_ids: list[str]) -> None:
    """A referenced photo may still be on its way (pending). One the caller can see on another permit
    is a mistake worth saying; one on a permit they cannot see answers like an unknown id, so the
    check reveals nothing about other people's records."""
    if not photo_ids:
        return
    foreign = list(db.session.scalars(select(Photo.id).where(
        Photo.id.in_(photo_ids), Photo.permit_id != permit_id, permit_visible(Photo.permit_id, user))))
    if foreign:
        raise ValidationFailed("Some photos belong to another permit.", errors={"photo_ids": sorted(foreign)})


def _check_content(notice_like: dict[str, Any]) -> None:
    problems = rules.notice_problems(notice_like.get("statement"), notice_like.get("photo_ids") or [])
    if problems:
        raise ValidationFailed("The completion notice is incomplete (R-F1).", errors=problems)


def create_completion_notice(user, data: dict[str, Any]) -> tuple[CompletionNotice, bool]:
    permit = closeout_permit(user, data["permit_id"], "completion_notice")
    photo_ids = _photo_ids(data.get("photo_ids"))
    statement = (data.get("statement") or "").strip()

    def same(existing: CompletionNotice) -> bool:
        return (existing.permit_id == permit.id and existing.statement == statement
                and existing.photo_ids == photo_ids and existing.completed_on == data.get("completed_on"))

    existing = existing_for_create(CompletionNotice, data.get("id") and str(data["id"]), same)
    if existing is not None:
        return existing, False
    other = db.session.scalar(select(CompletionNotice.id).where(CompletionNotice.permit_id == permit.id))
    if other is not None:
        raise Conflict("This permit already has a completion notice; edit that one.", error="notice_exists",
                       errors={"existing_id": other})
    _check_content({"statement": statement, "photo_ids": photo_ids})
    _check_photos(user, permit.id, photo_ids)
    notice = CompletionNotice(
        id=str(data["id"]) if data.get("id") else None, permit_id=permit.id, statement=statement,
        photo_ids=photo_ids, completed_on=data.get("completed_on"), status="submitted", submitted_at=clock.now(),
        created_by=user.id, device_id=current_device_id(), device_created_at=as_utc(data.get("device_created_at")))
    db.session.add(notice)
    db.session.flush()
    audit.record("completion_notice.create", "completion_notice", notice.id,
                 {"photo_ids": photo_ids, "completed_on": notice.completed_on}, actor=user, permit_id=permit.id)
    return notice, True


def update_completion_notice(user, record: CompletionNotice, data: dict[str, Any],
                             expected_version: int | None) -> CompletionNotice:
    """Edit a submitted or returned notice; editing a returned one submits it again."""
    require_filer(user, record.permit_id)
    require_editable(record, "completion_notice", EDITABLE)
    check_version(record, expected_version, dump_completion_notice)
    before = _content(record)
    changes = {k: data[k] for k in ("statement", "completed_on") if k in data}
    if "statement" in changes:
        changes["statement"] = (changes["statement"] or "").strip()
    if "photo_ids" in data:
        changes["photo_ids"] = _photo_ids(data["photo_ids"])
    after = {**before, **changes}
    _check_content(after)
    _check_photos(user, record.permit_id, after["photo_ids"])
    for key, value in changes.items():
        setattr(record, key, value)
    if record.status == "returned":
        record.status, record.submitted_at = "submitted", clock.now()
    record.bump_version()
    db.session.flush()
    audit.record("completion_notice.update", "completion_notice", record.id, audit.diff(before, _content(record)),
                 actor=user, permit_id=record.permit_id)
    return record


def review_completion_notice(user, record: CompletionNotice, decision: str, reasons: str | None) -> CompletionNotice:
    """R-F3 on R-F1: accepted only with photographic evidence that has arrived; returned with reasons."""
    require_supervisor(user)
    if decision == "accept" and record.status == "submitted":
        problem = rules.acceptance_problem(p["status"] for p in notice_view(record)["photos"])
        if problem:
            raise Conflict(problem[1], error=problem[0], errors=problem[2])
    apply_review(user, record, "completion_notice", decision, reasons)
    db.session.flush()
    return record


def _content(record: CompletionNotice) -> dict[str, Any]:
    return {"statement": record.statement, "photo_ids": list(record.photo_ids or []),
            "completed_on": record.completed_on}


def list_completion_notices(user, args: dict[str, Any]) -> tuple[list[dict[str, Any]], int]:
    query = visible_completion_notices(user)
    for key in ("permit_id", "status"):
        if args.get(key):
            query = query.where(getattr(CompletionNotice, key) == str(args[key]))
    notices, total = page_query(query.order_by(CompletionNotice.created_at, CompletionNotice.id), args)
    return notice_views(notices), total


def notice_views(records: Iterable[CompletionNotice]) -> list[dict[str, Any]]:
    """The views of `records`, with whether each referenced photo has arrived (loaded for all of them
    at once)."""
    records = list(records)
    uploaded = _uploaded_photos(records)
    return [{
        "id": record.id, "permit_id": record.permit_id, "status": record.status, "statement": record.statement,
        "photo_ids": list(record.photo_ids or []),
        "photos": [{"id": pid, "status": "uploaded" if (pid, record.permit_id) in uploaded else "pending"}
                   for pid in record.photo_ids or []],
        "completed_on": record.completed_on, "submitted_at": record.submitted_at, "review": review_view(record),
        "version": record.version, "created_at": record.created_at, "updated_at": record.updated_at,
        "created_by": record.created_by, "device_id": record.device_id, "device_created_at": record.device_created_at,
    } for record in records]


def notice_view(record: CompletionNotice) -> dict[str, Any]:
    return notice_views([record])[0]


_notice_schema = CompletionNoticeSchema()


def dump_completion_notice(record: CompletionNotice) -> dict[str, Any]:
    return _notice_schema.dump(notice_view(record))
