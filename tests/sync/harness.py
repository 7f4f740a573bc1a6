"""Replaying devices' outboxes against the server with injected faults.

`Oracle` is a plain model of the push contract (API.md "Sync"): it sees every batch the server
processed, in the same order, and says what each mutation must answer and what each record must
hold. `Device` is a tablet's client: an outbox drained in batches, items leaving it only on an
answer it has read (applied/duplicate done, conflict kept for the user, a rejection caused by
order retried under a new mutation id). `Scenario` builds random outboxes and a send plan with
faults from a seed; `check` compares the server's records, audit trail and conflicts with the oracle.
"""
from __future__ import annotations

import random
import uuid
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable

from .conftest import create, edit, entry_data, inspection_data

TRACKED = {"entry_authorization": ("granted_by_name", "notes"), "inspection": ("notes",)}
RETRYABLE = ("not_found", "entry_not_authorized")


@dataclass
class Rec:
    entity: str
    version: int
    data: dict


@dataclass
class Expected:
    status: str
    version: int | None
    original_status: str | None = None


class Oracle:
    def __init__(self) -> None:
        self.records: dict[str, Rec] = {}
        self.log: dict[str, Expected] = {}
        self.conflicts: dict[str, dict] = {}  # mutation id -> {record_id, data, fields}

    def apply(self, m: dict) -> Expected:
        mid = m["mutation_id"]
        if mid in self.log:
            first = self.log[mid]
            return Expected("duplicate", first.version, original_status=first.status)
        outcome = self._decide(m)
        self.log[mid] = outcome
        return outcome

    def _conflict(self, m: dict, rec: Rec) -> Expected:
        fields = sorted(k for k in TRACKED[m["entity"]] if k in m["data"] and m["data"][k] != rec.data.get(k))
        self.conflicts[m["mutation_id"]] = {"record_id": m["id"], "data": m["data"], "fields": fields}
        return Expected("conflict", rec.version)

    def _decide(self, m: dict) -> Expected:
        rec, data = self.records.get(m["id"]), m["data"]
        if m["base_version"] is None:
            if rec is not None:
                same = all(rec.data.get(k) == data[k] for k in TRACKED[m["entity"]] if k in data)
                return Expected("duplicate", rec.version) if same else self._conflict(m, rec)
            if m["entity"] == "inspection" and data["entry_authorization_id"] not in self.records:
                return Expected("rejected", None)
            self.records[m["id"]] = Rec(m["entity"], 1, {k: data.get(k) for k in TRACKED[m["entity"]]})
            return Expected("applied", 1)
        if rec is None:
            return Expected("rejected", None)
        if rec.version != m["base_version"]:
            return self._conflict(m, rec)
        rec.data.update({k: v for k, v in data.items() if k in TRACKED[m["entity"]]})
        rec.version += 1
        return Expected("applied", rec.version)

    def resolve(self, mutation_id: str, take_device: bool) -> None:
        conflict = self.conflicts[mutation_id]
        if take_device and conflict["fields"]:
            rec = self.records[conflict["record_id"]]
            rec.data.update({k: conflict["data"][k] for k in conflict["fields"]})
            rec.version += 1


@dataclass
class Device:
    name: str
    user_id: str
    device_id: str
    headers: dict
    outbox: list = field(default_factory=list)
    known: dict = field(default_factory=dict)  # record id -> the version the device expects next
    own: list = field(default_factory=list)
    entries: list = field(default_factory=list)
    conflicts: list = field(default_factory=list)
    original: dict = field(default_factory=dict)  # record id -> the data it was created with
    cursor: str | None = None  # kept across scenarios, like a tablet that keeps syncing
    held: dict = field(default_factory=dict)

    def reset(self) -> None:
        self.outbox, self.known, self.own, self.entries, self.conflicts, self.original = [], {}, [], [], [], {}

    def add_entry(self, permit_id: str, rng: random.Random) -> str:
        record_id = str(uuid.uuid4())
        data = entry_data(permit_id, granted_by_name=f"Owner {rng.randrange(10**6)}")
        self.outbox.append(create("entry_authorization", data, record_id))
        self.known[record_id], self.original[record_id] = 1, data
        self.own.append(record_id)
        self.entries.append(record_id)
        return record_id

    def add_inspection(self, permit_id: str, entry_id: str) -> str:
        record_id = str(uuid.uuid4())
        self.outbox.append(create("inspection", inspection_data(permit_id, entry_id), record_id))
        self.known[record_id] = 1
        self.own.append(record_id)
        return record_id

    def add_edit(self, entity: str, record_id: str, rng: random.Random) -> None:
        keys = [k for k in TRACKED[entity] if rng.random() < 0.7] or [TRACKED[entity][-1]]
        data = {k: f"{k} {rng.randrange(10**6)}" for k in keys}
        self.outbox.append(edit(entity, record_id, self.known[record_id], data))
        self.known[record_id] += 1

    def handle(self, sent: list[dict], results: list[dict], stats: Counter) -> None:
        """Act on answers the device has read: only then does an item leave the outbox."""
        for mutation, result in zip(sent, results):
            status = result.get("original_status") if result["status"] == "duplicate" and "original_status" in result \
                else result["status"]
            if mutation not in self.outbox:
                continue
            self.outbox.remove(mutation)
            if status in ("applied", "duplicate"):
                continue
            if status == "conflict":
                self.conflicts.append(mutation["mutation_id"])
            elif status == "rejected" and result.get("error") in RETRYABLE:
                self.outbox.append({**mutation, "mutation_id": str(uuid.uuid4())})  # retry = a new mutation
                stats["retried after an order-caused rejection"] += 1
            else:
                raise AssertionError(f"unexpected answer {result} for {mutation}")


