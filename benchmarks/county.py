"""A county's worth of records, fast: permits and their field records written in bulk through the
models, so every commit numbers them in the change feed and stores their snapshots exactly as any
write does (inspect_api.changes, inspect_api.sync.snapshots), and sync pull serves them.

Each kind of record is first made once through its domain's own service (schema-valid, with every
column the service sets); the rest are copies of those rows with new ids, permit numbers, addresses
and texts, added `batch` at a time with one commit per batch. Nothing bypasses the feed: the commit
hooks see ordinary ORM inserts.

    with app.app_context():
        county = seed_county(permits=10_000, records=50_000)

Used by benchmarks/first_sync.py and tests/browser/test_first_sync.py.
"""
from __future__ import annotations

import itertools
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

import sqlalchemy as sa

PASSWORD = "correct horse battery"  # tests.factories.PASSWORD, so the browser helpers sign in
# Field records per permit, in this order, until `records` are made: what a season of inspections
# leaves on an active site.
FIELD_MIX = ("entry_authorization", "inspection", "finding", "sample", "inspection")


@dataclass
class County:
    supervisor_email: str
    inspector_email: str
    permit_ids: list[str]
    records: int
    first_permit_id: str
    first_inspection_id: str | None


def _columns(obj) -> dict[str, Any]:
    return {attr.key: getattr(obj, attr.key) for attr in sa.inspect(type(obj)).column_attrs}


def _templates(supervisor, inspector, applicant) -> dict[str, Any]:
    """One record of each kind, made by its service: filing (R-C1), entry authorization (R-E2),
    inspection with its checklist (R-I2, R-I3), finding (R-I4), sample (R-S1)."""
    from inspect_api.checklists.defaults import DEFAULT_ITEMS
    from inspect_api.entry.services import create_entry_authorization
    from inspect_api.extensions import db
    from inspect_api.inspections.finding_services import create_finding
    from inspect_api.inspections.services import create_inspection
    from inspect_api.permits import services as permits
    from inspect_api.sampling.services import create_sample
    now = datetime.now(timezone.utc)
    permit, _ = permits.create_permit(applicant, {
        "site": {"address": "1 County Road, Fairhaven, MA 02719", "parcel_id": "70-0001",
                 "location": {"lat": 41.6376, "lon": -70.9036}},
        "owner": {"name": "Pat Owner", "email": "owner@example.org", "phone": "508-555-0100"},
        "disturbed_area_sqft": 32000, "drains_to_ms4": True, "drains_to_waters": False,
        "proposed_use": "Four-unit townhouse building", "description": "Townhouses with parking"})
    permits.force_status(permit, "active")
    permits.assign_inspector(permit, inspector.id, supervisor)
    db.session.flush()
    entry, _ = create_entry_authorization(inspector, {
        "permit_id": permit.id, "basis": "permit_condition", "granted_by_name": "Pat Owner",
        "granted_by_relation": "owner", "scope": ["examination", "survey", "sampling"],
        "valid_from": now - timedelta(days=30), "valid_to": now + timedelta(days=300),
        "notes": "Gate code 0000; call before entering."})
    db.session.flush()
    items = [{"key": i["key"], "answer": "ok"} for i in DEFAULT_ITEMS]
    items[0] = {"key": items[0]["key"], "answer": "deficient", "note": "Silt fence down along the east edge"}
    inspection, _ = create_inspection(inspector, {
        "permit_id": permit.id, "entry_authorization_id": entry.id, "kind": "routine",
        "started_at": now - timedelta(days=2), "ended_at": now - timedelta(days=2) + timedelta(minutes=40),
        "weather": {"conditions": "overcast", "temperature_f": 58, "rainfall_in_24h": 0.1},
        "notes": "Routine visit; perimeter controls in place except the east edge.",
        "checklist": {"template": "esc", "items": items}})
    db.session.flush()
    finding, _ = create_finding(inspector, {
        "permit_id": permit.id, "inspection_id": inspection.id, "kind": "deficiency", "item_key": items[0]["key"],
        "severity": "moderate", "description": "Silt fence down along the east edge",
        "required_action": "Reset and trench the fence", "observed_on": (now - timedelta(days=2)).date()})
    db.session.flush()
    sample, _ = create_sample(inspector, {
        "permit_id": permit.id, "entry_authorization_id": entry.id, "sampled_at": now - timedelta(days=2),
        "sampler": "Inspector", "outfall_id": "OF-1", "sample_type": "grab", "analysis": "field",
        "parameters": [{"name": "turbidity", "value": "12", "unit": "NTU"}]})
    db.session.commit()
    return {"permit": permit, "entry_authorization": entry, "inspection": inspection, "finding": finding,
            "sample": sample}


