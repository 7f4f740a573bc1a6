"""Push (API.md "Sync"): every mutation stands alone, in its own SAVEPOINT, in the order sent.

A mutation's outcome is written to sync_mutations inside the same savepoint as its change, so the
two commit (or vanish) together: a resent mutation id is answered `duplicate` from that row and
never applied twice, even when the first answer was lost on the way back. The request commits once
at the end (database.register_request_transaction). The entity's own schema and services decide
everything about the record; this module only adapts and records.
"""
from __future__ import annotations

import json
import logging
import time
import uuid
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from flask import current_app, g
from marshmallow import ValidationError
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from ..errors import ApiError, Conflict, NotFound, PayloadTooLarge, ValidationFailed, VersionConflict
from ..extensions import db
from ..records import editable_keys, settle_read_only, stored_form
from . import registry, rights, rules
from .devices import touch_device
from .models import SyncConflict, SyncMutation
from .schemas import MutationSchema
from .snapshots import to_json

log = logging.getLogger(__name__)
_mutation_schema = MutationSchema()


@dataclass
class Outcome:
    status: str
    version: int | None = None
    error: str | None = None
    message: str | None = None
    errors: dict[str, Any] | None = None
    server_record: dict[str, Any] | None = None
    conflict_id: str | None = None
    recorded: bool = True


@dataclass
class Mutation:
    mutation_id: str
    entity: str
    record_id: str
    op: str
    base_version: int | None
    data: dict[str, Any] = field(default_factory=dict)


class _ConflictFound(Exception):
    """The record moved on since the device saw it (or its id holds other data): surface it."""

    def __init__(self, error: str, message: str) -> None:
        super().__init__(message)
        self.error, self.message = error, message


def push(user, body: dict[str, Any]) -> dict[str, Any]:
    mutations = body["mutations"]
    limit = current_app.config["SYNC_MAX_BATCH"]
    if len(mutations) > limit:
        raise PayloadTooLarge(f"At most {limit} mutations per push; send the rest in another batch.",
                              errors={"mutations": [f"{len(mutations)} sent, at most {limit} allowed."]})
    device = touch_device(user, body["device_id"], pushed=True, app_version=body.get("app_version"),
                          pending_count=body.get("pending_count"))
    g.device_id = device.id  # services and the audit log take the device from here
    seen = _recorded(mutations)
    results = []
    for raw in mutations:
        results.append(_one(user, device.id, raw, seen))
        _fault_pause()
    return {"results": results}


def _canonical(value: Any) -> str | None:
    try:
        return str(uuid.UUID(str(value)))
    except (ValueError, TypeError, AttributeError):
        return None


def _recorded(mutations: list) -> dict[str, SyncMutation]:
    """Outcomes already recorded for this batch's mutation ids, in one query."""
    ids = [mid for mid in (_canonical(m.get("mutation_id")) for m in mutations if isinstance(m, dict)) if mid]
    found: dict[str, SyncMutation] = {}
    for start in range(0, len(ids), registry.IN_CHUNK):
        chunk = ids[start:start + registry.IN_CHUNK]
        found.update({row.mutation_id: row for row in
                      db.session.scalars(select(SyncMutation).where(SyncMutation.mutation_id.in_(chunk)))})
    return found


def _one(user, device_id: str | None, raw: Any, seen: dict[str, SyncMutation]) -> dict[str, Any]:
    try:
        loaded = _mutation_schema.load(raw if isinstance(raw, dict) else {})
    except ValidationError as exc:
        mid = raw.get("mutation_id") if isinstance(raw, dict) else None
        return _result(str(mid) if mid is not None else None, None, Outcome(
            "rejected", error="validation_error", message="This mutation is not well formed.",
            errors=exc.messages, recorded=False))
    m = Mutation(str(loaded["mutation_id"]), loaded["entity"], str(loaded["id"]), loaded["op"],
                 loaded["base_version"], loaded["data"])
    sent_as = str(raw["mutation_id"])  # answered in the device's own spelling; stored canonical
    prior = seen.get(m.mutation_id)
    if prior is None:
        outcome = _apply_and_record(user, device_id, m)
        if not isinstance(outcome, SyncMutation):
            if outcome.recorded:
                seen[m.mutation_id] = db.session.get(SyncMutation, m.mutation_id)
            return _result(sent_as, m, outcome)
        prior = outcome  # a concurrent request recorded this mutation first
    return _answer_prior(user, sent_as, m, prior)


def _answer_prior(user, sent_as: str, m: Mutation, prior: SyncMutation) -> dict[str, Any]:
    if prior.user_id != user.id or prior.entity != m.entity or prior.record_id != m.record_id:
        return _result(sent_as, m, Outcome(
            "rejected", error="mutation_id_reused", recorded=False,
            message="This mutation id was already used for another change; make a new one."))
    result = _result(sent_as, m, Outcome(
        prior.status, version=prior.version, error=prior.error, message=prior.message, errors=prior.errors,
        server_record=prior.server_record, conflict_id=prior.conflict_id))
    result["original_status"] = prior.status
    result["status"] = "duplicate"
    return result


