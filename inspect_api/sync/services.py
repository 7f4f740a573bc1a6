"""Push (API.md "Sync"): every mutation stands alone, in the order sent: its outcome is the one it
would get applied by itself, and one that does not apply takes nothing of the others with it.

A mutation's outcome goes to sync_mutations in the request's one transaction, with its change, so
the two commit (or vanish) together: a resent mutation id is answered `duplicate` from that row and
never applied twice, even when the first answer was lost on the way back. The request commits once
at the end (database.register_request_transaction). The entity's own schema and services decide
everything about the record; this module only adapts and records.

What every mutation needs and can be read once is read once per batch (_Batch): prior outcomes, the
records named, the permits touched, the caller's assignments. Outcome and audit rows are written
together at the end; the mutation ids are claimed at the start so a concurrent resend waits and
answers `duplicate`. The mutations are applied together in one SAVEPOINT until one does not apply
(_Batch.apply). Per mutation there remain its checks and its write.
"""
from __future__ import annotations

import json
import logging
import time
import uuid
from collections import defaultdict
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Callable

import sqlalchemy as sa
from flask import current_app, g
from marshmallow import ValidationError
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError

from .. import audit, clock, lanes, records, storage
from ..errors import ApiError, Conflict, NotFound, PayloadTooLarge, ValidationFailed, VersionConflict
from ..extensions import db
from ..paging import chunks
from .sent_back import editable_keys, settle_read_only, stored_form
from ..permits import access
from . import registry, rights, rules
from ..auth.devices import touch_device
from ..auth.permissions import still_signed_in
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


# What a mutation decides about itself (a conflict kept, a refusal): the outcome it gives holds as
# given on the same records (_Batch.apply, _failed). Anything else is a failure it cannot be blamed for alone.
_DECIDED = (_ConflictFound, ApiError, ValidationError)


class SyncBusy(ApiError):
    code, error = 503, "sync_busy"
    default_message = ("The server is applying other devices' changes; nothing of this batch was applied. "
                       "Send it again in a moment.")

    def __init__(self, retry_after: int) -> None:
        super().__init__(errors={"retry_after_s": [retry_after]})
        self.retry_after = retry_after


def take_push_turn() -> None:
    """A turn of this process's push lane (lanes.py), held until the request has committed, or
    503 sync_busy: a burst of devices ending their day takes SYNC_PUSH_AT_ONCE threads' worth of the
    CPU, not every thread, and reads keep theirs."""
    config = current_app.config
    retry = max(1, int(config["SYNC_PUSH_RETRY_SECONDS"]))
    waited = lanes.take_turn_for_request("sync_push", config["SYNC_PUSH_AT_ONCE"], config["SYNC_PUSH_WAIT_SECONDS"],
                                         lambda: SyncBusy(retry), waiting=config["SYNC_PUSH_WAITING"])
    if waited:  # signed in before the wait: a session revoked or an account disabled meanwhile applies nothing
        still_signed_in()


def push(user, body: dict[str, Any]) -> dict[str, Any]:
    mutations = body["mutations"]
    limit = current_app.config["SYNC_MAX_BATCH"]
    if len(mutations) > limit:
        raise PayloadTooLarge(f"At most {limit} mutations per push; send the rest in another batch.",
                              errors={"mutations": [f"{len(mutations)} sent, at most {limit} allowed."]})
    # The route hands over flask-jwt's current_user proxy; each attribute read through it looks the
    # user up again, and a batch reads user.id and user.role about ten times per mutation.
    user = user._get_current_object() if hasattr(user, "_get_current_object") else user
    device = touch_device(user, body["device_id"], pushed=True, app_version=body.get("app_version"),
                          pending_count=body.get("pending_count"))
    g.device_id = device.id  # services and the audit log take the device from here
    parsed = [_parse(raw) for raw in mutations]
    batch = _Batch(user, device.id, [m for m, _sent in parsed if isinstance(m, Mutation)])
    with batch.loaded(), audit.deferred():
        results = batch.apply(parsed)
        batch.write_outcomes()
    return {"results": results}


class _NotAlone(Exception):
    """A mutation of a batch tried in one savepoint did not apply: `at` is its place in the batch and
    the exception's cause what stopped it."""

    def __init__(self, at: int = -1) -> None:
        super().__init__(at)
        self.at = at


def _canonical(value: Any) -> str | None:
    try:
        return str(uuid.UUID(str(value)))
    except (ValueError, TypeError, AttributeError):
        return None


