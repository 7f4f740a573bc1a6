"""Pull (API.md "Sync"): the changes a caller may see since its cursor, in commit order.

The feed is `sync_changes` (inspect_api.changes): one row per record, renumbered at every commit
that touches the record; a page reads only numbers up to current_sequence() (every number below it
is final), so paging by `seq > cursor` never skips a change, and a page holds each record once, in
its newest state. Data is the entity's own dump: the one
stored at that commit (sync_snapshots), else dumped live, records loaded one query per entity per
page (payload.py).

Who gets what (pull_scope): supervisors everything; inspectors the permit list, reference data,
their own assignments, and every record of the permits assigned to them; applicants their own
permits and those permits' records (each domain's visible_<plural> has the last word); admins no
record content.

Assignments change an inspector's scope, so an assignment row in the feed is expanded on the
inspector's page: when the inspector is (still, or again) assigned to that permit, every current
record of the permit follows as an upsert; when not, every record of the permit that the feed has
ever held (current ones and tombstones) follows as a delete, so the device drops whatever of that
site it holds. A device told to delete a record it never had ignores it. A long expansion is cut
to the page size and resumed by the next cursor.
"""
from __future__ import annotations

import sqlalchemy as sa
from flask import current_app
from sqlalchemy import select

from ..changes import SyncChange, SyncCounter, by_watermark, current_sequence
from ..errors import ApiError, Gone
from ..extensions import db
from ..permits.access import assigned_permit_ids, visible_permit_ids
from ..permits.models import Assignment
from . import payload, registry, rules

DEFAULT_LIMIT = 500
C = SyncChange
_ROW = (C.entity, C.record_id, C.seq, C.op, C.version, C.permit_id)


def _key() -> bytes:
    return current_app.config["SECRET_KEY"].encode("utf-8")


def pull_scope(user) -> sa.ColumnElement[bool]:
    """Which rows of the change feed `user` may receive, as a condition on sync_changes."""
    names = registry.adapters()

    def of(*scopes: str) -> list[str]:
        return [e for e, a in names.items() if a.scope in scopes]

    if user.role == "supervisor":
        # No entity filter: an IN list over every entity would tempt the planner into the primary
        # key index instead of the range on seq; rows of an entity with no adapter are skipped later.
        return sa.true()
    if user.role == "inspector":
        own = select(Assignment.id).where(Assignment.inspector_id == user.id)
        return sa.or_(C.entity.in_(of(registry.PERMIT, registry.GLOBAL)),
                      sa.and_(C.entity.in_(of(registry.FIELD)), C.permit_id.in_(assigned_permit_ids(user))),
                      sa.and_(C.entity.in_(of(registry.ASSIGNMENT)), C.record_id.in_(own)))
    if user.role == "applicant":
        mine = visible_permit_ids(user)
        return sa.or_(sa.and_(C.entity.in_(of(registry.PERMIT)), C.record_id.in_(mine)),
                      sa.and_(C.entity.in_(of(registry.FIELD)), C.permit_id.in_(mine)))
    return sa.false()


def _start(user, token: str | None, top: int) -> rules.Cursor:
    if not token:
        return rules.Cursor(seq=0, user_id=user.id, role=user.role, fresh_through=top)
    try:
        cursor = rules.decode_cursor(token, _key())
    except rules.CursorInvalid:
        raise ApiError("This cursor was not made by this server.", error="invalid_cursor", code=400) from None
    except rules.CursorOutdated:
        raise Gone("This cursor is from an earlier version of the server, which sent records differently; "
                   "pull again without a cursor.", error="cursor_expired") from None
    if cursor.user_id != user.id or cursor.role != user.role:
        raise Gone("This cursor was made for another account or role; pull again without a cursor.",
                   error="cursor_expired")
    if cursor.seq > top:
        raise Gone("This cursor is ahead of the server (was the database restored?); pull again without a cursor.",
                   error="cursor_expired")
    return cursor


class _Page:
    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.entries: dict[tuple[str, str], tuple] = {}  # (entity, id, op, version, seq), in page order

    def room(self) -> int:
        return self.limit - len(self.entries)

    def add(self, entity: str, record_id: str, op: str, version: int, seq: int) -> None:
        self.entries.setdefault((entity, record_id), (entity, record_id, op, version, seq))


