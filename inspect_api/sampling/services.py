"""Sample operations (R-S, R-E2): load, check, change, flush (never commit)."""
from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, Iterable

from sqlalchemy import Select, bindparam, select

from .. import clock
from .. import audit
from ..auth.permissions import current_device_id
from ..dumping import values_of
from ..entry.services import require_entry
from ..errors import NotFound, ValidationFailed
from ..extensions import db
from ..paging import chunks, named_filters, page_of
from ..inspections.models import Finding
from ..permits.access import (VIEWER, check_field_work, get_visible_permit, permit_scoped, permit_visible, scope_of,
                              scope_values)
from ..permits.models import Permit
from ..records import bump, check_version, existing_for_create
from ..schemas import GPS_FIX_COLUMNS, gps_fix_columns, gps_fix_of
from . import exceedances, rules
from .models import Sample
from .schemas import SampleSchema

WRITABLE = ("entry_authorization_id", "sampled_at", "sampler", "location", "outfall_id", "sample_type", "analysis",
            "lab_name", "parameters", "chain_of_custody", "received_by_lab_at", "lab_received_by",
            "lab_receipt_temperature_c", "analyzed_at", "notes")
# Columns compared when a client id is posted again (idempotent create).
STORED = ("sampled_at", "sampler", *GPS_FIX_COLUMNS, "outfall_id", "sample_type", "analysis",
          "lab_name", "parameters", "chain_of_custody", "received_by_lab_at", "lab_received_by",
          "lab_receipt_temperature_c", "analyzed_at", "notes")

_dump_schema = SampleSchema()
# The schema's fields a sample's own attributes give (columns and properties of the model), and the
# columns a view works out the rest from (sample_views).
_OWN_FIELDS = tuple(dict.fromkeys((*(name for name in _dump_schema.fields if hasattr(Sample, name)),
                                    "id", "parameters", "sampled_at", "analyzed_at", "analysis", "chain_of_custody")))


def visible_samples(user) -> Select:
    return select(Sample).where(permit_visible(Sample.permit_id, user))


def get_sample(user, record_id: str) -> Sample:
    record = db.session.scalar(visible_samples(user).where(Sample.id == str(record_id)))
    if record is None:
        raise NotFound("No such sample.")
    return record


def list_samples(user, args: dict[str, Any]) -> tuple[list[Sample], int]:
    values = {**scope_values(user), **named_filters(args, ("permit_id",))}
    return page_of(_samples_page, (scope_of(user), "permit_id" in values), values, args)


def _samples_page(scope: str, by_permit: bool) -> Select:
    """The samples list for any caller of `scope` (paging.page_of), oldest first."""
    query = select(Sample).where(permit_scoped(Sample.permit_id, scope, bindparam(VIEWER)))
    if by_permit:
        query = query.where(Sample.permit_id == bindparam("permit_id"))
    return query.order_by(Sample.sampled_at, Sample.id)


# The findings of a page of samples: the statement is built once (building it and working out its cache
# key again cost as much as running it on SQLite); its ids are one expanding parameter.
_FINDINGS_OF_SAMPLES = (select(Finding.sample_id, Finding.id)
                        .where(Finding.sample_id.in_(bindparam("sample_ids", expanding=True)),
                               Finding.deleted_at.is_(None))
                        .order_by(Finding.created_at, Finding.id))


def _finding_ids(sample_ids: list[str]) -> dict[str, list[str]]:
    """The findings each sample raised (R-S2), oldest first: one query for all the samples."""
    found: dict[str, list[str]] = {sample_id: [] for sample_id in sample_ids}
    ids = sorted(found)
    for chunk in chunks(ids):
        for sample_id, finding_id in db.session.execute(_FINDINGS_OF_SAMPLES, {"sample_ids": chunk}):
            found[sample_id].append(finding_id)
    return found


def sample_views(records: Iterable[Sample], now: datetime | None = None) -> list[dict[str, Any]]:
    """What SampleSchema dumps for each sample: its columns, the findings it raised (loaded for all the
    samples at once) and its holding times as of `now`. What a view works out from the sample's own
    columns it reads from the view's copy of them (a dict), not from the record again."""
    pairs = [(record, values_of(record, _OWN_FIELDS)) for record in records]
    finding_ids = _finding_ids([view["id"] for _, view in pairs])
    now = now or clock.now()
    views = []
    for record, view in pairs:
        view.update(
            location=gps_fix_of(record), finding_ids=finding_ids[view["id"]],
            chain_of_custody=[{**t, "at": datetime.fromisoformat(t["at"])} for t in view["chain_of_custody"] or []],
            holding_time=rules.holding_times(view["parameters"] or [], view["sampled_at"], view["analyzed_at"],
                                             view["analysis"], now),
        )
        views.append(view)
    return views


def sample_view(record: Sample, now: datetime | None = None) -> dict[str, Any]:
    return sample_views([record], now)[0]