def _parse(raw: Any) -> tuple[Mutation | Outcome, str | None]:
    """The mutation's envelope, or the rejection of one that is not well formed (never recorded)."""
    try:
        loaded = _mutation_schema.load(raw if isinstance(raw, dict) else {})
    except ValidationError as exc:
        mid = raw.get("mutation_id") if isinstance(raw, dict) else None
        return Outcome("rejected", error="validation_error", message="This mutation is not well formed.",
                       errors=exc.messages, recorded=False), str(mid) if mid is not None else None
    m = Mutation(str(loaded["mutation_id"]), loaded["entity"], str(loaded["id"]), loaded["op"],
                 loaded["base_version"], loaded["data"])
    return m, str(raw["mutation_id"])  # answered in the device's own spelling; stored canonical


_RECORDED_OUTCOME = ("status", "version", "error", "message", "errors", "server_record", "conflict_id")


@dataclass
class _Prior:
    """A recorded outcome, as a resend of its mutation id is answered: who sent it, for which record."""
    user_id: str
    entity: str
    record_id: str | None
    outcome: Outcome

    COLUMNS = ("user_id", "entity", "record_id", *_RECORDED_OUTCOME)

    @classmethod
    def from_row(cls, row) -> "_Prior":
        return cls(row["user_id"], row["entity"], row["record_id"], Outcome(**{k: row[k] for k in _RECORDED_OUTCOME}))


_OUTCOME_COLUMNS = ("mutation_id", "device_id", "user_id", "entity", "record_id", "op", "status", "version",
                    "error", "message", "errors", "server_record", "conflict_id")


