"""A county's worth of records, fast, in the state an ordinary write leaves them: each record in its
table, numbered in the change feed, with its snapshot, so sync pull serves them as it serves any.

Each kind of record is first made once through its domain's own service (schema-valid, every
column the service sets, its snapshot stored by the commit hook). The rest are copies of those rows
with new ids (and, for permits, new numbers, addresses, parcels, owners and points):

  - rows go in by bulk INSERT, `batch` at a time;
  - each copy is marked changed with `inspect_api.changes.touch_row`, the feed's own entry for a
    record written without the ORM, so the commit numbers it exactly as it numbers any change;
  - its snapshot is the template's stored snapshot with the template's ids and values replaced by
    the copy's, written at the copy's feed number (what inspect_api.sync.snapshots would store).

That last step is what makes the volume fast (a dump per record is most of a write's cost), so it
is checked: after seeding, copies of each kind are dumped live by their domain and must equal their
stored snapshots, or seeding fails.

    with app.app_context():
        county = seed_county(permits=10_000, records=50_000)

Used by benchmarks/first_sync.py and tests/browser/test_first_sync.py.
"""
from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

import sqlalchemy as sa

PASSWORD = "correct horse battery"  # tests.factories.PASSWORD, so the browser helpers sign in
# Field records per permit, in this order, until `records` are made: an entry authorization, an
# inspection with the finding it raised, two water samples.
FIELD_MIX = ("entry_authorization", "inspection", "finding", "sample", "sample")
PERMIT_POINT = (41.6001, -70.9001)  # the permit template's point: a value no other field holds


@dataclass
class County:
    supervisor_email: str
    inspector_email: str
    permit_ids: list[str]  # in feed order
    records: int
    first_permit_id: str


def _columns(obj) -> dict[str, Any]:
    return {attr.key: getattr(obj, attr.key) for attr in sa.inspect(type(obj)).column_attrs}


def _templates(supervisor, inspector, applicant) -> dict[str, Any]:
    """One record of each kind, made by its service: filing (R-C1), entry authorization (R-E2),
    inspection with its checklist (R-I2, R-I3), finding (R-I4), sample (R-S1). The field records sit
    on an assigned permit; the permit copied is another, unassigned one (assignment shows in a
    permit's dump)."""
    from inspect_api.checklists.defaults import DEFAULT_ITEMS
    from inspect_api.entry.services import create_entry_authorization
    from inspect_api.extensions import db
    from inspect_api.inspections.finding_services import create_finding
    from inspect_api.inspections.services import create_inspection
    from inspect_api.permits import services as permits
    from inspect_api.sampling.services import create_sample
    now = datetime.now(timezone.utc)

    def permit(n: int, point: tuple[float, float]):
        record, _ = permits.create_permit(applicant, {
            "site": {"address": f"{n} County Road, Fairhaven, MA 02719", "parcel_id": f"70-{n:05d}",
                     "location": {"lat": point[0], "lon": point[1]}},
            "owner": {"name": f"Owner {n}", "email": "owner@example.org", "phone": "508-555-0100"},
            "disturbed_area_sqft": 32000, "drains_to_ms4": True, "drains_to_waters": False,
            "proposed_use": "Four-unit townhouse building", "description": "Townhouses with parking"})
        permits.force_status(record, "active")
        return record

    home = permit(0, (41.6376, -70.9036))
    permits.assign_inspector(home, inspector.id, supervisor)
    copied = permit(1, PERMIT_POINT)
    db.session.flush()
    entry, _ = create_entry_authorization(inspector, {
        "permit_id": home.id, "basis": "permit_condition", "granted_by_name": "Pat Owner",
        "granted_by_relation": "owner", "scope": ["examination", "survey", "sampling"],
        "valid_from": now - timedelta(days=30), "valid_to": now + timedelta(days=300),
        "notes": "Gate code 0000; call before entering."})
    db.session.flush()
    items = [{"key": i["key"], "answer": "ok"} for i in DEFAULT_ITEMS]
    items[0] = {"key": items[0]["key"], "answer": "deficient", "note": "Silt fence down along the east edge"}
    inspection, _ = create_inspection(inspector, {
        "permit_id": home.id, "entry_authorization_id": entry.id, "kind": "routine",
        "started_at": now - timedelta(days=2), "ended_at": now - timedelta(days=2) + timedelta(minutes=40),
        "weather": {"conditions": "overcast", "temperature_f": 58, "rainfall_in_24h": 0.1},
        "notes": "Routine visit; perimeter controls in place except the east edge.",
        "checklist": {"template": "esc", "items": items}})
    db.session.flush()
    finding, _ = create_finding(inspector, {
        "permit_id": home.id, "inspection_id": inspection.id, "kind": "deficiency", "item_key": items[0]["key"],
        "severity": "moderate", "description": "Silt fence down along the east edge",
        "required_action": "Reset and trench the fence", "observed_on": (now - timedelta(days=2)).date()})
    db.session.flush()
    sample, _ = create_sample(inspector, {
        "permit_id": home.id, "entry_authorization_id": entry.id, "sampled_at": now - timedelta(days=2),
        "sampler": "Inspector", "outfall_id": "OF-1", "sample_type": "grab", "analysis": "field",
        "parameters": [{"name": "turbidity", "value": "12", "unit": "NTU"}]})
    db.session.commit()
    # A finding added after its inspection changes the inspection's dump; touching it stores the
    # snapshot with the finding in it, as the next write of the inspection would.
    from inspect_api.changes import touch
    touch(inspection)
    inspection.notes = "Routine visit; perimeter controls in place except the east edge, raised as a finding."
    db.session.commit()
    return {"home": home, "permit": copied, "entry_authorization": entry, "inspection": inspection,
            "finding": finding, "sample": sample}


