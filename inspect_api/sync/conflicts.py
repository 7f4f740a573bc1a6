"""Conflicts surfaced, never settled silently: each is kept with both versions and the differing
fields until its author or a supervisor resolves it (keep the server's, take the device's, merge).

A resolution that changes the record goes through the entity's own update service with the server
version the resolver decided on, so a record that moved again meanwhile answers 409
version_conflict instead of being overwritten.
"""
from __future__ import annotations

from typing import Any, Iterable

from marshmallow import ValidationError
from sqlalchemy import Select, inspect as sa_inspect, select
from sqlalchemy.orm.util import identity_key

from .. import clock
from .. import audit
from ..auth.models import User
from ..errors import ApiError, Conflict, Forbidden, NotFound, ValidationFailed
from ..extensions import db
from ..paging import chunks, page_query
from ..records import check_version, expected_version
from .sent_back import editable_keys, settle_read_only, stored_form
from . import registry, rights, rules
from ..auth.models import Device
from .models import SyncConflict

FILTERS = ("status", "entity", "record_id", "permit_id")


def visible_conflicts(user) -> Select:
    """Supervisors see every conflict; inspectors and applicants the ones their own pushes raised."""
    query = select(SyncConflict)
    if user.role == "supervisor":
        return query
    return query.where(SyncConflict.user_id == user.id)


def list_conflicts(user, filters: dict[str, Any]) -> tuple[list[dict[str, Any]], int]:
    query = visible_conflicts(user)
    for name in FILTERS:
        if filters.get(name):
            query = query.where(getattr(SyncConflict, name) == filters[name])
    found, total = page_query(query.order_by(SyncConflict.created_at.desc(), SyncConflict.id), filters)
    return conflict_views(found), total


def get_conflict(user, conflict_id: str) -> SyncConflict:
    conflict = db.session.scalar(visible_conflicts(user).where(SyncConflict.id == str(conflict_id)))
    if conflict is None:
        raise NotFound("No such conflict.")
    return conflict


def _names(model: type, ids: set[str]) -> dict[str, str | None]:
    """The names of the users or devices `ids`: those the session holds already (the caller, often)
    as they are, the rest in one query."""
    names: dict[str, str | None] = {}
    for record_id in ids:
        held = db.session.identity_map.get(identity_key(model, record_id))
        if held is not None and "name" not in sa_inspect(held).unloaded:
            names[record_id] = held.name
    missing = sorted(ids - names.keys())
    for chunk in chunks(missing):
        names.update(db.session.execute(select(model.id, model.name)
                                        .where(model.id.in_(chunk))).all())
    return names


def conflict_views(conflicts: Iterable[SyncConflict]) -> list[dict[str, Any]]:
    """The views of `conflicts`, with the names of their authors and devices loaded for all of them at
    once (one query each)."""
    conflicts = list(conflicts)
    authors = _names(User, {c.user_id for c in conflicts if c.user_id})
    devices = _names(Device, {c.device_id for c in conflicts if c.device_id})
    views = []
    for conflict in conflicts:
        view = {key: getattr(conflict, key) for key in (
            "id", "entity", "record_id", "permit_id", "op", "mutation_id", "device_id", "user_id", "fields", "status",
            "resolution", "resolved_by", "resolved_at", "resolved_version", "created_at")}
        view["device_version"] = {"base_version": conflict.base_version, "data": conflict.device_data}
        view["server_version"] = {"version": conflict.server_version, "data": conflict.server_record}
        view.update(_provenance(conflict, authors, devices))
        views.append(view)
    return views


def conflict_view(conflict: SyncConflict, record: dict[str, Any] | None = None) -> dict[str, Any]:
    view = conflict_views([conflict])[0]
    if record is not None:
        view["record"] = record
    return view


def _provenance(conflict: SyncConflict, authors: dict[str, str | None],
                devices: dict[str, str | None]) -> dict[str, Any]:
    """Who raised the conflict, from which device, and what differs (each field's server and device
    value), so whoever resolves it sees whose change they would take."""
    server = conflict.server_record or {}
    device_data = conflict.device_data or {}
    return {
        "raised_by": {"id": conflict.user_id, "name": authors.get(conflict.user_id) if conflict.user_id else None},
        "device": ({"id": conflict.device_id, "name": devices.get(conflict.device_id)}
                   if conflict.device_id else None),
        "differences": [{"field": name, "server": server.get(name), "device": device_data.get(name)}
                        for name in conflict.fields or []],
    }


