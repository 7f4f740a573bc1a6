"""The push lane (lanes.py, README "Busy moments"): one process applies SYNC_PUSH_AT_ONCE batches at
once, lets SYNC_PUSH_WAITING more wait for a turn without holding a transaction, and answers any other
503 sync_busy with Retry-After, having applied and recorded nothing, so the device sends it again."""
from __future__ import annotations

import threading
import time
from contextlib import contextmanager
from typing import Iterator

import pytest
from sqlalchemy import event, func, select
from sqlalchemy.orm import Session

from inspect_api import lanes
from inspect_api.auth.models import User
from inspect_api.auth.services import revoke_sessions
from inspect_api.entry.models import EntryAuthorization
from inspect_api.extensions import db
from inspect_api.sync.models import SyncMutation

from .conftest import API, create, entry_data


def _count(model) -> int:
    return db.session.scalar(select(func.count()).select_from(model))


def _push_lane(app) -> lanes.Lane:
    config = app.config
    return lanes.lane("sync_push", config["SYNC_PUSH_AT_ONCE"], config["SYNC_PUSH_WAITING"])


def test_a_push_past_the_line_is_refused_with_retry_after_and_applies_nothing(site, app):
    app.config.update(SYNC_PUSH_AT_ONCE=1, SYNC_PUSH_WAITING=0, SYNC_PUSH_RETRY_SECONDS=3)
    tablet = site.tablet()
    batch = [create("entry_authorization", entry_data(site.permit.id)) for _ in range(2)]
    lane = _push_lane(app)
    assert lane.acquire(0)  # another device's batch is being applied
    try:
        response = site.client.post(f"{API}/sync/push", json={"device_id": tablet.device_id, "mutations": batch},
                                    headers=tablet.headers)
    finally:
        lane.release()
    assert response.status_code == 503
    assert response.headers["Retry-After"] == "3"
    body = response.get_json()
    assert body == {"code": 503, "status": "Service Unavailable", "error": "sync_busy", "message": body["message"],
                    "errors": {"retry_after_s": [3]}}
    assert "nothing of this batch was applied" in body["message"]
    assert _count(EntryAuthorization) == 0 and _count(SyncMutation) == 0  # not applied, not even claimed
    # the same batch, sent again once the turn is free, is applied as new
    assert [r["status"] for r in tablet.push(batch)] == ["applied", "applied"]
    assert _count(EntryAuthorization) == 2


@contextmanager
def _a_push_waiting(app, tablet, batch) -> Iterator[list]:
    """The batch sent from another thread while this test holds the lane's one turn: in the block, the
    push waits in line; after it, the turn was given back and the push's (status, body) answered."""
    lane = _push_lane(app)
    assert lane.acquire(0)
    answers: list = []

    def send():
        response = app.test_client().post(f"{API}/sync/push", json={"device_id": tablet.device_id, "mutations": batch},
                                          headers=tablet.headers)
        answers.append((response.status_code, response.get_json()))

    sender = threading.Thread(target=send)
    sender.start()
    try:
        _until(lambda: lane.in_line == 1, "the push never reached the lane")
        yield answers
    finally:
        lane.release()
        sender.join(timeout=30)


def _until(condition, failure: str) -> None:
    deadline = time.monotonic() + 30
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.005)
    assert condition(), failure


def test_a_push_waits_for_its_turn_holding_no_connection_then_applies(site, app):
    app.config.update(SYNC_PUSH_AT_ONCE=1, SYNC_PUSH_WAITING=1, SYNC_PUSH_WAIT_SECONDS=30)
    tablet = site.tablet()
    batch = [create("entry_authorization", entry_data(site.permit.id))]
    db.session.commit()
    db.session.close()  # this test's own connection back in the pool
    with _a_push_waiting(app, tablet, batch) as answers:
        # Signed in (its session and device were read), it now waits holding no connection: no
        # transaction, no snapshot, and on SQLite no write lock kept from the batch being applied.
        assert db.engine.pool.checkedout() == 0
        assert not answers
    assert answers and answers[0][0] == 200, answers
    assert [r["status"] for r in answers[0][1]["results"]] == ["applied"]
    assert _count(EntryAuthorization) == 1


def test_a_push_whose_wait_runs_out_is_refused(site, app):
    app.config.update(SYNC_PUSH_AT_ONCE=1, SYNC_PUSH_WAITING=1, SYNC_PUSH_WAIT_SECONDS=1)
    tablet = site.tablet()
    lane = _push_lane(app)
    assert lane.acquire(0)
    try:
        body = tablet.push([create("entry_authorization", entry_data(site.permit.id))], status=503)
    finally:
        lane.release()
    assert body["error"] == "sync_busy" and body["errors"] == {"retry_after_s": [2]}
    assert lane.in_line == 0 and _count(SyncMutation) == 0


