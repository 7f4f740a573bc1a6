"""Reads neither write nor lock: a GET commits nothing, and on SQLite a read takes no write
lock, so a slow write in progress never stalls it."""
from __future__ import annotations

import time

import pytest
from sqlalchemy import func, select, text

from inspect_api.audit import AuditEntry
from inspect_api.changes import SyncChange
from inspect_api.database import request_writes
from inspect_api.extensions import db


def test_a_read_request_commits_nothing_it_changed(app, client, factory):
    """Whatever a GET handler changes is rolled back, never committed."""
    owner, headers = factory.as_role("applicant")
    permit = factory.permit(owner, description="as filed")
    db.session.commit()
    from inspect_api.permits import routes

    original = routes.services.get_permit

    def meddling_get(user, permit_id, **kw):
        record = original(user, permit_id, **kw)
        record.description = "changed by a read"
        db.session.flush()
        return record

    routes.services.get_permit = meddling_get
    try:
        r = client.get(f"/api/v1/permits/{permit.id}", headers=headers)
    finally:
        routes.services.get_permit = original
    assert r.status_code == 200
    db.session.expire_all()
    assert db.session.scalar(select(text("description")).select_from(text("permits"))) == "as filed"


def test_only_writing_requests_and_marked_reads_write(app):
    with app.test_request_context("/api/v1/permits", method="GET"):
        assert request_writes() is False
    with app.test_request_context("/api/v1/permits", method="POST"):
        assert request_writes() is True
    with app.test_request_context("/api/v1/sync/pull", method="GET"):
        assert request_writes() is True  # @writes: notes the device's last pull
    with app.app_context():
        assert request_writes() is True  # CLI and scripts


def test_a_slow_write_in_progress_does_not_stall_a_read(app, client, factory, is_postgres):
    if is_postgres:
        pytest.skip("SQLite's database-wide write lock; PostgreSQL readers never wait for writers")
    owner, headers = factory.as_role("applicant")
    permit_id = factory.permit(owner).id
    db.session.commit()
    db.session.close()
    writer = db.engine.connect()
    tx = writer.begin()  # outside a request: BEGIN IMMEDIATE, the write lock held until rollback
    try:
        writer.execute(text("UPDATE permits SET description = 'mid-write' WHERE id = :id"), {"id": permit_id})
        started = time.monotonic()
        r = client.get("/api/v1/permits", headers=headers)
        one = client.get(f"/api/v1/permits/{permit_id}", headers=headers)
        elapsed = time.monotonic() - started
    finally:
        tx.rollback()
        writer.close()
    assert r.status_code == 200 and [p["id"] for p in r.get_json()] == [permit_id]
    assert one.status_code == 200 and one.get_json()["description"] != "mid-write"
    assert elapsed < 3, f"reads waited {elapsed:.1f}s for the writer"  # busy_timeout is 10 s


def test_permit_reads_leave_no_trace(app, client, factory):
    supervisor, sup_h = factory.as_role("supervisor")
    factory.permit(factory.user("applicant"), status="submitted")
    db.session.commit()
    counts = (db.session.scalar(select(func.count()).select_from(AuditEntry)),
              db.session.scalar(select(func.count()).select_from(SyncChange)))
    for url in ("/api/v1/permits", "/api/v1/permits?status=submitted"):
        assert client.get(url, headers=sup_h).status_code == 200
    db.session.expire_all()
    assert (db.session.scalar(select(func.count()).select_from(AuditEntry)),
            db.session.scalar(select(func.count()).select_from(SyncChange))) == counts