def _check_author(adapter: registry.EntityAdapter, conflict: SyncConflict, record, changes: dict[str, Any]) -> None:
    """Taking the device's version applies the author's change: only if the author may still make it
    (sync/rights.py), whatever the resolver's own rights."""
    author = db.session.get(User, conflict.user_id)
    refused = rights.refusal(author, adapter, record, conflict.op, changes, locks_too=True)
    if refused is not None:
        name = author.name if author is not None else "its author"
        raise Forbidden(f"The device's version cannot be taken: {name} may not make this change "
                        f"({refused.message})", errors={"raised_by": [conflict.user_id], **refused.errors})


def _changes(adapter: registry.EntityAdapter, conflict: SyncConflict, record, body: dict[str, Any]) -> dict[str, Any]:
    if body["resolution"] == "take_device":
        # The device's change is what it may write: its older copy of read-only fields (a review
        # comment, the findings) is not part of it.
        editable = editable_keys(adapter.update_schema) if adapter.update_schema is not None else set()
        return {k: v for k, v in rules.update_payload(rules.take_device_changes(conflict.device_data, conflict.fields))
                .items() if k in editable}
    data = body.get("data")
    if not data:
        raise ValidationFailed("A merge needs the merged fields in `data`.", errors={"data": ["Required for merge."]})
    data = rules.update_payload(data)
    if adapter.update_schema is None:
        return data
    return settle_read_only(data, stored_form(adapter.dump, record), adapter.update_schema,
                            clock_fields=adapter.clock_fields, dropped_if_absent=rules.BOOKKEEPING)


def _apply(user, adapter: registry.EntityAdapter, conflict: SyncConflict, body: dict[str, Any], expected: int | None):
    record = adapter.get(user, conflict.record_id)
    check_version(record, expected, adapter.dump)
    if body["resolution"] == "take_device":
        _check_author(adapter, conflict, record, conflict.device_data if conflict.op == "delete"
                      else rules.take_device_changes(conflict.device_data, conflict.fields))
    if conflict.op == "delete" and body["resolution"] == "take_device":
        if adapter.delete is None:
            raise ApiError("This record cannot be deleted.", error="delete_not_allowed", code=405)
        adapter.delete(user, record, expected)
        return record
    changes = _changes(adapter, conflict, record, body)
    if not changes:
        return record
    if adapter.update is None or adapter.update_schema is None:
        raise ApiError("This record cannot be changed from a device.", error="not_pushable", code=405)
    try:
        data = adapter.update_schema.load(changes)
    except ValidationError as exc:
        raise ValidationFailed(errors=exc.messages if isinstance(exc.messages, dict) else {"data": exc.messages}) \
            from None
    return adapter.update(user, record, data, expected)


def resolve_conflict(user, conflict: SyncConflict, body: dict[str, Any]) -> dict[str, Any]:
    if conflict.status == "resolved":
        raise Conflict(f"This conflict was already resolved ({conflict.resolution}).", error="conflict_resolved")
    adapter = registry.get(conflict.entity)
    if adapter is None:
        raise ApiError("This kind of record is no longer synced.", error="not_pushable", code=405)
    expected = expected_version(body, required=False)
    if expected is None:
        expected = conflict.server_version
    if body["resolution"] == "keep_server":
        record = db.session.get(adapter.model, conflict.record_id)
    else:
        record = _apply(user, adapter, conflict, body, expected)
    conflict.status, conflict.resolution = "resolved", body["resolution"]
    conflict.resolved_by, conflict.resolved_at = user.id, clock.now()
    conflict.resolved_version = getattr(record, "version", None)
    db.session.flush()
    audit.record("sync.conflict.resolve", conflict.entity, conflict.record_id,
                 {"conflict_id": conflict.id, "resolution": conflict.resolution, "version": conflict.resolved_version},
                 actor=user, permit_id=conflict.permit_id)
    return conflict_view(conflict, adapter.dump(record) if record is not None else None)