def _quoted(value: Any) -> str:
    return json.dumps(value)


def seed_county(permits: int = 10_000, records: int = 50_000, batch: int = 2000, *,
                supervisor_email: str = "supervisor@county.example",
                inspector_email: str = "inspector@county.example") -> County:
    """`permits` permits and `records` field records spread over them (FIELD_MIX per permit), in an
    app context. Returns who to sign in as and the permits' ids in feed order."""
    from inspect_api.auth.models import User
    from inspect_api.auth.passwords import hash_password
    from inspect_api.changes import SyncChange, touch_row
    from inspect_api.entry.models import EntryAuthorization
    from inspect_api.extensions import db
    from inspect_api.inspections.models import Finding, Inspection
    from inspect_api.permits.models import Party, Permit
    from inspect_api.sampling.models import Sample
    from inspect_api.seed import run_all
    from inspect_api.sync.models import SyncSnapshot

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
    kinds = list(models)
    ids = {kind: str(made[kind].id) for kind in kinds}
    home_id = str(made["home"].id)
    rows = {kind: {k: v for k, v in _columns(made[kind]).items() if k != "id"} for kind in kinds}
    snapshot = {kind: db.session.scalar(sa.select(SyncSnapshot.data).where(
        SyncSnapshot.entity == kind, SyncSnapshot.record_id == ids[kind])) for kind in kinds}
    missing = [kind for kind, text in snapshot.items() if text is None]
    if missing:
        raise RuntimeError(f"no stored snapshot of the template {missing}: the commit hook did not store one")
    number = rows["permit"]["number"]
    prefix = number.rsplit("-", 1)[0]
    permit_texts = {"number": number, "address": rows["permit"]["site_address"], "parcel": rows["permit"]["parcel_id"],
                    "owner": rows["permit"]["owner_name"]}
    permit_ids = [home_id, ids["permit"]]
    # The parties filing names (owner, applicant): each permit copy gets its own, as filing gives it.
    parties = [{k: v for k, v in _columns(p).items()} for p in db.session.scalars(
        sa.select(Party).where(Party.permit_id == ids["permit"]))]
    db.session.remove()

    def permit_copy(n: int) -> tuple[dict, dict]:
        lat, lon = round(41.55 + (n % 100) * 0.002, 6), round(-70.95 + (n // 100) * 0.0005, 6)
        new = {"id": str(uuid.uuid4()), "number": f"{prefix}-{100000 + n}"[:20],
               "address": f"{n} County Road, Fairhaven, MA 02719", "parcel": f"70-{n:05d}", "owner": f"Owner {n}"}
        row = {**rows["permit"], "id": new["id"], "number": new["number"], "site_address": new["address"],
               "parcel_id": new["parcel"], "owner_name": new["owner"], "site_lat": lat, "site_lon": lon}
        own = [{**p, "id": str(uuid.uuid4()), "permit_id": new["id"],
                **({"name": new["owner"]} if p["role"] == "owner" else {})} for p in parties]
        row["_parties"] = own
        swaps = {_quoted(ids["permit"]): _quoted(new["id"]),
                 **{_quoted(p["id"]): _quoted(o["id"]) for p, o in zip(parties, own)},
                 **{_quoted(permit_texts[k]): _quoted(new[k]) for k in permit_texts},
                 json.dumps(PERMIT_POINT[0]): json.dumps(lat), json.dumps(PERMIT_POINT[1]): json.dumps(lon)}
        return row, swaps

    def write(kind: str, items: list[tuple[dict, dict]]) -> None:
        """Rows by bulk INSERT; the feed numbers them at COMMIT (touch_row); then each snapshot at
        its number."""
        model = models[kind]
        for start in range(0, len(items), batch):
            chunk = items[start:start + batch]
            db.session.execute(sa.insert(model), [{k: v for k, v in row.items() if k != "_parties"} for row, _ in chunk])
            children = [p for row, _ in chunk for p in row.get("_parties", [])]
            if children:
                db.session.execute(sa.insert(Party), children)
            for row, _swaps in chunk:
                touch_row(model, row["id"], row["id"] if kind == "permit" else row["permit_id"])
            db.session.commit()
            by_id = {row["id"]: swaps for row, swaps in chunk}
            found = []
            for part in range(0, len(chunk), 500):
                wanted = [row["id"] for row, _ in chunk[part:part + 500]]
                found += db.session.execute(sa.select(SyncChange.record_id, SyncChange.seq).where(
                    SyncChange.entity == kind, SyncChange.record_id.in_(wanted))).all()
            snaps = []
            for record_id, seq in found:
                text = snapshot[kind]
                for old, new in by_id[record_id].items():
                    text = text.replace(old, new)
                snaps.append({"entity": kind, "record_id": record_id, "seq": seq, "data": text})
            db.session.execute(sa.insert(SyncSnapshot), snaps)
            db.session.commit()

    permit_rows = [permit_copy(n) for n in range(2, permits)]
    write("permit", permit_rows)
    permit_ids += [row["id"] for row, _ in permit_rows]
    del permit_rows

    # Field records: all entry authorizations first, then inspections, findings, samples, so each
    # row's parent exists when it goes in (the order a season of visits would also give).
    field: dict[str, list[tuple[dict, dict]]] = {kind: [] for kind in kinds if kind != "permit"}
    left = records - 4  # the templates' own four
    n = 0
    while left > 0:
        permit_id = permit_ids[n % len(permit_ids)]
        visit, swaps = [], {_quoted(home_id): _quoted(permit_id)}
        for kind in FIELD_MIX:
            if left <= 0:
                break
            new_id = str(uuid.uuid4())
            if _quoted(ids[kind]) not in swaps:  # the visit's first of its kind stands for the template
                swaps[_quoted(ids[kind])] = _quoted(new_id)
            visit.append((kind, {**rows[kind], "id": new_id, "permit_id": permit_id}))
            left -= 1
        parent = {kind: json.loads(swaps[_quoted(ids[kind])]) for kind in kinds if _quoted(ids[kind]) in swaps}
        for kind, row in visit:
            if kind in ("inspection", "sample"):
                row["entry_authorization_id"] = parent["entry_authorization"]
            if kind == "finding":
                row["inspection_id"] = parent["inspection"]
            # Every id of the visit is known now (an inspection's dump holds its finding); a second
            # sample keeps its own id.
            field[kind].append((row, {**swaps, _quoted(ids[kind]): _quoted(row["id"])}))
        n += 1
    for kind in ("entry_authorization", "inspection", "finding", "sample"):
        write(kind, field[kind])
    _check(models, {kind: [field[kind][0][0]["id"], field[kind][-1][0]["id"]] for kind in field if field[kind]}
           | {"permit": permit_ids[2:3] + permit_ids[-1:] if permits > 2 else []})
    return County(supervisor_email, inspector_email, permit_ids, records, permit_ids[0])


def _check(models: dict, sample_ids: dict[str, list[str]]) -> None:
    """Copies dumped live by their own domain must equal the snapshots stored for them."""
    from inspect_api.extensions import db
    from inspect_api.sync import registry
    from inspect_api.sync.models import SyncSnapshot
    from inspect_api.sync.snapshots import to_json
    for kind, record_ids in sample_ids.items():
        for record_id in record_ids:
            live = json.loads(to_json(registry.get(kind).dump(db.session.get(models[kind], record_id))))
            stored = json.loads(db.session.scalar(sa.select(SyncSnapshot.data).where(
                SyncSnapshot.entity == kind, SyncSnapshot.record_id == record_id)))
            if live != stored:
                differ = sorted(k for k in set(live) | set(stored) if live.get(k) != stored.get(k))
                raise RuntimeError(f"seeded {kind} {record_id}: snapshot differs from its live dump in {differ}")
    db.session.remove()