def _result(mutation_id: str | None, m: Mutation | None, outcome: Outcome) -> dict[str, Any]:
    result: dict[str, Any] = {"mutation_id": mutation_id, "status": outcome.status}
    if m is not None:
        result["entity"], result["id"] = m.entity, m.record_id
    for key in ("version", "server_record", "conflict_id", "error", "message", "errors"):
        value = getattr(outcome, key)
        if value is not None:
            result[key] = value
    return result


def _apply_and_record(user, device_id: str | None, m: Mutation) -> Outcome | SyncMutation:
    try:
        with db.session.begin_nested():
            outcome = _apply(user, m)
            _write_log(user, device_id, m, outcome)
        return outcome
    except _ConflictFound as found:
        # The savepoint is rolled back by now: whatever the service half-did is gone, and the
        # conflict (with the server's current record) or the rejection is recorded on its own.
        return _record_after_rollback(user, device_id, m, partial(_conflict, user, device_id, m, found))
    except (ApiError, ValidationError) as exc:
        return _record_after_rollback(user, device_id, m, partial(_rejection, exc))
    except IntegrityError:
        return _raced(m)
    except Exception:  # a defect in one mutation must not sink the batch; nothing of it is kept
        log.exception("sync push: %s %s %s failed", m.op, m.entity, m.record_id)
        return Outcome("rejected", error="internal_error", recorded=False,
                       message="The server failed on this change; nothing of it was kept. Send it again later.")


def _record_after_rollback(user, device_id, m: Mutation, make_outcome) -> Outcome | SyncMutation:
    try:
        with db.session.begin_nested():
            outcome = make_outcome()
            _write_log(user, device_id, m, outcome)
        return outcome
    except IntegrityError:
        return _raced(m)
    except Exception:  # e.g. the entity's dump failing on the conflicting record
        log.exception("sync push: recording the outcome of %s %s %s failed", m.op, m.entity, m.record_id)
        return Outcome("rejected", error="internal_error", recorded=False,
                       message="The server failed on this change; nothing of it was kept. Send it again later.")


def _raced(m: Mutation) -> Outcome | SyncMutation:
    """Another request made the same record or mutation at the same moment and committed first."""
    prior = db.session.get(SyncMutation, m.mutation_id)
    if prior is not None:
        return prior
    return Outcome("rejected", error="retry", recorded=False,
                   message="Another change to this record was being saved at the same moment; send this again.")


def _write_log(user, device_id: str | None, m: Mutation, outcome: Outcome) -> None:
    db.session.add(SyncMutation(
        mutation_id=m.mutation_id, device_id=device_id, user_id=user.id, entity=m.entity, record_id=m.record_id,
        op=m.op, status=outcome.status, version=outcome.version, error=outcome.error, message=outcome.message,
        errors=outcome.errors or None, server_record=outcome.server_record, conflict_id=outcome.conflict_id))
    db.session.flush()


def _rejection(exc: Exception) -> Outcome:
    if isinstance(exc, ValidationError):
        return Outcome("rejected", error="validation_error", message="Some fields are not valid.",
                       errors=exc.messages if isinstance(exc.messages, dict) else {"data": exc.messages})
    return Outcome("rejected", error=exc.error, message=exc.message, errors=exc.errors or None)


# --- applying one mutation through the entity's own services --------------------------------------

def _adapter(m: Mutation) -> registry.EntityAdapter:
    adapter = registry.get(m.entity)
    if adapter is None:
        raise ValidationFailed(f"Unknown entity {m.entity!r}.", errors={"entity": ["Unknown entity."]})
    if adapter.not_pushed:
        raise ApiError(adapter.not_pushed, error="not_pushable", code=405)
    return adapter


def _apply(user, m: Mutation) -> Outcome:
    adapter = _adapter(m)
    if m.op == "delete":
        return _delete(user, adapter, m)
    if m.base_version is None:
        return _create(user, adapter, m)
    return _update(user, adapter, m)


def _create(user, adapter: registry.EntityAdapter, m: Mutation) -> Outcome:
    if adapter.create is None or adapter.create_schema is None:
        raise ApiError(f"Devices cannot create a {m.entity.replace('_', ' ')}.", error="not_pushable", code=405)
    if rules.id_mismatch(m.record_id, m.data):
        raise ValidationFailed(errors={"data.id": ["Differs from the mutation's id."]})
    existing = db.session.get(adapter.model, m.record_id)
    if existing is not None:
        try:
            adapter.get(user, m.record_id)
        except NotFound:
            raise Conflict("A record you cannot see already has this id; give the new record another id.",
                           error="id_taken") from None
    payload = rules.create_payload(m.record_id, m.data)
    if existing is not None:
        # A device that lost its outbox (a reset) sends back what it pulled as creates: read-only
        # fields are compared like an edit's, and a record sent exactly as stored is a duplicate.
        changed = _settled(adapter, existing, payload, adapter.create_schema, drop_unchanged=True)
        if not changed:
            return Outcome("duplicate", version=existing.version)
        payload = {key: value for key, value in payload.items() if key in editable_keys(adapter.create_schema)}
    data = adapter.create_schema.load(payload)
    try:
        result = adapter.create(user, data)
    except Conflict as exc:
        if existing is not None and exc.error == "conflict":
            _check_rights(user, adapter, existing, m)
            raise _ConflictFound("conflict", "A record with this id already exists with other data.") from None
        raise
    record, created = result if isinstance(result, tuple) else (result, existing is None)
    return Outcome("applied" if created else "duplicate", version=record.version)