def dump_sample(record: Sample, now: datetime | None = None) -> dict[str, Any]:
    return _dump_schema.dump(sample_view(record, now))


def _columns(data: dict[str, Any]) -> dict[str, Any]:
    """The loaded fields as column values, with every parameter validated and normalised (R-S3)."""
    values = {key: data[key] for key in WRITABLE if key in data and key not in ("location", "entry_authorization_id")}
    if "location" in data:
        values.update(gps_fix_columns(data["location"]))
    if "parameters" in values:
        parameters, errors = rules.normalise_parameters(values["parameters"])
        if errors:
            raise ValidationFailed("Some parameters are not valid.", errors={"parameters": errors})
        values["parameters"] = parameters
    if "chain_of_custody" in values:
        values["chain_of_custody"] = [
            {"from_name": t["from_name"], "to_name": t["to_name"], "at": t["at"],
             "signature_photo_id": str(t["signature_photo_id"]) if t.get("signature_photo_id") else None}
            for t in values["chain_of_custody"]]
    return values


def _check_content(values: dict[str, Any]) -> None:
    errors = rules.place_problems(values.get("location_lat"), values.get("outfall_id"))
    errors |= rules.pending_problems(values.get("parameters") or [], values["analysis"])
    lab_receipt_given = values.get("lab_received_by") is not None or values.get("lab_receipt_temperature_c") is not None
    errors |= rules.check_times(values["sampled_at"], values.get("analyzed_at"), values.get("received_by_lab_at"),
                                values.get("chain_of_custody") or [], lab_receipt_given)
    if errors:
        raise ValidationFailed(errors=errors)


def _storable(values: dict[str, Any]) -> dict[str, Any]:
    """JSON columns hold times as RFC 3339 text."""
    if "chain_of_custody" in values:
        values = {**values, "chain_of_custody": [{**t, "at": t["at"].astimezone(timezone.utc).isoformat()}
                                                 for t in values["chain_of_custody"]]}
    return values


def _same(record: Sample, permit: Permit, values: dict[str, Any], auth_id: str | None) -> bool:
    if record.permit_id != permit.id or (auth_id and record.entry_authorization_id != auth_id):
        return False
    return all(getattr(record, key) == values.get(key) for key in STORED)


def create_sample(user, data: dict[str, Any]) -> tuple[Sample, bool]:
    permit = get_visible_permit(user, str(data["permit_id"]))
    check_field_work(user, permit)
    auth_id = str(data["entry_authorization_id"]) if data.get("entry_authorization_id") else None
    values = _columns(data)
    _check_content(values)
    stored = {key: values.get(key) for key in STORED}
    stored["parameters"], stored["chain_of_custody"] = stored["parameters"] or [], stored["chain_of_custody"] or []
    values = _storable(stored)
    record_id = str(data["id"]) if data.get("id") else None
    existing = existing_for_create(Sample, record_id, lambda rec: _same(rec, permit, values, auth_id))
    if existing is not None:
        return existing, False
    auth = require_entry(user, permit, auth_id, "sampling", values["sampled_at"])
    record = Sample(id=record_id, permit_id=permit.id, entry_authorization_id=auth.id, created_by=user.id,
                    device_id=current_device_id(), device_created_at=data.get("device_created_at"), **values)
    db.session.add(record)
    db.session.flush()
    exceedances.judge(user, permit, record, previous=None)
    audit.record("sample.create", "sample", record.id, _audited_fields(record), actor=user, permit_id=permit.id)
    return record, True


def update_sample(user, record: Sample, data: dict[str, Any], expected_version: int | None) -> Sample:
    permit = db.session.get(Permit, record.permit_id)
    check_field_work(user, permit)
    check_version(record, expected_version, dump_sample)
    before = _audited_fields(record)
    previous = (record.outfall_id, record.sampled_at)
    values = _columns(data)
    merged = {**{key: getattr(record, key) for key in STORED}, **values}
    merged["chain_of_custody"] = values.get("chain_of_custody", [
        {**t, "at": datetime.fromisoformat(t["at"])} for t in record.chain_of_custody or []])
    _check_content(merged)
    auth_id = str(data["entry_authorization_id"]) if data.get("entry_authorization_id") else record.entry_authorization_id
    if merged["sampled_at"] != record.sampled_at or auth_id != record.entry_authorization_id:
        record.entry_authorization_id = require_entry(user, permit, auth_id, "sampling", merged["sampled_at"]).id
    for key, value in _storable(values).items():
        setattr(record, key, value)
    bump(record)
    db.session.flush()
    exceedances.judge(user, permit, record, previous=previous)
    audit.record("sample.update", "sample", record.id, audit.diff(before, _audited_fields(record)), actor=user,
                 permit_id=record.permit_id)
    return record


def _audited_fields(record: Sample) -> dict[str, Any]:
    return {key: getattr(record, key) for key in ("entry_authorization_id", *STORED, "exceedances")}