def seed_county(permits: int = 10_000, records: int = 50_000, batch: int = 1000, *,
                supervisor_email: str = "supervisor@county.example",
                inspector_email: str = "inspector@county.example") -> County:
    """`permits` permits (the first made by the service, the rest copies) and `records` field
    records spread over them (FIELD_MIX per permit), in an app context. Returns who to sign in as."""
    from inspect_api.auth.models import User
    from inspect_api.auth.passwords import hash_password
    from inspect_api.entry.models import EntryAuthorization
    from inspect_api.extensions import db
    from inspect_api.inspections.models import Finding, Inspection
    from inspect_api.permits.models import Permit
    from inspect_api.sampling.models import Sample
    from inspect_api.seed import run_all

    run_all()
    secret = hash_password(PASSWORD)
    supervisor = User(email=supervisor_email, name="Sam Reyes", role="supervisor", password_hash=secret)
    inspector = User(email=inspector_email, name="Ines Ortiz", role="inspector", password_hash=secret)
    applicant = User(email="applicant@county.example", name="Alex Builder", role="applicant", password_hash=secret)
    db.session.add_all([supervisor, inspector, applicant])
    db.session.commit()
    made = _templates(supervisor, inspector, applicant)
    models = {"permit": Permit, "entry_authorization": EntryAuthorization, "inspection": Inspection,
              "finding": Finding, "sample": Sample}
    rows = {kind: {k: v for k, v in _columns(obj).items() if k not in ("id", "created_at", "updated_at")}
            for kind, obj in made.items()}
    prefix = made["permit"].number.rsplit("-", 1)[0]
    permit_ids = [made["permit"].id]
    first_inspection_id = made["inspection"].id
    field_left = records - (len(made) - 1)  # the templates' own field records count
    serial = itertools.count(1)

    def permit_copy(n: int) -> Permit:
        row = dict(rows["permit"])
        row.update(id=str(uuid.uuid4()), number=f"{prefix}-{100000 + n}"[:20], site_address=f"{n} County Road, Fairhaven, MA 02719",
                   parcel_id=f"70-{n:05d}", site_lat=41.55 + (n % 100) * 0.002, site_lon=-70.95 + (n // 100) * 0.001,
                   owner_name=f"Owner {n}")
        permit = Permit(**row)
        # New rows have no conditions, phases, documents, exemptions or parties: saying so spares
        # the snapshot's dump a lazy load per collection.
        for collection in ("assignments", "conditions", "phases", "documents", "exemptions", "parties"):
            setattr(permit, collection, [])
        return permit

    def field_copy(kind: str, permit_id: str, parents: dict[str, str]) -> Any:
        row = dict(rows[kind])
        row.update(id=str(uuid.uuid4()), permit_id=permit_id)
        n = next(serial)
        if kind == "entry_authorization":
            row["granted_by_name"] = f"Owner {n}"
        if kind in ("inspection", "sample"):
            row["entry_authorization_id"] = parents.get("entry_authorization", row["entry_authorization_id"])
        if kind == "inspection":
            row["notes"] = f"Visit {n}: perimeter controls in place."
            record = Inspection(**row)
            record.findings = []
            return record
        if kind == "finding":
            row["inspection_id"] = parents.get("inspection")
            row["description"] = f"Silt fence down ({n})"
        return models[kind](**row)

    def commit(objects: list) -> None:
        # Parents before children: findings name no relationship the unit of work could order by,
        # so each kind is flushed in FIELD_MIX's order.
        for kind in ("permit", "entry_authorization", "inspection", "finding", "sample"):
            db.session.add_all([o for o in objects if getattr(type(o), "__sync_entity__", None) == kind])
            db.session.flush()
        db.session.commit()
        db.session.expunge_all()  # the identity map would otherwise hold every record seeded

    for start in range(1, permits, batch):
        chunk = [permit_copy(n) for n in range(start, min(start + batch, permits))]
        permit_ids += [p.id for p in chunk]
        commit(chunk)
    made_field, pending = 0, []
    for n in itertools.count():
        if made_field >= field_left:
            break
        permit_id = permit_ids[n % len(permit_ids)]
        parents: dict[str, str] = {}
        for kind in FIELD_MIX:
            if made_field >= field_left:
                break
            record = field_copy(kind, permit_id, parents)
            parents.setdefault(kind, record.id)
            pending.append(record)
            made_field += 1
        if len(pending) >= batch:
            commit(pending)
            pending = []
    commit(pending)
    return County(supervisor_email, inspector_email, permit_ids, records, permit_ids[0], first_inspection_id)