def _update(user, adapter: registry.EntityAdapter, m: Mutation) -> Outcome:
    if adapter.update is None or adapter.update_schema is None:
        raise ApiError(f"Devices cannot change a {m.entity.replace('_', ' ')}.", error="not_pushable", code=405)
    record = adapter.get(user, m.record_id)
    _check_rights(user, adapter, record, m)
    _check_base(record, m)
    edit = {k: v for k, v in m.data.items() if k not in rules.CREATE_ONLY}
    data = adapter.update_schema.load(_settled(adapter, record, edit, adapter.update_schema))
    try:
        record = adapter.update(user, record, data, m.base_version)
    except VersionConflict as exc:
        raise _ConflictFound("version_conflict", exc.message) from None
    return Outcome("applied", version=record.version)


def _settled(adapter: registry.EntityAdapter, record: Any, data: dict[str, Any], schema: Any, *,
             drop_unchanged: bool | None = None) -> dict[str, Any]:
    """The pushed fields the schema takes, when the device sent the record back as pull gave it:
    read-only fields equal to the stored record are ignored, others rejected `read_only` naming them
    (records.settle_read_only). A create of a new id has no stored record: the schema judges alone
    (a field it does not take is an unknown field)."""
    if record is None:
        return data
    return settle_read_only(data, stored_form(adapter.dump, record), schema, clock_fields=adapter.clock_fields,
                            dropped_if_absent=rules.BOOKKEEPING,
                            drop_unchanged=schema is adapter.update_schema if drop_unchanged is None else drop_unchanged)


def _delete(user, adapter: registry.EntityAdapter, m: Mutation) -> Outcome:
    if adapter.delete is None:
        raise ApiError(f"A {m.entity.replace('_', ' ')} cannot be deleted.", error="delete_not_allowed", code=405)
    if m.base_version is None:
        raise ValidationFailed(errors={"base_version": ["Send the version you are deleting."]})
    record = adapter.get(user, m.record_id)
    _check_rights(user, adapter, record, m)
    _check_base(record, m)
    try:
        adapter.delete(user, record, m.base_version)
    except VersionConflict as exc:
        raise _ConflictFound("version_conflict", exc.message) from None
    return Outcome("applied", version=getattr(record, "version", None))


def _check_rights(user, adapter: registry.EntityAdapter, record: Any, m: Mutation) -> None:
    """Rights before versions (sync/rights.py): a stale change from an account that may not make it
    is rejected `forbidden` instead of being kept as a conflict. A current one needs no trial: the
    update itself checks the rights."""
    if record.version == m.base_version:
        return
    refused = rights.refusal(user, adapter, record, m.op, m.data)
    if refused is not None:
        raise refused


def _check_base(record: Any, m: Mutation) -> None:
    if record.version != m.base_version:
        raise _ConflictFound("version_conflict", f"The record is at version {record.version}, not "
                                                 f"{m.base_version}; the change is kept as a conflict to resolve.")


def _conflict(user, device_id: str | None, m: Mutation, found: _ConflictFound) -> Outcome:
    adapter = registry.get(m.entity)
    record = db.session.get(adapter.model, m.record_id)
    server = json.loads(to_json(adapter.dump(record))) if record is not None else None  # plain JSON to store
    conflict = SyncConflict(
        entity=m.entity, record_id=m.record_id, permit_id=adapter.permit_id_of(record) if record else None,
        op=m.op, mutation_id=m.mutation_id, device_id=device_id, user_id=user.id, base_version=m.base_version,
        device_data=m.data, server_version=getattr(record, "version", None), server_record=server,
        fields=rules.differing_fields(m.data, server))
    db.session.add(conflict)
    db.session.flush()
    return Outcome("conflict", version=conflict.server_version, error=found.error, message=found.message,
                   server_record=server, conflict_id=conflict.id)


def _fault_pause() -> None:
    """Test-only: hold the batch open between mutations so a test can kill the server mid-batch."""
    config = current_app.config
    delay = config.get("SYNC_FAULT_DELAY_SECONDS") if config.get("TESTING") else None
    if delay:
        marker = config.get("SYNC_FAULT_MARKER")
        if marker:
            Path(marker).touch()
        time.sleep(float(delay))
