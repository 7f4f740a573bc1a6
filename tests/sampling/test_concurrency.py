"""Samples saved at the same moment into one outfall-week raise one weekly finding, not one each."""
from __future__ import annotations

import threading

from sqlalchemy import func, select

from inspect_api.extensions import db
from inspect_api.inspections.models import Finding

from .conftest import sample_body


def test_concurrent_samples_raise_one_weekly_finding(site, app):
    bodies = [sample_body(site, sampled_at=f"2026-05-0{4 + i}T13:00:00Z",
                          parameters=[{"name": "turbidity", "value": 60, "unit": "NTU"}]) for i in range(4)]
    headers = site.headers
    db.session.rollback()  # this test's own session must not hold SQLite's write lock while the requests run
    barrier = threading.Barrier(len(bodies))
    statuses: list[int] = []

    def post(body):
        client = app.test_client()
        barrier.wait()
        statuses.append(client.post("/api/v1/samples", json=body, headers=headers).status_code)

    threads = [threading.Thread(target=post, args=(body,)) for body in bodies]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert sorted(statuses) == [201, 201, 201, 201]
    db.session.expire_all()
    count = db.session.scalar(select(func.count()).select_from(Finding).where(
        Finding.permit_id == site.permit.id, Finding.kind == "exceedance", Finding.deleted_at.is_(None)))
    assert count == 1