class _Batch:
    """One push: what every mutation of it needs is read once, and its outcome rows are written together.

    Before the first mutation: the outcomes already recorded for the batch's mutation ids; a claim row
    (sync_mutations, inserted with ON CONFLICT DO NOTHING) for every other id, so a concurrent request
    carrying the same mutation waits on it at the start and answers `duplicate` rather than applying it
    a second time; the records the mutations name (one query per entity); the permits they touch and
    the caller's assignments (permits.access.batch_access). Each mutation is then applied in its own
    SAVEPOINT as before, and every outcome is written at the end by one executemany over the claims
    (a claim whose mutation is answered without being recorded is deleted). The outcome thus commits
    or vanishes with the change it describes: both are in the request's one transaction.
    """

    def __init__(self, user, device_id: str | None, mutations: list[Mutation]) -> None:
        self.user, self.device_id, self.mutations = user, device_id, mutations
        self.seen: dict[str, _Prior] = {}
        self.claimed: set[str] = set()
        self.final: dict[str, dict[str, Any] | None] = {}  # claimed id -> its outcome row (None: not recorded)

    @contextmanager
    def loaded(self):
        self._claim()
        with ExitStack() as stack:
            permit_ids: set[str] = set()
            by_entity: dict[str, set[str]] = defaultdict(set)
            for m in self.mutations:
                by_entity[m.entity].add(m.record_id)
                if m.entity == "permit":
                    permit_ids.add(m.record_id)
                value = m.data.get("permit_id") if isinstance(m.data, dict) else None
                if isinstance(value, str) and _canonical(value):
                    permit_ids.add(_canonical(value))
            for entity, ids in by_entity.items():
                adapter = registry.get(entity)
                if adapter is None or adapter.not_pushed:
                    continue
                found = stack.enter_context(records.known_records(adapter.model, ids, registry.IN_CHUNK))
                permit_ids.update(filter(None, (adapter.permit_id_of(r) for r in found.values())))
            stack.enter_context(access.batch_access(self.user, permit_ids, registry.IN_CHUNK))
            yield self

    def _claim(self) -> None:
        ids = sorted({m.mutation_id for m in self.mutations})  # one order for every request: no deadlock
        self.seen = _recorded(ids)
        wanted = {m.mutation_id: m for m in self.mutations if m.mutation_id not in self.seen}
        if not wanted:
            return
        table = SyncMutation.__table__
        insert = (pg_insert if db.session.get_bind().dialect.name == "postgresql" else sqlite_insert)(table)
        now = clock.now()
        rows = [{"mutation_id": mid, "device_id": self.device_id, "user_id": self.user.id, "entity": m.entity,
                 "record_id": m.record_id, "op": m.op, "status": "rejected", "error": "pending", "at": now}
                for mid, m in sorted(wanted.items())]
        # One executemany (batched into multi-row INSERTs by SQLAlchemy); RETURNING names the rows made.
        result = db.session.execute(insert.on_conflict_do_nothing().returning(table.c.mutation_id), rows)
        self.claimed.update(result.scalars())
        raced = sorted(set(wanted) - self.claimed)
        if raced:  # recorded by a request that committed while this one waited on its claim
            self.seen.update(_recorded(raced))

    def apply(self, parsed: list[tuple[Mutation | Outcome, str | None]]) -> list[dict[str, Any]]:
        """Every mutation's result, in the order sent, each as if applied alone.

        Almost every batch a tablet sends applies whole, so the batch is tried in one SAVEPOINT with
        no savepoint of each mutation's own (one statement less per mutation). The first mutation
        that does not apply rolls that try back with everything made in it (audit rows included:
        audit.deferred drops them). The mutations before it are applied again in one savepoint, and
        its own outcome is the one it just gave: a refusal or a conflict is decided by the mutation
        on the records as the ones before it left them, which the second try makes again, so it is
        not tried twice (nor its rights trial). A failure the mutation cannot be blamed for alone
        (a write refused by the database, a defect) is applied again in its own savepoint. The
        rest of the batch is then tried in one savepoint the same way. A failure at a try's last
        flush names no mutation: from there, one savepoint per mutation.

        Within a try, a run of creates of one kind is inserted together (records.inserts_deferred:
        one multi-row INSERT at the next flush), flushed before a mutation of another kind.

        A try ends, kept, after a mutation that wrote blobs (an order's issued document and the copy
        attached to its notices): what no rollback takes back is done once, not again for a later
        mutation's refusal."""
        results: list[dict[str, Any]] = []
        start = 0
        while start < len(parsed):
            done, stop, reached = self._try(parsed, start, len(parsed))
            results += done
            if stop is None:
                start = reached
                continue
            if stop.at > start:
                done, again, reached = self._try(parsed, start, stop.at)
                results += done
                if again is not None:  # what applied a moment ago no longer does (a change committed meanwhile)
                    stop = _NotAlone()
                elif reached < stop.at:  # it now writes blobs: kept up to there, tried again from there
                    start = reached
                    continue
            if stop.at < 0:  # failed at a last flush: which write is unknown
                return results + [self._alone(m, sent_as) for m, sent_as in parsed[start:]]
            m, sent_as = parsed[stop.at]
            cause = stop.__cause__
            if isinstance(cause, _DECIDED):
                results.append(self.one(m, sent_as, partial(_failed, self.user, self.device_id, exc=cause)))
            else:
                results.append(self._alone(m, sent_as))
            start = stop.at + 1
        return results

    def _try(self, parsed: list[tuple[Mutation | Outcome, str | None]], start: int,
             end: int) -> tuple[list[dict[str, Any]], _NotAlone | None, int]:
        """parsed[start:end] in one SAVEPOINT, ending early (kept) after a mutation that wrote blobs:
        the results and where the try ended, or (nothing of the try kept) what stopped it."""
        seen, final = dict(self.seen), dict(self.final)
        results = []
        reached = start
        kind = None
        try:
            with db.session.begin_nested(), records.inserts_deferred():
                for at in range(start, end):
                    m, sent_as = parsed[at]
                    reached = at + 1
                    if isinstance(m, Outcome):
                        results.append(_result(sent_as, None, m))
                        continue
                    if m.entity != kind:  # one kind's gathered creates go in before another kind's writes
                        db.session.flush()
                        kind = m.entity
                    blobs = storage.writes()
                    try:
                        results.append(self.one(m, sent_as, lambda m: _apply(self.user, m)))
                    except Exception as exc:
                        raise _NotAlone(at) from exc
                    _fault_pause()
                    if storage.writes() != blobs:
                        break
                db.session.flush()
        except _NotAlone as stop:
            self.seen, self.final = seen, final
            return [], stop, start
        except Exception:  # at the last flush (a write the database refuses, a deadlock, ...)
            log.warning("sync push: a batch's try failed at its last flush; one savepoint each", exc_info=True)
            self.seen, self.final = seen, final
            return [], _NotAlone(), start
        return results, None, reached

    def _alone(self, m: Mutation | Outcome, sent_as: str | None) -> dict[str, Any]:
        if isinstance(m, Outcome):
            return _result(sent_as, None, m)
        result = self.one(m, sent_as, lambda m: _apply_and_record(self.user, self.device_id, m))
        _fault_pause()
        return result

    def one(self, m: Mutation, sent_as: str, outcome_of: Callable[[Mutation], Outcome]) -> dict[str, Any]:
        prior = self.seen.get(m.mutation_id)
        if prior is not None:
            return _answer_prior(self.user, sent_as, m, prior)
        if m.mutation_id not in self.claimed:
            return _result(sent_as, m, Outcome(  # claimed by another request that has not recorded it
                "rejected", error="retry", recorded=False,
                message="This change was being saved by another request at the same moment; send it again."))
        outcome = outcome_of(m)
        row = _outcome_row(self.user, self.device_id, m, outcome) if outcome.recorded else None
        if outcome.recorded and row is None:
            outcome = _INTERNAL
        self.final[m.mutation_id] = row
        if row is not None:
            self.seen[m.mutation_id] = _Prior.from_row(row)
        return _result(sent_as, m, outcome)

    def write_outcomes(self) -> None:
        rows = [row for row in self.final.values() if row is not None]
        gone = [{"m": mid} for mid in sorted(self.claimed) if self.final.get(mid) is None]
        if rows:  # one executemany: an UPDATE by primary key of each claim
            db.session.execute(sa.update(SyncMutation), rows)
        if gone:
            table = SyncMutation.__table__
            db.session.execute(table.delete().where(table.c.mutation_id == sa.bindparam("m")), gone)


