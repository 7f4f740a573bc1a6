"""Helpers every record kind shares: client-made ids, idempotent create, optimistic concurrency.

Conventions (API.md): a device may send its own UUID `id`; POSTing the same id with the same data
again answers the existing record (200), with other data 409 `conflict`. Edits carry the version
they were made against (`If-Match: <version>` or `"version"` in the body); a stale one is 409
`version_conflict` with the current record in `errors.current`.
"""
from __future__ import annotations

import re
import uuid
from contextlib import contextmanager
from typing import Any, Callable, Iterable, Iterator

from flask import has_request_context, request
from sqlalchemy import event, inspect, select
from sqlalchemy.orm import Session
from werkzeug.routing import BaseConverter

from .errors import Conflict, PreconditionRequired, ValidationFailed, VersionConflict
from .extensions import db
from .paging import chunks
from .schemas import ErrorSchema


class RecordIdConverter(BaseConverter):
    """`<record:order_id>`: a record's id in a path, a UUID as records are given (db.new_id or a
    client's), passed to the view as the text sent. A route beside the record's that werkzeug would
    also match as an id, a name (/inspections/due) or the id with a suffix (/orders/<id>.pdf), is so
    served by its own route alone, and its Allow and 405 name its own methods, not the record's."""

    regex = r"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}"
    PATTERN = f"^{regex}$"


def valid_uuid(value: Any, field: str = "id") -> str:
    try:
        return str(uuid.UUID(str(value)))
    except (ValueError, TypeError, AttributeError):
        raise ValidationFailed(errors={field: ["Must be a UUID."]}) from None


# `3`, `"3"`, the record's weak ETag `W/"3"`, or `*` (RFC 9110 13.1.1: whatever version is current)
IF_MATCH_PATTERN = r'^(?:\*|(?:W/)?"?[0-9]{1,18}"?)$'
_IF_MATCH = re.compile(IF_MATCH_PATTERN)


def if_match_parameter(*, body: bool = True) -> dict[str, Any]:
    """The If-Match header as the document publishes it, for an operation that reads expected_version()."""
    either = " Send it or `version` in the body." if body else ""
    return {"in": "header", "name": "If-Match", "required": False,
            "schema": {"type": "string", "pattern": IF_MATCH_PATTERN, "maxLength": 24},
            "description": "The version you edited: `3`, `\"3\"` or the record's ETag `W/\"3\"`; `*` for "
                           "whatever version is current." + either}


def versioned(blp, *, required: bool = True, body: bool = True, conflict: bool = True):
    """Publish what expected_version() enforces on an operation: the If-Match header, the 409 of a stale
    version, and when the version is required, the 428 answered without it (and without `version` in
    the body)."""
    def decorate(func):
        func = blp.doc(parameters=[if_match_parameter(body=body)])(func)
        if conflict:  # False where the operation describes its 409s itself (version_conflict among them)
            func = blp.alt_response(409, schema=ErrorSchema, description="version_conflict: the record is at "
                                    "another version than the one sent; errors.current holds it")(func)
        if required:
            what = "If-Match or `version` in the body" if body else "If-Match"
            func = blp.alt_response(428, schema=ErrorSchema,
                                    description=f"precondition_required: send {what}, the version you edited")(func)
        return func
    return decorate


def expected_version(body: dict[str, Any] | None = None, *, required: bool = True) -> int | None:
    """The version the client edited: the If-Match header (`3` or `"3"`) or `version` in the body."""
    raw = request.headers.get("If-Match") if has_request_context() else None
    if raw:
        raw = raw.strip()
        if not _IF_MATCH.fullmatch(raw):
            raise ValidationFailed("If-Match must be the record's integer version.",
                                   errors={"If-Match": ["Not an integer version."]})
        if raw == "*":  # RFC 9110 13.1.1: any current version will do; the record exists, so go ahead
            return None
        return int(raw.removeprefix("W/").strip('"'))
    if body and body.get("version") is not None:
        return int(body["version"])
    if required:
        raise PreconditionRequired()
    return None


def check_version(record: Any, expected: int | None, dump: Callable[[Any], dict]) -> None:
    if expected is not None and expected != record.version:
        raise VersionConflict(dump(record), f"The record is at version {record.version}, not {expected}; "
                                            "reload it and apply your change again.")


def existing_for_create(model: type, record_id: str | None, same: Callable[[Any], bool]) -> Any | None:
    """Idempotent create: the existing record when this id was created before with the same data;
    409 `conflict` when the id is taken by other data; None when the id is new."""
    if not record_id:
        return None
    existing = get_existing(model, str(record_id))
    if existing is None:
        return None
    if same(existing):
        return existing
    raise Conflict("A different record already has this id.", error="conflict")


