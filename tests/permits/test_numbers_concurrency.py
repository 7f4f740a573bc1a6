"""Concurrent submissions never share or skip a number (real threads, real transactions).

Runs on SQLite (writers serialised by BEGIN IMMEDIATE) and on PostgreSQL (the counter row lock)."""
import threading

import pytest
from sqlalchemy import select

from inspect_api.extensions import db
from inspect_api.clock import today as local_today
from inspect_api.numbering import NumberCounter
from inspect_api.permits.models import Permit

N = 20


@pytest.mark.slow
def test_twenty_concurrent_submissions_get_twenty_consecutive_numbers(app, factory):
    jobs = []
    for _ in range(N):
        owner = factory.user("applicant")
        jobs.append((factory.permit(owner).id, factory.headers(owner)))
    db.session.commit()
    db.session.close()
    barrier = threading.Barrier(N)
    results: dict[str, tuple[int, dict]] = {}

    def submit(permit_id, headers):
        client = app.test_client()
        barrier.wait()
        r = client.post(f"/api/v1/permits/{permit_id}/transitions", json={"to": "submitted"}, headers=headers)
        results[permit_id] = (r.status_code, r.get_json())

    threads = [threading.Thread(target=submit, args=job) for job in jobs]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert all(status == 200 for status, _ in results.values()), results
    year = local_today().year
    numbers = sorted(body["number"] for _, body in results.values())
    assert numbers == [f"ALDR-{year}-{n:04d}" for n in range(1, N + 1)]
    stored = db.session.scalars(select(Permit.number).where(Permit.number.is_not(None))).all()
    assert sorted(stored) == numbers
    counter = db.session.get(NumberCounter, ("ALDR", year))
    assert counter.last == N
