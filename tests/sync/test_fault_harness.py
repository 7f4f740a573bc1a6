"""The fault harness (API.md "Sync"): hundreds of seeded scenarios replaying devices' outboxes with faults.

In process (the test client): answers lost after the server committed (the device resends the
batch), the same batch sent twice, batches reordered, two devices pushing interleaved and editing
one record, creates replayed under new mutation ids. Against a real server process: the process
SIGKILLed in the middle of a batch, restarted, and the batch resent.

After every scenario: the server holds exactly the records the oracle says the devices' accepted
mutations made (each once: one create in the audit log), every conflict is listed by
GET /sync/conflicts with the device's data, each device's answers matched the contract, and every
device converges to the server's records on its next pull.
"""
from __future__ import annotations

import http.client
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from pathlib import Path

import pytest
from sqlalchemy import func, select

from inspect_api.audit import AuditEntry
from inspect_api.entry.models import EntryAuthorization
from inspect_api.extensions import db
from inspect_api.inspections.models import Inspection

from . import harness
from .conftest import API, create, edit, entry_data

# Minutes of replayed outboxes and a killed server process: `-m "not slow"` leaves them out.
pytestmark = pytest.mark.slow

SCENARIOS = int(os.environ.get("SYNC_HARNESS_SCENARIOS", "300"))
PG_SCENARIOS = int(os.environ.get("SYNC_HARNESS_PG_SCENARIOS", "200"))
KILL_SCENARIOS = int(os.environ.get("SYNC_HARNESS_KILL_SCENARIOS", "6"))
ROOT = Path(__file__).resolve().parents[2]


class Town:
    """The users and tablets every scenario reuses; each scenario gets its own permit."""

    def __init__(self, client, factory) -> None:
        self.client, self.factory = client, factory
        self.supervisor = factory.user("supervisor")
        self.applicant = factory.user("applicant")
        self.sup_headers = factory.headers(self.supervisor)
        self.inspectors = [factory.user("inspector"), factory.user("inspector")]
        a, b = self.inspectors
        self.devices = {}
        for name, user in (("A1", a), ("A2", a), ("B1", b)):
            device_id = f"{name}-{uuid.uuid4().hex[:6]}"
            self.devices[name] = harness.Device(name, user.id, device_id, factory.headers(user, device_id=device_id))

    def permit(self):
        """A permit with both inspectors assigned, made in one transaction."""
        from inspect_api.permits import services
        permit, _ = services.create_permit(self.applicant, self.factory.permit_payload())
        services.force_status(permit, "issued")
        for inspector in self.inspectors:
            services.assign_inspector(permit, inspector.id, self.supervisor)
        db.session.commit()
        return permit

    def push(self, device: harness.Device, batch: list) -> list:
        response = self.client.post(f"{API}/sync/push", json={"device_id": device.device_id, "mutations": batch},
                                    headers=device.headers)
        assert response.status_code == 200, response.get_json()
        return response.get_json()["results"]

    def pull(self, device: harness.Device) -> None:
        while True:
            query = {"cursor": device.cursor} if device.cursor else {}
            response = self.client.get(f"{API}/sync/pull", query_string=query,
                                       headers={**device.headers, "X-Device-Id": device.device_id})
            assert response.status_code == 200, response.get_json()
            page = response.get_json()
            for change in page["changes"]:
                key = (change["entity"], change["id"])
                if change["op"] == "delete":
                    device.held.pop(key, None)
                else:
                    device.held[key] = change
            device.cursor = page["cursor"]
            if not page["has_more"]:
                return

    def conflicts(self, permit_id: str) -> list[dict]:
        response = self.client.get(f"{API}/sync/conflicts", query_string={"permit_id": permit_id},
                                   headers=self.sup_headers)
        assert response.status_code == 200
        return response.get_json()


def server_records(permit_id: str) -> dict:
    rows = []
    for model in (EntryAuthorization, Inspection):
        for record in db.session.scalars(select(model).where(model.permit_id == permit_id)):
            rows.append((model.__sync_entity__, record.id, record.version,
                         harness.tracked_of(model.__sync_entity__, {k: getattr(record, k) for k in
                                                                    harness.TRACKED[model.__sync_entity__]})))
    creates = dict(db.session.execute(
        select(AuditEntry.record_id, func.count()).where(
            AuditEntry.permit_id == permit_id,
            AuditEntry.action.in_(("entry_authorization.create", "inspection.create")))
        .group_by(AuditEntry.record_id)).all())
    db.session.commit()  # end the read transaction (SQLite: it holds the write lock)
    return {"records": harness.server_state(rows), "creates": creates}