def fields_equal(record: Any, data: dict[str, Any], keys: list[str] | tuple[str, ...]) -> bool:
    return all(getattr(record, key) == data.get(key) for key in keys if key in data)


def bump(record: Any) -> None:
    record.version = (record.version or 0) + 1


# --- a batch that looked its ids up once (sync push) -------------------------------------------------
# A push of a hundred creates would otherwise ask the database twice per record whether its id is
# taken (the push's own id check and existing_for_create), and session.get cannot remember a miss.
# known_records loads every id of the batch in one query per model; the hits stay in the identity map
# (held by the returned dict), the misses are remembered here until a flush inserts that id (or the
# batch ends), after which the database is asked again as before.
_ABSENT = "records_known_absent"


@contextmanager
def known_records(model: type, ids: Iterable[str], chunk: int = 1000) -> Iterator[dict[str, Any]]:
    ids = sorted({str(i) for i in ids})
    found: dict[str, Any] = {}
    for part in chunks(ids, chunk):
        found.update({str(r.id): r for r in db.session.scalars(select(model).where(model.id.in_(part)))})
    absent: set = db.session.info.setdefault(_ABSENT, set())
    mine = {(model, i) for i in ids if i not in found} - absent
    absent |= mine
    try:
        yield found
    finally:
        absent -= mine


def get_existing(model: type, record_id: str) -> Any | None:
    """session.get, without a query for an id known_records found absent and nothing inserted or
    added (add_new, its INSERT gathered) since."""
    info = db.session.info
    absent = info.get(_ABSENT)
    if absent and (model, record_id) in absent and (model, record_id) not in info.get(_ADDED, ()):
        return None
    return db.session.get(model, record_id)  # an added one: the autoflush of its query inserts it


# --- inserts a batch gathers (sync push) -----------------------------------------------------------
# A create flushes at once, so a refused write (a taken id, a missing parent) fails the request that
# made it. A push batch tried in one savepoint finds such a failure at the try's last flush as well
# (sync/services.py `_Batch._try` then applies one mutation per savepoint), so within
# `inserts_deferred` a create made through add_new leaves its INSERT to the next flush: a run of
# creates of one kind goes to the database as one multi-row INSERT instead of a statement each.
# The unit of work orders the INSERTs of different kinds by their relationships, not by their
# foreign keys, so add_new flushes what is pending of any other kind first: one flush never holds
# two kinds a foreign key may join. A create that writes more after its record (another kind
# through a plain session.add) keeps db.session.flush().
_DEFERRED = "records_inserts_deferred"
_ADDED = "records_added_unflushed"  # (model, id) added by add_new since the last flush or rollback


@contextmanager
def inserts_deferred() -> Iterator[None]:
    """Within: add_new leaves INSERTs to the next flush (the caller's, or the autoflush of a query)."""
    before = db.session.info.get(_DEFERRED, False)
    db.session.info[_DEFERRED] = True
    try:
        yield
    finally:
        db.session.info[_DEFERRED] = before


def add_new(record: Any) -> None:
    """Add a new record with what its INSERT would give it set now (each column's own default: id,
    version, times), so its id and version can be read and audited before the INSERT. Flushed at
    once, as a plain create would, unless inside `inserts_deferred`."""
    state = inspect(record)
    for attr in state.mapper.column_attrs:
        column = attr.columns[0]
        default = column.default
        if default is None or not (default.is_scalar or default.is_callable):
            continue
        # The unit of work gives an unset attribute, or one set to None (where the type keeps no
        # JSON null), its column's default; the same here.
        if attr.key in state.dict and (state.dict[attr.key] is not None or column.type.should_evaluate_none):
            continue
        setattr(record, attr.key, default.arg(None) if default.is_callable else default.arg)
    session = db.session
    if not session.info.get(_DEFERRED):
        session.add(record)
        session.flush()
        return
    if any(type(pending) is not type(record) for pending in session.new):
        session.flush()
    session.add(record)
    session.info.setdefault(_ADDED, set()).add((type(record), str(record.id)))


@event.listens_for(Session, "after_soft_rollback")
def _added_undone(session: Session, _previous_transaction) -> None:
    session.info.pop(_ADDED, None)  # a rollback expunges every pending record: absent again


@event.listens_for(Session, "after_flush")
def _inserted(session: Session, _flush_context) -> None:
    session.info.pop(_ADDED, None)
    absent = session.info.get(_ABSENT)
    if absent:
        for obj in session.new:  # read once: session.new builds a new set per access
            absent.discard((type(obj), str(getattr(obj, "id", None))))
