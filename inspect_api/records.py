"""Helpers every record kind shares: client-made ids, idempotent create, optimistic concurrency.

Conventions (API.md): a device may send its own UUID `id`; POSTing the same id with the same data
again answers the existing record (200), with other data 409 `conflict`. Edits carry the version
they were made against (`If-Match: <version>` or `"version"` in the body); a stale one is 409
`version_conflict` with the current record in `errors.current`.
"""
from __future__ import annotations

import uuid
from contextlib import contextmanager
from typing import Any, Callable, Iterable, Iterator

from flask import has_request_context, request
from sqlalchemy import event, select
from sqlalchemy.orm import Session

from .errors import Conflict, PreconditionRequired, ValidationFailed, VersionConflict
from .extensions import db


def valid_uuid(value: Any, field: str = "id") -> str:
    try:
        return str(uuid.UUID(str(value)))
    except (ValueError, TypeError, AttributeError):
        raise ValidationFailed(errors={field: ["Must be a UUID."]}) from None


def expected_version(body: dict[str, Any] | None = None, *, required: bool = True) -> int | None:
    """The version the client edited: the If-Match header (`3` or `"3"`) or `version` in the body."""
    raw = request.headers.get("If-Match") if has_request_context() else None
    if raw:
        raw = raw.strip()
        if raw == "*":  # RFC 9110 13.1.1: any current version will do; the record exists, so go ahead
            return None
        if raw.startswith("W/"):
            raw = raw[2:]
        raw = raw.strip('"')
        try:
            return int(raw)
        except ValueError:
            raise ValidationFailed("If-Match must be the record's integer version.",
                                   errors={"If-Match": ["Not an integer version."]}) from None
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


# --- read-only fields sent back (API.md "Sync": pull, edit, push round-trips) ----------------------

def editable_keys(schema: Any) -> set[str]:
    """The keys a create or update schema takes: what a client may write."""
    return {key for name, f in schema.fields.items() if not f.dump_only for key in (name, f.data_key or name)}


def stored_form(dump: Callable[[Any], dict], record: Any) -> dict[str, Any]:
    """The record as GET and pull answer it, as plain JSON values."""
    import json
    from .sync.snapshots import to_json
    return json.loads(to_json(dump(record)))


def _without(value: Any, inner: list[str]) -> Any:
    """`value` (a dict or a list of dicts) without the keys in `inner`."""
    if isinstance(value, list):
        return [_without(item, inner) for item in value]
    if isinstance(value, dict):
        return {k: v for k, v in value.items() if k not in inner}
    return value


def settle_read_only(data: dict[str, Any], stored: dict[str, Any], schema: Any, *,
                     clock_fields: tuple[str, ...] = (),
                     dropped_if_absent: frozenset[str] | set[str] = frozenset(),
                     drop_unchanged: bool = False) -> dict[str, Any]:
    """`data` without the read-only fields a client sent back unchanged, so a record pushed or PATCHed
    in exactly the shape GET or pull gave it is an edit of its editable fields.

    The read-only fields of a record are those of its answer (`stored`, the dump) that `schema` does not
    take; nothing is listed by hand. One equal to the stored value is ignored; one that differs is 422
    `read_only` naming it. Values computed from the Town's clock (`clock_fields`, `field` or
    `list_field.item_field`) are left out of the comparison: a device's copy may hold them from an
    earlier day. `dropped_if_absent` keys are dropped when the answer does not show them. Any other key
    is an unknown field (422 validation_error). With `drop_unchanged` (data as sent, not yet loaded),
    an editable field equal to the stored value is no edit and is left out too, so a value the answer
    shows in a form the edit would refuse (a null the update does not take) round-trips."""
    from .sync.rules import normalise
    editable = editable_keys(schema)
    top = {path for path in clock_fields if "." not in path}
    nested: dict[str, list[str]] = {}
    for path in clock_fields:
        if "." in path:
            outer, inner = path.split(".", 1)
            nested.setdefault(outer, []).append(inner)
    kept: dict[str, Any] = {}
    differ: dict[str, list[str]] = {}
    unknown: dict[str, list[str]] = {}
    for key, value in data.items():
        if key in editable:
            if not (drop_unchanged and key in stored and normalise(value) == normalise(stored[key])):
                kept[key] = value
        elif key in top:
            continue
        elif key in stored:
            sent, held = value, stored[key]
            if key in nested:
                sent, held = _without(sent, nested[key]), _without(held, nested[key])
            if normalise(sent) != normalise(held):
                differ[key] = ["Read-only: the server sets this field; send the stored value or leave it out."]
        elif key not in dropped_if_absent:
            unknown[key] = ["Unknown field."]
    if differ:
        raise ValidationFailed(f"Read-only fields differ from the stored record: {', '.join(sorted(differ))}.",
                               error="read_only", errors={**differ, **unknown})
    if unknown:
        raise ValidationFailed(errors=unknown)
    return kept


def patch_as_sent_back(schema: Any, data: Any) -> Any:
    """REST PATCH of a sync entity (EditSchema's pre_load): the body as its update schema should load
    it when the client sent back the record as GET gave it. The record is the one the URL names, read
    as the caller may see it (404 otherwise); its read-only fields sent back unchanged are ignored,
    others refused, and editable fields equal to the stored value are no edit (settle_read_only).
    `version` stays: it is the version edited. Anything else (a create, a sync push, which settles
    the data itself) loads as sent."""
    if not isinstance(data, dict) or not has_request_context() or request.method != "PATCH":
        return data
    from flask_jwt_extended import current_user
    from .sync import registry
    adapter = next((a for a in registry.adapters().values()
                    if a.update_schema is not None and type(a.update_schema) is type(schema)), None)
    ids = list((request.view_args or {}).values())
    if adapter is None or len(ids) != 1:
        return data
    record = adapter.get(current_user, str(ids[0]))
    version = data.get("version")
    kept = settle_read_only(data, stored_form(adapter.dump, record), schema, clock_fields=adapter.clock_fields,
                            drop_unchanged=True)
    if version is not None:
        kept["version"] = version
    return kept


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
    for start in range(0, len(ids), chunk):
        found.update({str(r.id): r for r in db.session.scalars(select(model).where(model.id.in_(ids[start:start + chunk])))})
    absent: set = db.session.info.setdefault(_ABSENT, set())
    mine = {(model, i) for i in ids if i not in found} - absent
    absent |= mine
    try:
        yield found
    finally:
        absent -= mine


def get_existing(model: type, record_id: str) -> Any | None:
    """session.get, without a query for an id known_records found absent and nothing inserted since."""
    absent = db.session.info.get(_ABSENT)
    if absent and (model, record_id) in absent:
        return None
    return db.session.get(model, record_id)


@event.listens_for(Session, "after_flush")
def _inserted(session: Session, _flush_context) -> None:
    absent = session.info.get(_ABSENT)
    if absent:
        for obj in session.new:  # read once: session.new builds a new set per access
            absent.discard((type(obj), str(getattr(obj, "id", None))))