def compare(expected: list[Expected], results: list[dict], context: str) -> None:
    assert len(results) == len(expected), context
    for exp, got in zip(expected, results):
        want = {"status": exp.status, "version": exp.version, "original_status": exp.original_status}
        have = {"status": got["status"], "version": got.get("version"), "original_status": got.get("original_status")}
        assert have == want, f"{context}: expected {want}, server answered {got}"


def chunks(items: list, rng: random.Random) -> list[list]:
    out, i = [], 0
    while i < len(items):
        size = rng.randint(1, 4)
        out.append(items[i:i + size])
        i += size
    return out


@dataclass
class Send:
    device: Device
    batch: list
    drop: bool = False  # the server commits, the answer never reaches the device


def plan(devices: list[Device], rng: random.Random, stats: Counter) -> list[Send]:
    """Batches of each device's outbox, interleaved across devices, with faults injected."""
    queues = []
    for device in devices:
        batches = chunks(list(device.outbox), rng)
        if len(batches) >= 2 and rng.random() < 0.3:
            i, j = rng.sample(range(len(batches)), 2)
            batches[i], batches[j] = batches[j], batches[i]
            stats["batches reordered"] += 1
        queues.append([Send(device, b) for b in batches])
    sends: list[Send] = []
    while any(queues):
        queue = rng.choice([q for q in queues if q])
        send = queue.pop(0)
        roll = rng.random()
        if roll < 0.15:
            sends += [Send(send.device, send.batch, drop=True), send]
            stats["answer lost after commit, batch resent"] += 1
        elif roll < 0.25:
            sends += [send, Send(send.device, send.batch)]
            stats["same batch sent twice"] += 1
        else:
            sends.append(send)
    if len(devices) > 1 and sum(1 for q in devices if q.outbox) > 1:
        stats["two devices pushing interleaved"] += 1
    return sends


def execute(sends: list[Send], push: Callable[[Device, list], list], oracle: Oracle, stats: Counter) -> None:
    for send in sends:
        expected = [oracle.apply(m) for m in send.batch]
        results = push(send.device, send.batch)
        compare(expected, results, f"{send.device.name} batch")
        if not send.drop:
            send.device.handle(send.batch, results, stats)


def drain(devices: list[Device], push, oracle: Oracle, stats: Counter) -> None:
    for _ in range(6):
        pending = [d for d in devices if d.outbox]
        if not pending:
            return
        for device in pending:
            batch = list(device.outbox)
            expected = [oracle.apply(m) for m in batch]
            results = push(device, batch)
            compare(expected, results, f"{device.name} drain")
            device.handle(batch, results, stats)
    raise AssertionError("outboxes never drained: " + ", ".join(str(d.outbox) for d in devices if d.outbox))


def offline_work(devices: list[Device], permit_id: str, shared: str | None, rng: random.Random,
                 stats: Counter) -> None:
    """Each device records new authorizations (and maybe an inspection) and edits its own and the
    shared record, predicting versions as a tablet does (create = 1, each edit + 1)."""
    for device in devices:
        for _ in range(rng.randint(0, 3)):
            device.add_entry(permit_id, rng)
        if device.entries and rng.random() < 0.4:
            device.add_inspection(permit_id, rng.choice(device.entries))
            stats["inspection resting on an authorization from the same outbox"] += 1
        editable = [(("inspection" if r not in device.entries else "entry_authorization"), r) for r in device.own]
        for _ in range(rng.randint(0, 3) if editable else 0):
            entity, record_id = rng.choice(editable)
            device.add_edit(entity, record_id, rng)
        if shared and rng.random() < 0.8:
            device.add_edit("entry_authorization", shared, rng)
    if shared and sum(1 for d in devices if any(m["id"] == shared for m in d.outbox)) == 2:
        stats["two devices editing one record"] += 1


def replay_creates(devices: list[Device], rng: random.Random, stats: Counter) -> None:
    """An app reinstalled from a backup resends creates under new mutation ids."""
    for device in devices:
        for record_id in device.entries:
            if rng.random() < 0.15:
                device.outbox.append({"mutation_id": str(uuid.uuid4()), "entity": "entry_authorization",
                                      "id": record_id, "op": "upsert", "base_version": None,
                                      "data": device.original[record_id]})
                stats["create replayed under a new mutation id"] += 1


def server_state(rows: list[tuple[str, str, int, dict]]) -> dict[str, tuple]:
    return {rid: (entity, version, data) for entity, rid, version, data in rows}


def oracle_state(oracle: Oracle) -> dict[str, tuple]:
    return {rid: (rec.entity, rec.version, dict(rec.data)) for rid, rec in oracle.records.items()}


def conflict_state(conflicts: list[dict]) -> dict[str, tuple]:
    return {c["mutation_id"]: (c["record_id"], c["device_version"]["data"], c["fields"]) for c in conflicts}


def oracle_conflicts(oracle: Oracle) -> dict[str, tuple]:
    return {mid: (c["record_id"], c["data"], c["fields"]) for mid, c in oracle.conflicts.items()}


def tracked_of(entity: str, data: dict[str, Any]) -> dict:
    return {k: data.get(k) for k in TRACKED[entity]}
