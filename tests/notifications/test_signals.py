"""Domain signals (inspect_api/signals.py) and the receivers notifications connects to them: every
signal that must notify is received, or the app does not start; the messages a receiver writes go
with the transaction, savepoints included; the rights trial of a sync push runs muted, and muting
holds for one context only."""
from __future__ import annotations

import threading
from contextlib import nullcontext
from pathlib import Path
from urllib.parse import urlparse

import pytest

from inspect_api import create_app, signals
from inspect_api.extensions import db
from inspect_api.notifications import receivers
from inspect_api.permits import workflow

from ..sync.conftest import create, edit, site  # noqa: F401  (fixture)
from .events_support import messages, rows


class Calls:
    """A receiver connected for one test: counts what reaches it (and lets the real ones run too)."""

    def __init__(self) -> None:
        self.senders: list = []

    def __call__(self, sender, **kwargs) -> None:
        self.senders.append(sender)


@pytest.fixture
def heard():
    connected: list[tuple[signals.DomainSignal, Calls]] = []

    def listen(signal: signals.DomainSignal) -> Calls:
        calls = Calls()
        signal.connect(calls, weak=False)
        connected.append((signal, calls))
        return calls

    yield listen
    for signal, calls in connected:
        signal.disconnect(calls)


# --- every signal that must notify is received -------------------------------------------------------
def test_every_signal_that_must_notify_has_its_notifications_receiver(app):
    assert signals.MUST_NOTIFY, "the declaration lists the signals that tell someone something"
    assert set(receivers.RECEIVERS) == set(signals.MUST_NOTIFY)
    for signal in signals.MUST_NOTIFY:
        assert receivers.RECEIVERS[signal] in signal.receivers.values(), signal.name
    assert signals.unheard() == []
    receivers.connect()  # another app in the same process connects again: still one receiver each
    assert all(list(s.receivers.values()).count(receivers.RECEIVERS[s]) == 1 for s in signals.MUST_NOTIFY)


def test_the_app_refuses_to_start_while_a_signal_that_must_notify_has_no_receiver(config, monkeypatch):
    signal = signals.bond_released
    receiver = receivers.RECEIVERS[signal]
    monkeypatch.delitem(receivers.RECEIVERS, signal)  # what connect() would otherwise put back
    signal.disconnect(receiver)
    try:
        with pytest.raises(RuntimeError, match=r"bond\.released"):
            create_app(config)
    finally:
        signal.connect(receiver, weak=False)
    assert signals.unheard() == []


# --- the messages go with the transaction --------------------------------------------------------------
def _submittable(factory):
    applicant = factory.user("applicant", email="ann@example.org")
    return applicant, factory.permit(applicant, disturbed_area_sqft=12000)


def test_a_signal_sent_in_a_rolled_back_savepoint_leaves_no_message(app, factory, heard):
    applicant, permit = _submittable(factory)
    calls = heard(signals.permit_moved)

    class Undo(Exception):
        pass

    with pytest.raises(Undo):
        with db.session.begin_nested():
            workflow.transition(applicant, permit, "submitted")
            # the receiver ran, in this transaction: the message is there until the savepoint goes
            assert rows() == [("ann@example.org", "applicant", "application_received", False, "queued")]
            raise Undo()
    assert calls.senders == [permit]
    assert messages() == []
    db.session.commit()
    assert messages() == []


def test_a_signal_sent_in_a_rolled_back_transaction_leaves_no_message(app, factory, heard):
    applicant, permit = _submittable(factory)
    calls = heard(signals.permit_moved)
    workflow.transition(applicant, permit, "submitted")
    db.session.flush()
    assert len(calls.senders) == 1 and len(messages()) == 1
    db.session.rollback()
    assert messages() == []


# --- the rights trial of a sync push is muted ----------------------------------------------------------
def _blobs(app) -> set[Path]:
    root = Path(urlparse(app.config["STORAGE_URL"]).path)
    return {p for p in root.rglob("*") if p.is_file()} if root.exists() else set()


def _order_with_a_party_left_out(site):
    """An order issued to the owner only, then bumped by the office; the site's violator is not yet a
    recipient. Returns the order's id, the owner's and the violator's party ids."""
    from inspect_api.permits.models import Party
    permit = site.permit
    owner = next(p for p in permit.parties if p.role == "owner")
    violator = Party(permit_id=permit.id, role="violator", name="Vic Violator", email="vic@example.org")
    db.session.add(violator)
    db.session.commit()
    office = site.tablet(site.supervisor)
    order = create("order", {"permit_id": permit.id, "kinds": ["controls"],
                             "requirements": [{"kind": "controls", "text": "Fix the silt fence"}],
                             "deadline": "2099-01-31", "recipient_party_ids": [owner.id]})
    result = office.push([order])[0]
    assert result["status"] == "applied", result
    bumped = office.push([edit("order", order["id"], 1, {"referral_note": "Seen by the office"})])[0]
    assert bumped["status"] == "applied" and bumped["version"] == 2, bumped
    return order["id"], owner.id, violator.id


def _stale_push_adding_the_violator(site, order_id, owner_id, violator_id):
    """A supervisor's device, still at version 1, addresses the order to the violator too: the rights
    trial runs update_order (which would send the order to the violator), then a conflict is kept."""
    device = site.tablet(site.factory.user("supervisor"))
    result = device.push([edit("order", order_id, 1, {"recipient_party_ids": [owner_id, violator_id]})])[0]
    assert result["status"] == "conflict", result
    return result


