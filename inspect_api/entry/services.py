"""Site-entry authorization operations: load, check, change, flush (never commit)."""
from __future__ import annotations

from datetime import datetime, timedelta
from types import SimpleNamespace
from typing import Any

from sqlalchemy import Select, select

from .. import clock
from .. import audit
from ..auth.permissions import current_device_id
from ..errors import Conflict, EntryNotAuthorized, InvalidTransition, NotFound, ValidationFailed
from ..extensions import db
from ..paging import page_query
from ..permits.access import check_field_work, get_visible_permit, permit_visible
from ..permits.models import Permit
from ..records import add_new, bump, check_version, existing_for_create, fields_equal
from . import rules
from .models import EntryAuthorization
from .schemas import EntryAuthorizationSchema

EDITABLE = ("basis", "granted_by_name", "granted_by_relation", "scope", "valid_from", "valid_to",
            "signature_photo_id", "notes")
# Clocks of tablets drift; a revocation a few minutes "in the future" is a clock, not an intent.
CLOCK_SKEW = timedelta(minutes=5)

_dump_schema = EntryAuthorizationSchema()


def visible_entry_authorizations(user) -> Select:
    return select(EntryAuthorization).where(permit_visible(EntryAuthorization.permit_id, user))


def list_entry_authorizations(user, args: dict[str, Any]) -> tuple[list[EntryAuthorization], int]:
    query = visible_entry_authorizations(user)
    if args.get("permit_id"):
        query = query.where(EntryAuthorization.permit_id == str(args["permit_id"]))
    return page_query(query.order_by(EntryAuthorization.valid_from.desc(), EntryAuthorization.id), args)


def get_entry_authorization(user, record_id: str) -> EntryAuthorization:
    record = db.session.scalar(visible_entry_authorizations(user).where(EntryAuthorization.id == str(record_id)))
    if record is None:
        raise NotFound("No such site-entry authorization.")
    return record


def dump_entry_authorization(record: EntryAuthorization) -> dict[str, Any]:
    return _dump_schema.dump(record)


def _values(data: dict[str, Any]) -> dict[str, Any]:
    values = {key: data[key] for key in EDITABLE if key in data}
    if values.get("signature_photo_id") is not None:
        values["signature_photo_id"] = str(values["signature_photo_id"])
    if "scope" in values:
        values["scope"] = list(values["scope"])
    return values


def _check_content(values: dict[str, Any]) -> None:
    errors = rules.window_problems(values["basis"], values["valid_from"], values["valid_to"], values["scope"],
                                   values.get("signature_photo_id"))
    if errors:
        raise ValidationFailed(errors=errors)


def create_entry_authorization(user, data: dict[str, Any]) -> tuple[EntryAuthorization, bool]:
    permit = get_visible_permit(user, str(data["permit_id"]))
    check_field_work(user, permit)
    values = _values(data)
    record_id = str(data["id"]) if data.get("id") else None
    existing = existing_for_create(
        EntryAuthorization, record_id,
        lambda rec: rec.permit_id == permit.id and fields_equal(rec, values, list(values)))
    if existing is not None:
        return existing, False
    _check_content(values)
    record = EntryAuthorization(id=record_id, permit_id=permit.id, created_by=user.id, device_id=current_device_id(),
                                device_created_at=data.get("device_created_at"), **values)
    add_new(record)
    audit.record("entry_authorization.create", "entry_authorization", record.id,
                 {k: v for k, v in values.items() if v is not None}, actor=user, permit_id=permit.id)
    return record, True


def update_entry_authorization(user, record: EntryAuthorization, data: dict[str, Any],
                               expected_version: int | None) -> EntryAuthorization:
    """Correct an authorization. A `revoked_at` in the data revokes it after the edit (how a device that
    recorded the revocation offline sends it); otherwise the same as revoke_entry_authorization."""
    check_field_work(user, record_permit(record))
    db.session.refresh(record, with_for_update=True)  # no lost update between two editors
    check_version(record, expected_version, dump_entry_authorization)
    if record.revoked_at is not None:
        raise Conflict("A revoked authorization is kept as it was; record a new one.", error="record_locked")
    edits = _values(data)
    if edits:
        before = dump_entry_authorization(record)
        values = {**{key: getattr(record, key) for key in EDITABLE}, **edits}
        _check_content(values)
        _check_dependents(record, values, values_revoked_at=None)
        for key, value in values.items():
            setattr(record, key, value)
        _save(user, record, before, "entry_authorization.update")
    if data.get("revoked_at") is not None:
        revoke_entry_authorization(user, record, {"revoked_at": data["revoked_at"],
                                                  "reason": data.get("revocation_reason")})
    return record