def _expand(page: _Page, permit_id: str, assigned: bool, after: int | None) -> tuple[bool, int | None]:
    """Add the permit's records (upserts if assigned, else deletes) after sequence `after`."""
    room = page.room()
    query = select(C.entity, C.record_id, C.seq, C.version).where(
        C.permit_id == permit_id, C.entity.in_(registry.entities(registry.FIELD)))
    if assigned:
        query = query.where(C.op == "upsert")
    if after is not None:
        query = query.where(C.seq > after)
    rows = db.session.execute(query.order_by(C.seq).limit(room + 1)).all()
    for row in rows[:room]:
        page.add(row.entity, row.record_id, "upsert" if assigned else "delete", row.version, row.seq)
        after = row.seq
    return len(rows) <= room, after


def _collect(user, cursor: rules.Cursor, limit: int, top: int) -> tuple[_Page, rules.Cursor, bool]:
    query = select(*_ROW).where(C.seq > cursor.seq, pull_scope(user))
    if by_watermark(db.session()):
        # Nothing above the watermark: a committed number above it may still have an unfinished
        # transaction's number below it, and sending it would move the cursor past that one.
        query = query.where(C.seq <= top)
    if cursor.fresh_through is not None:
        query = query.where(sa.or_(C.op != "delete", C.seq > cursor.fresh_through))
    rows = db.session.execute(query.order_by(C.seq).limit(limit + 1)).all()
    page, last, assigned, known = _Page(limit), cursor.seq, None, registry.adapters()
    for row in rows:
        if page.room() <= 0:
            return page, cursor.advanced(last), True
        if row.entity not in known:  # a domain this server does not run
            last = row.seq
            continue
        expands = row.entity == "assignment" and user.role == "inspector" and not (
            cursor.fresh_through is not None and row.seq <= cursor.fresh_through)
        if expands:
            if assigned is None:
                assigned = set(db.session.scalars(assigned_permit_ids(user)))
            resuming = cursor.expand_at == row.seq
            if not resuming:
                page.add(row.entity, row.record_id, row.op, row.version, row.seq)
            done, after = _expand(page, row.permit_id, row.permit_id in assigned,
                                  cursor.expand_after if resuming else None)
            if not done:
                return page, cursor.advanced(row.seq - 1, expand=(row.seq, after)), True
        else:
            page.add(row.entity, row.record_id, row.op, row.version, row.seq)
        last = row.seq
    if len(rows) > limit:
        return page, cursor.advanced(last), True
    # Everything up to `top` was committed before the query above ran, so nothing below it is left.
    return page, cursor.advanced(max(last, top)), False


def pull_json(user, token: str | None, limit: int | None) -> str:
    """One page of the caller's changes as the JSON text of API.md's pull answer."""
    config = current_app.config
    limit = rules.clamp_limit(limit, DEFAULT_LIMIT, config["SYNC_PULL_MAX_LIMIT"])
    purged = db.session.scalar(select(SyncCounter.purged_through).where(SyncCounter.id == 1))
    top = current_sequence()  # read before the feed: every number up to it is final (changes.py)
    cursor = _start(user, token, top)
    if rules.cursor_expired(cursor, purged):
        raise Gone("Deletions this device has not seen were purged; pull again without a cursor.",
                   error="cursor_expired")
    page, after, has_more = _collect(user, cursor, limit, top)
    entries = list(page.entries.values())
    parts = payload.render_parts(user, entries, cursor.fresh_through)
    keep = payload.fitting(parts, config["SYNC_PULL_MAX_BYTES"])
    if keep < len(entries):
        # Over SYNC_PULL_MAX_BYTES: the page ends early. Collecting again with the smaller limit
        # yields exactly the first `keep` entries (collection is deterministic and fills the page in
        # order) together with the cursor that resumes right after them, so nothing is skipped.
        page, after, has_more = _collect(user, cursor, keep, top)
        kept = list(page.entries.values())
        parts = parts[:keep] if [e[:2] for e in kept] == [e[:2] for e in entries[:keep]] else \
            payload.render_parts(user, kept, cursor.fresh_through)
    return payload.assemble(parts, rules.encode_cursor(after, _key()), has_more)