def test_the_rights_trial_of_a_stale_push_runs_no_receiver_and_writes_no_message(app, site, heard):
    order_id, owner_id, violator_id = _order_with_a_party_left_out(site)
    assert rows("order_issued", order_id) == [("owner@example.org", "owner", "order_issued", True, "queued")]
    blobs = _blobs(app)
    calls = heard(signals.order_issued)
    _stale_push_adding_the_violator(site, order_id, owner_id, violator_id)
    assert calls.senders == []  # no receiver ran: no PDF rendered, no attachment stored
    assert _blobs(app) == blobs
    assert rows("order_issued", order_id) == [("owner@example.org", "owner", "order_issued", True, "queued")]


def test_unmuted_the_same_trial_would_have_run_the_receivers(app, site, heard, monkeypatch):
    """The test above is about the mute: without it, the trial reaches the receivers (whose message the
    savepoint then takes back, but not the attachment it stored)."""
    order_id, owner_id, violator_id = _order_with_a_party_left_out(site)
    blobs = _blobs(app)
    monkeypatch.setattr(signals, "muted", nullcontext)
    calls = heard(signals.order_issued)
    _stale_push_adding_the_violator(site, order_id, owner_id, violator_id)
    assert len(calls.senders) == 1
    # Stored outside the transaction: the order's amended document (its next revision, issued) and the
    # copy attached to the violator's message. The muted trial above stores neither.
    added = sorted(p.relative_to(Path(urlparse(app.config["STORAGE_URL"]).path)).parts[0] for p in _blobs(app) - blobs)
    assert added == ["issued", "sha256"]
    assert rows("order_issued", order_id) == [("owner@example.org", "owner", "order_issued", True, "queued")]


def test_taking_the_devices_version_sends_the_order_once_not_for_its_trial(app, site, heard):
    order_id, owner_id, violator_id = _order_with_a_party_left_out(site)
    conflict = _stale_push_adding_the_violator(site, order_id, owner_id, violator_id)
    calls = heard(signals.order_issued)
    r = site.client.post(f"/api/v1/sync/conflicts/{conflict['conflict_id']}/resolve",
                         json={"resolution": "take_device"}, headers=site.headers(site.supervisor))
    assert r.status_code == 200, r.get_json()
    assert len(calls.senders) == 1  # the change itself; its rights trial (sync/rights.py) was muted
    assert rows("order_issued", order_id) == [("owner@example.org", "owner", "order_issued", True, "queued"),
                                              ("vic@example.org", "violator", "order_issued", True, "queued")]


def test_an_order_pushed_before_a_refusal_is_issued_once(app, site, heard):
    """An order created in a batch whose last mutation is refused: its document and the copy attached
    to its notice are stored outside the transaction, so the batch's try ends, kept, after it and the
    refusal does not make it be issued again: one receiver call, one issued revision, one message."""
    permit = site.permit
    owner = next(p for p in permit.parties if p.role == "owner")
    office = site.tablet(site.supervisor)
    order = create("order", {"permit_id": permit.id, "kinds": ["controls"],
                             "requirements": [{"kind": "controls", "text": "Fix the silt fence"}],
                             "deadline": "2099-01-31", "recipient_party_ids": [owner.id]})
    refused = create("order", {"permit_id": permit.id, "kinds": ["controls"], "requirements": [],
                               "deadline": "not a day", "recipient_party_ids": [owner.id]})
    blobs = _blobs(app)
    calls = heard(signals.order_issued)
    results = office.push([order, refused])
    assert [r["status"] for r in results] == ["applied", "rejected"], results
    assert results[1]["error"] == "validation_error"
    assert calls.senders and len(calls.senders) == 1
    added = sorted(p.relative_to(Path(urlparse(app.config["STORAGE_URL"]).path)).parts[0] for p in _blobs(app) - blobs)
    assert added == ["issued", "sha256"]
    assert rows("order_issued", order["id"]) == [("owner@example.org", "owner", "order_issued", True, "queued")]


# --- muting is per context -----------------------------------------------------------------------------
def test_muting_holds_only_for_the_context_that_muted():
    signal = signals.DomainSignal("test.muting")
    calls = Calls()
    signal.connect(calls, weak=False)
    muted_inside, send_done = threading.Event(), threading.Event()
    sent_while_muted: list = []

    def muted_thread():
        with signals.muted():
            muted_inside.set()
            send_done.wait(10)
            sent_while_muted.append(signal.send("muted thread"))

    other = threading.Thread(target=muted_thread)
    other.start()
    assert muted_inside.wait(10)
    assert not signals.is_muted()
    signal.send("this thread")  # while the other thread is muted, this one still reaches its receivers
    send_done.set()
    other.join(10)
    assert sent_while_muted == [[]] and calls.senders == ["this thread"]

    with signals.muted():
        assert signal.send("muted here") == []
        sender = threading.Thread(target=lambda: signal.send("another thread"))
        sender.start()
        sender.join(10)
        assert signals.is_muted()
    assert not signals.is_muted()
    signal.send("after the block")
    assert calls.senders == ["this thread", "another thread", "after the block"]