def check(town: Town, permit_id: str, oracle: harness.Oracle, devices: list[harness.Device], context: str) -> None:
    state = server_records(permit_id)
    assert state["records"] == harness.oracle_state(oracle), context
    assert state["creates"] == {rid: 1 for rid in oracle.records}, f"{context}: a record was created twice"
    surfaced = town.conflicts(permit_id)
    assert harness.conflict_state(surfaced) == harness.oracle_conflicts(oracle), context
    device_conflicts = [mid for d in devices for mid in d.conflicts]
    assert sorted(device_conflicts) == sorted(oracle.conflicts), f"{context}: a device missed a conflict"
    for device in devices:
        town.pull(device)
        held = {rid: change["version"] for (entity, rid), change in device.held.items()
                if entity in harness.TRACKED and change["data"]["permit_id"] == permit_id}
        assert held == {rid: rec.version for rid, rec in oracle.records.items()}, f"{context}: {device.name} diverged"


def resolve_all(town: Town, permit_id: str, oracle: harness.Oracle, devices, rng, stats) -> None:
    by_mutation = {c["mutation_id"]: c for c in town.conflicts(permit_id)}
    for device in devices:
        for mid in device.conflicts:
            take = rng.random() < 0.5
            record_id = oracle.conflicts[mid]["record_id"]
            body = {"resolution": "take_device" if take else "keep_server",
                    "version": oracle.records[record_id].version}
            response = town.client.post(f"{API}/sync/conflicts/{by_mutation[mid]['id']}/resolve", json=body,
                                        headers=device.headers)
            assert response.status_code == 200, response.get_json()
            oracle.resolve(mid, take)
            stats["conflicts resolved"] += 1
    assert all(c["status"] == "resolved" for c in town.conflicts(permit_id))


def run_scenario(town: Town, seed: int, stats: Counter) -> None:
    rng = random.Random(seed)
    permit = town.permit()
    devices = [town.devices["A1"], town.devices[rng.choice(("A2", "B1"))]]
    for device in devices:
        device.reset()
    oracle = harness.Oracle()
    shared = None
    if rng.random() < 0.6:  # a record both devices hold before going offline
        shared = devices[0].add_entry(permit.id, rng)
        harness.execute([harness.Send(devices[0], list(devices[0].outbox))], town.push, oracle, stats)
        devices[0].own.remove(shared)
        devices[0].entries.remove(shared)
        for device in devices:
            town.pull(device)
            device.known[shared] = 1
    harness.offline_work(devices, permit.id, shared, rng, stats)
    harness.replay_creates(devices, rng, stats)
    harness.execute(harness.plan(devices, rng, stats), town.push, oracle, stats)
    harness.drain(devices, town.push, oracle, stats)
    stats["conflicts surfaced"] += len(oracle.conflicts)
    check(town, permit.id, oracle, devices, f"seed {seed}")
    if oracle.conflicts and rng.random() < 0.4:
        resolve_all(town, permit.id, oracle, devices, rng, stats)
        check(town, permit.id, oracle, devices, f"seed {seed} after resolving")


def test_fault_harness_in_process(client, factory, is_postgres):
    town = Town(client, factory)
    stats: Counter = Counter()
    count = PG_SCENARIOS if is_postgres else SCENARIOS
    started = time.monotonic()
    for seed in range(count):
        run_scenario(town, seed, stats)
    faults = {k: v for k, v in stats.items() if k not in ("conflicts surfaced", "conflicts resolved")}
    print(f"\nsync fault harness: {count} scenarios, {sum(faults.values())} faults injected in "
          f"{time.monotonic() - started:.0f}s")
    for name, n in sorted(stats.items()):
        print(f"  {n:5d}  {name}")
    assert count >= 100
    for kind in ("answer lost after commit, batch resent", "same batch sent twice", "batches reordered",
                 "two devices editing one record", "two devices pushing interleaved",
                 "create replayed under a new mutation id", "retried after an order-caused rejection"):
        assert stats[kind] >= count // 20, f"too few '{kind}' faults: {stats[kind]}"
    assert stats["conflicts surfaced"] >= count // 10 and stats["conflicts resolved"] > 0


# --- a real server process, killed in the middle of a batch ----------------------------------------