def test_the_turn_is_held_through_the_commit_and_given_back_after_any_answer(site, app):
    app.config.update(SYNC_PUSH_AT_ONCE=1, SYNC_PUSH_WAITING=0)
    tablet = site.tablet()
    lane = _push_lane(app)
    free_at_commit: list[bool] = []

    def at_commit(_session):
        took = lane.acquire(0)
        if took:
            lane.release()
        free_at_commit.append(took)

    event.listen(Session, "before_commit", at_commit)
    try:
        tablet.push([create("entry_authorization", entry_data(site.permit.id))])
    finally:
        event.remove(Session, "before_commit", at_commit)
    # the COMMIT (change feed, snapshots: CPU as well) is part of the turn
    assert free_at_commit and not any(free_at_commit), free_at_commit
    tablet.push([{"mutation_id": "not a uuid"}])  # every mutation rejected: still answered, turn given back
    over = app.config["SYNC_MAX_BATCH"] + 1
    tablet.push([create("entry_authorization", entry_data(site.permit.id)) for _ in range(over)], status=413)
    assert lane.acquire(0), "a turn was kept after its request ended"
    lane.release()


def test_the_turn_is_given_back_when_the_rollback_of_a_failed_request_fails_too(site, app, monkeypatch):
    """The request's teardowns run one after another: a rollback that raises (a connection gone) is
    logged and the turn is still given back, or this process would answer sync_busy until restarted."""
    app.config.update(SYNC_PUSH_AT_ONCE=1, SYNC_PUSH_WAITING=0)
    lane = _push_lane(app)
    with app.test_request_context("/api/v1/sync/push", method="POST"):
        lanes.take_turn_for_request("sync_push", 1, 0, lambda: AssertionError("no turn"), waiting=0)
        assert not lane.acquire(0)  # held by this request

        def gone():
            raise ConnectionError("the connection is gone")

        monkeypatch.setattr(db.session, "rollback", gone)
        app.do_teardown_request(RuntimeError("the request failed"))
    assert lane.acquire(0), "the turn was kept after its request ended"
    lane.release()


def test_a_turn_given_back_goes_to_the_first_in_line_not_to_a_newcomer():
    """First come, first served: the turn given back goes straight to the first request in line, so one
    arriving at that moment finds none (and the second in line gets the turn after the first)."""
    lane = lanes.Lane(1, 2)
    assert lane.acquire(0)
    order: list[str] = []

    def wait_in_line(name: str) -> None:
        if lane.acquire(30):
            order.append(name)
            lane.release()

    first, second = (threading.Thread(target=wait_in_line, args=(name,)) for name in ("first", "second"))
    for n, waiting in enumerate((first, second), start=1):
        waiting.start()
        _until(lambda: lane.in_line == n, f"request {n} never reached the line")
    lane.release()
    assert not lane.acquire(0)  # the newcomer: the turn is the first's already
    first.join(timeout=30)
    second.join(timeout=30)
    assert order == ["first", "second"] and lane.in_line == 0
    assert lane.acquire(0)
    lane.release()
    with pytest.raises(ValueError):
        lane.release()  # no turn is given back twice


def test_a_wait_that_runs_out_leaves_the_line_and_the_turn_is_not_lost():
    lane = lanes.Lane(1, 1)
    assert lane.acquire(0)
    assert lane.acquire(0.05) is False and lane.in_line == 0
    assert lane.acquire(0) is False  # still held by the first
    lane.release()
    assert lane.acquire(0)
    lane.release()


@pytest.mark.parametrize("meanwhile, status, error", [
    ("the session is revoked", 401, "token_revoked"), ("the account is disabled", 401, "unauthorized")])
def test_a_push_that_waited_is_signed_in_again_before_it_applies(site, app, meanwhile, status, error):
    """Signing in is checked on the way in; a push then waiting up to SYNC_PUSH_WAIT_SECONDS for its turn
    is checked again once it has it: revoked or disabled meanwhile, it applies and records nothing."""
    app.config.update(SYNC_PUSH_AT_ONCE=1, SYNC_PUSH_WAITING=1, SYNC_PUSH_WAIT_SECONDS=30)
    tablet = site.tablet()
    batch = [create("entry_authorization", entry_data(site.permit.id))]
    inspector_id = site.inspector.id
    db.session.commit()
    db.session.close()
    with _a_push_waiting(app, tablet, batch) as answers:
        if meanwhile == "the session is revoked":
            revoke_sessions(user_id=inspector_id)
        else:
            db.session.get(User, inspector_id).active = False
        db.session.commit()
    assert answers and answers[0][0] == status, answers
    assert answers[0][1]["error"] == error and answers[0][1]["code"] == status
    assert _count(EntryAuthorization) == 0 and _count(SyncMutation) == 0
    lane = _push_lane(app)
    assert lane.acquire(0), "the refused push kept its turn"
    lane.release()