def revoke_entry_authorization(user, record: EntryAuthorization, data: dict[str, Any],
                               expected_version: int | None = None) -> EntryAuthorization:
    """R-E3: coverage ends at `revoked_at`; records made before it keep resting on it."""
    check_field_work(user, record_permit(record))
    db.session.refresh(record, with_for_update=True)
    check_version(record, expected_version, dump_entry_authorization)
    if record.revoked_at is not None:
        raise InvalidTransition(f"This authorization was already revoked at {record.revoked_at.isoformat()}.")
    revoked_at = data.get("revoked_at") or clock.now()
    if revoked_at > clock.now() + CLOCK_SKEW:
        raise ValidationFailed(errors={"revoked_at": ["A revocation cannot take effect in the future."]})
    _check_dependents(record, {key: getattr(record, key) for key in EDITABLE}, values_revoked_at=revoked_at)
    before = dump_entry_authorization(record)
    record.revoked_at, record.revoked_by, record.revocation_reason = revoked_at, user.id, data.get("reason")
    return _save(user, record, before, "entry_authorization.revoke")


def _save(user, record: EntryAuthorization, before: dict, action: str) -> EntryAuthorization:
    bump(record)
    db.session.flush()
    audit.record(action, "entry_authorization", record.id, audit.diff(before, dump_entry_authorization(record)),
                 actor=user, permit_id=record.permit_id)
    return record


def record_permit(record: EntryAuthorization) -> Permit:
    return db.session.get(Permit, record.permit_id)


def _dependent_models() -> list[type]:
    return [mapper.class_ for mapper in db.Model.registry.mappers
            if getattr(mapper.class_, "__entry_covered__", None) and hasattr(mapper.class_, "entry_authorization_id")]


def _check_dependents(record: EntryAuthorization, values: dict[str, Any], values_revoked_at: datetime | None) -> None:
    """An edit or a back-dated revocation must not pull the ground from under records already made
    on this authorization (R-E3: earlier records stay valid). Refuse it and name what it would strand."""
    after = SimpleNamespace(permit_id=record.permit_id, scope=values["scope"], valid_from=values["valid_from"],
                            valid_to=values["valid_to"], revoked_at=values_revoked_at or record.revoked_at)
    stranded: list[str] = []
    for model in _dependent_models():
        activity, time_attr = model.__entry_covered__
        query = select(model).where(model.entry_authorization_id == record.id)
        if hasattr(model, "deleted_at"):
            query = query.where(model.deleted_at.is_(None))
        for dependent in db.session.scalars(query):
            if rules.coverage_problem(after, dependent.permit_id, activity, getattr(dependent, time_attr)):
                stranded.append(f"{model.__sync_entity__} {dependent.id}")
    if stranded:
        raise Conflict("This change would leave records made under this authorization uncovered: "
                       + ", ".join(stranded[:10]) + ("..." if len(stranded) > 10 else ""),
                       error="entry_in_use", errors={"records": stranded})


def require_entry(user, permit, entry_authorization_id: str | None, activity: str,
                  at: datetime) -> EntryAuthorization:
    """The authorization that covers `activity` on `permit` at `at` (R-E2), or 409 entry_not_authorized
    saying what is missing. Without an id, any authorization of the permit that covers it will do."""
    if entry_authorization_id:
        auth = db.session.scalar(visible_entry_authorizations(user).where(
            EntryAuthorization.id == str(entry_authorization_id)))
        problem = rules.coverage_problem(auth, permit.id, activity, at)
        if problem:
            raise EntryNotAuthorized(problem, errors={
                "entry_authorization_id": [problem],
                "reason": rules.coverage_reason(auth, permit.id, activity, at)})
        return auth
    candidates = db.session.scalars(
        select(EntryAuthorization).where(EntryAuthorization.permit_id == permit.id)
        .order_by(EntryAuthorization.valid_from.desc(), EntryAuthorization.id)).all()
    for auth in candidates:
        if rules.coverage_problem(auth, permit.id, activity, at) is None:
            return auth
    nearest = _nearest(candidates, at)
    problem = rules.coverage_problem(nearest, permit.id, activity, at)
    raise EntryNotAuthorized(problem, errors={"entry_authorization_id": [problem],
                                              "reason": rules.coverage_reason(nearest, permit.id, activity, at)})


def _nearest(candidates: list[EntryAuthorization], at: datetime) -> EntryAuthorization | None:
    """The authorization whose refusal best explains the gap: one whose window holds `at` (so the
    answer is "revoked" or "scope"), else the latest that started before `at`, else the earliest."""
    if not candidates:
        return None
    holding = [a for a in candidates if a.valid_from <= at < a.valid_to]
    if holding:
        return holding[0]
    started = [a for a in candidates if a.valid_from <= at]
    return started[0] if started else candidates[-1]