class ServerProcess:
    def __init__(self, url: str, delay: float = 0.0, marker: Path | None = None) -> None:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        if marker:
            env["SYNC_FAULT_MARKER"] = str(marker)
        args = [sys.executable, "-m", "tests.sync.serve", url] + ([str(delay)] if delay else [])
        self.process = subprocess.Popen(args, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                        text=True)
        line = self.process.stdout.readline()
        assert line.startswith("port "), f"server did not start: {line!r}"
        self.port = int(line.split()[1])

    def request(self, method: str, path: str, body=None, headers=None, timeout: float = 30):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            conn.request(method, API + path, body=json.dumps(body) if body is not None else None,
                         headers={"Content-Type": "application/json", **(headers or {})})
            response = conn.getresponse()
            return response.status, json.loads(response.read() or b"null")
        finally:
            conn.close()

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()


def _batch(permit_id: str, rng: random.Random) -> tuple[list[dict], dict[str, int]]:
    """Creates and edits of a few records, interleaved across records, each record's own order kept."""
    per_record, versions = [], {}
    for _ in range(rng.randint(2, 5)):
        record_id = str(uuid.uuid4())
        steps = [create("entry_authorization", entry_data(permit_id, granted_by_name=f"O{rng.random()}"), record_id)]
        for version in range(1, rng.randint(1, 3)):
            steps.append(edit("entry_authorization", record_id, version, {"notes": str(rng.random())}))
        versions[record_id] = len(steps)
        per_record.append(steps)
    mutations = []
    while any(per_record):
        mutations.append(rng.choice([steps for steps in per_record if steps]).pop(0))
    return mutations, versions


def _kill_mid_batch(database_url: str, body: dict, headers: dict, marker: Path, rng: random.Random) -> None:
    """Send the batch to a server that pauses after each mutation; SIGKILL it once it is inside."""
    slow = ServerProcess(database_url, delay=0.2, marker=marker)
    answers: list = []

    def send():
        try:
            answers.append(slow.request("POST", "/sync/push", body, headers))
        except (OSError, http.client.HTTPException) as exc:
            answers.append(exc)

    sender = threading.Thread(target=send)
    sender.start()
    deadline = time.monotonic() + 30
    while not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert marker.exists(), "the server never entered the batch"
    time.sleep(rng.uniform(0, 0.2 * (len(body["mutations"]) - 1)))
    slow.kill()
    sender.join(timeout=30)
    assert isinstance(answers[0], Exception), f"the batch finished before the kill: {answers}"


def test_server_killed_mid_batch_then_resent(app, factory, database_url, tmp_path):
    """SIGKILL the server while it is inside a batch: nothing of the batch survives (one commit per
    request); the restarted server applies the resent batch exactly once, and a second resend is
    all duplicates."""
    inspector = factory.user("inspector")
    device_id = f"kill-{uuid.uuid4().hex[:6]}"
    headers = factory.headers(inspector, device_id=device_id)
    stats: Counter = Counter()
    for seed in range(KILL_SCENARIOS):
        rng = random.Random(1000 + seed)
        permit = factory.permit(status="issued")
        factory.assign(permit, inspector)
        permit_id = permit.id
        db.session.commit()  # no open transaction here while the server works (SQLite locks)
        batch, versions = _batch(permit_id, rng)
        body = {"device_id": device_id, "mutations": batch}
        _kill_mid_batch(database_url, body, headers, tmp_path / f"inside-{seed}", rng)
        stats["server killed mid-batch"] += 1
        assert server_records(permit_id)["records"] == {}, "part of a killed batch survived"
        restarted = ServerProcess(database_url)
        try:
            status, first = restarted.request("POST", "/sync/push", body, headers)
            assert status == 200, first
            assert [r["status"] for r in first["results"]] == ["applied"] * len(batch)
            status, again = restarted.request("POST", "/sync/push", body, headers)
            assert [(r["status"], r["original_status"]) for r in again["results"]] == \
                [("duplicate", "applied")] * len(batch)
        finally:
            restarted.stop()
        stats["batch resent after restart"] += 1
        state = server_records(permit_id)
        assert {rid: v for rid, (_e, v, _d) in state["records"].items()} == versions
        assert state["creates"] == {rid: 1 for rid in versions}
    print(f"\nsync kill harness: {KILL_SCENARIOS} scenarios against a real server process: "
          f"{stats['server killed mid-batch']} kills mid-batch, {stats['batch resent after restart']} resends")
    assert stats["server killed mid-batch"] == stats["batch resent after restart"] == KILL_SCENARIOS
