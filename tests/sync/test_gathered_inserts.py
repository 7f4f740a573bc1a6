"""records.add_new: a new record with what its INSERT would give it set at once (id, version, the
server's times), flushed at once as any create, or, inside records.inserts_deferred (a push batch's
try), left for the next flush so that a run of creates goes to the database in one statement."""
from __future__ import annotations

import uuid
from datetime import timedelta

from sqlalchemy import func, select

from inspect_api import clock, records
from inspect_api.auth.models import User
from inspect_api.entry.models import EntryAuthorization
from inspect_api.extensions import db

from .conftest import T0


def _stored(model, record_id: str) -> int:
    """Rows with this id in the database, without flushing what the session holds."""
    with db.session.no_autoflush:
        return db.session.scalar(select(func.count()).select_from(model).where(model.id == record_id))


def _authorization(site, **values) -> EntryAuthorization:
    return EntryAuthorization(permit_id=site.permit.id, basis="permit_condition", granted_by_name="Pat Owner",
                              granted_by_relation="owner", valid_from=T0 - timedelta(days=1),
                              valid_to=T0 + timedelta(days=30), created_by=site.inspector.id, **values)


def test_a_record_is_given_its_defaults_and_flushed_at_once(site):
    before = clock.now()
    record = _authorization(site)
    records.add_new(record)
    assert uuid.UUID(record.id) and record.version == 1 and record.scope == []
    assert before <= record.created_at <= record.updated_at <= clock.now()
    assert _stored(EntryAuthorization, record.id) == 1
    db.session.expire(record)
    assert record.version == 1 and record.scope == []  # as stored


def test_values_given_are_kept(site):
    record = _authorization(site, id=str(uuid.uuid4()), scope=["sampling"], version=3)
    records.add_new(record)
    db.session.expire(record)
    assert (record.version, record.scope) == (3, ["sampling"])


def test_inside_a_gathering_the_insert_waits_for_the_next_flush_and_the_id_is_found(site):
    record_id = str(uuid.uuid4())
    with records.known_records(EntryAuthorization, [record_id]) as found, records.inserts_deferred():
        assert found == {} and records.get_existing(EntryAuthorization, record_id) is None  # known absent: no read
        record = _authorization(site, id=record_id)
        records.add_new(record)
        assert record.version == 1 and _stored(EntryAuthorization, record_id) == 0
        assert records.get_existing(EntryAuthorization, record_id) is record  # its read inserts it first
        assert _stored(EntryAuthorization, record_id) == 1


def test_a_rollback_makes_an_added_id_absent_again(site):
    record_id = str(uuid.uuid4())
    with records.known_records(EntryAuthorization, [record_id]), records.inserts_deferred():
        savepoint = db.session.begin_nested()
        records.add_new(_authorization(site, id=record_id))
        savepoint.rollback()
        assert records.get_existing(EntryAuthorization, record_id) is None
    assert _stored(EntryAuthorization, record_id) == 0


def test_what_another_kind_left_pending_is_flushed_before_the_new_record_is_added(site):
    """The unit of work orders two kinds' INSERTs by their relationships, not by their foreign keys:
    a pending record of another kind (here a user the new record names) goes in first, on its own."""
    user = User(email=f"{uuid.uuid4().hex[:8]}@example.org", name="New Inspector", role="inspector",
                password_hash="x")
    with records.inserts_deferred():
        db.session.add(user)
        db.session.flush()  # its id
        db.session.add(User(email=f"{uuid.uuid4().hex[:8]}@example.org", name="Pending", role="inspector",
                            password_hash="x"))
        pending = next(iter(db.session.new))
        record = _authorization(site)
        record.created_by = user.id
        records.add_new(record)
        assert _stored(User, pending.id) == 1 and _stored(EntryAuthorization, record.id) == 0
        assert list(db.session.new) == [record]
        db.session.flush()
    assert _stored(EntryAuthorization, record.id) == 1


def test_the_gathering_ends_with_its_block(site):
    with records.inserts_deferred():
        with records.inserts_deferred():
            pass
        record = _authorization(site)
        records.add_new(record)
        assert _stored(EntryAuthorization, record.id) == 0  # still gathering after the inner block
        db.session.flush()
    record = _authorization(site)
    records.add_new(record)
    assert _stored(EntryAuthorization, record.id) == 1