def _recorded(ids: list[str]) -> dict[str, _Prior]:
    """Outcomes already recorded for these mutation ids, in one query per chunk."""
    found: dict[str, _Prior] = {}
    table = SyncMutation.__table__
    columns = [table.c.mutation_id, *(table.c[k] for k in _Prior.COLUMNS)]
    for chunk in chunks(ids, registry.IN_CHUNK):
        for row in db.session.execute(sa.select(*columns).where(
                table.c.mutation_id.in_(chunk))).mappings():
            found[row["mutation_id"]] = _Prior.from_row(row)
    return found


def _outcome_row(user, device_id: str | None, m: Mutation, outcome: Outcome) -> dict[str, Any] | None:
    """The outcome as its sync_mutations row, in plain JSON (checked now: one that cannot be stored
    must fail this mutation alone, not the batch's one write at the end)."""
    try:
        errors = json.loads(to_json(outcome.errors)) if outcome.errors else None
        server = json.loads(to_json(outcome.server_record)) if outcome.server_record is not None else None
    except (TypeError, ValueError):
        log.exception("sync push: the outcome of %s %s %s cannot be stored", m.op, m.entity, m.record_id)
        return None
    return {"mutation_id": m.mutation_id, "device_id": device_id, "user_id": user.id, "entity": m.entity,
            "record_id": m.record_id, "op": m.op, "status": outcome.status, "version": outcome.version,
            "error": outcome.error, "message": outcome.message, "errors": errors, "server_record": server,
            "conflict_id": outcome.conflict_id}


def _answer_prior(user, sent_as: str, m: Mutation, prior: _Prior) -> dict[str, Any]:
    if prior.user_id != user.id or prior.entity != m.entity or prior.record_id != m.record_id:
        return _result(sent_as, m, Outcome(
            "rejected", error="mutation_id_reused", recorded=False,
            message="This mutation id was already used for another change; make a new one."))
    result = _result(sent_as, m, prior.outcome)
    result["original_status"] = prior.outcome.status
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


_INTERNAL = Outcome("rejected", error="internal_error", recorded=False,
                    message="The server failed on this change; nothing of it was kept. Send it again later.")


def _apply_and_record(user, device_id: str | None, m: Mutation) -> Outcome:
    try:
        with db.session.begin_nested():
            return _apply(user, m)
    except Exception as exc:  # the savepoint is rolled back by now: whatever the service half-did is gone
        return _failed(user, device_id, m, exc)


def _failed(user, device_id: str | None, m: Mutation, exc: Exception) -> Outcome:
    """The outcome of a mutation that did not apply, nothing of it kept."""
    if isinstance(exc, _DECIDED):
        if isinstance(exc, _ConflictFound):  # the conflict (with the server's current record) is recorded on its own
            return _record_conflict(user, device_id, m, exc)
        return _rejection(exc)
    if isinstance(exc, IntegrityError):
        return _raced()
    # a defect in one mutation must not sink the batch
    log.error("sync push: %s %s %s failed", m.op, m.entity, m.record_id, exc_info=exc)
    return _INTERNAL


def _record_conflict(user, device_id, m: Mutation, found: _ConflictFound) -> Outcome:
    try:
        with db.session.begin_nested():
            return _conflict(user, device_id, m, found)
    except IntegrityError:
        return _raced()
    except Exception:  # e.g. the entity's dump failing on the conflicting record
        log.exception("sync push: recording the outcome of %s %s %s failed", m.op, m.entity, m.record_id)
        return _INTERNAL


def _raced() -> Outcome:
    """Another request made the same record at the same moment and committed first (the mutation id
    itself is this request's: it was claimed before anything was applied)."""
    return Outcome("rejected", error="retry", recorded=False,
                   message="Another change to this record was being saved at the same moment; send this again.")


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
    existing = records.get_existing(adapter.model, m.record_id)
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
    (sent_back.settle_read_only). A create of a new id has no stored record: the schema judges alone
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
