"""Every list people wait on loads its rows and what they embed in a fixed number of SQL statements
(README "Reads"): a page of 30 runs the same statements as a page of 3, and never more than a few.

The town is the demo's (inspect_api.demo), grown by running its steps again until each list has more
than a page of 30; the supervisor reads each list as the app does."""
from __future__ import annotations

import re
from datetime import date, timedelta

import pytest
from sqlalchemy import func, select

from inspect_api import demo
from inspect_api.config import TestConfig
from inspect_api.enforcement.models import Order
from inspect_api.enforcement.schemas import OrderCreateSchema
from inspect_api.enforcement.services import create_order
from inspect_api.extensions import db
from inspect_api.inspections.models import Finding
from tests.factories import DEMO_PASSWORDS
from tests.sql_count import list_statements

SMALL, LARGE = 3, 30
# The most statements a list request may run, signing in included (the token's session and account).
MOST = 20
LISTS = {"permits": "/api/v1/permits", "inspections": "/api/v1/inspections",
         "review queue": "/api/v1/inspections?status=submitted", "findings": "/api/v1/findings",
         "orders": "/api/v1/orders", "samples": "/api/v1/samples", "notifications": "/api/v1/notifications"}


@pytest.fixture
def config(_schema, tmp_path):
    # The grown town holds more open drafts per applicant than the default allows.
    return TestConfig(SQLALCHEMY_DATABASE_URI=_schema, STORAGE_URL=(tmp_path / "blobs").as_uri(),
                      MAX_OPEN_DRAFTS=10_000)


def _grow(ctx, rounds: int) -> None:
    """The demo's permits and field records made again, `rounds` times."""
    steps = [demo.seed_permits, demo.seed_assignments,
             *sorted(demo.domain_steps(), key=lambda s: demo.DEMO_DOMAINS.index(s.__module__.split(".")[-2]))]
    for _ in range(rounds):
        ctx.permits = {}
        for step in steps:
            step(ctx)
            db.session.flush()
        db.session.commit()


def _orders(ctx, wanted: int) -> None:
    """An order on each open finding that has none, until `wanted` orders exist."""
    have = db.session.scalar(select(func.count()).select_from(Order))
    ordered = {finding_id for ids in db.session.scalars(select(Order.finding_ids)) for finding_id in ids}
    findings = db.session.scalars(select(Finding).where(Finding.deleted_at.is_(None), Finding.status == "open")
                                  .order_by(Finding.id)).all()
    for finding in findings:
        if have >= wanted:
            break
        if finding.id in ordered:
            continue
        create_order(ctx.users["supervisor"], OrderCreateSchema().load({
            "permit_id": finding.permit_id, "kinds": ["controls"],
            "requirements": [{"kind": "controls", "text": f"Correct: {finding.description}"}],
            "finding_ids": [finding.id], "issued_on": ctx.today.isoformat(),
            "deadline": (ctx.today + timedelta(days=30)).isoformat()}))
        have += 1
    db.session.commit()


@pytest.fixture
def town(app):
    ctx = demo.build_demo_data(DEMO_PASSWORDS)
    _grow(ctx, 10)  # the demo makes three samples a round
    _orders(ctx, LARGE + 1)
    return ctx


def _login(client, role: str) -> dict[str, str]:
    r = client.post("/api/v1/auth/login", json={"email": f"{role}@{demo.DEMO_DOMAIN}", "password": DEMO_PASSWORDS[role]})
    assert r.status_code == 200, r.get_json()
    return {"Authorization": f"Bearer {r.get_json()['access_token']}"}


def _page(client, headers, url: str, size: int) -> tuple[list[str], list[dict], int]:
    """The statements of one page of `size`, its items, and the total the list reports."""
    paged = f"{url}{'&' if '?' in url else '?'}limit={size}"
    statements = list_statements(client, paged, headers, size)
    r = client.get(paged, headers=headers)
    assert r.status_code == 200, r.get_json()
    return statements, r.get_json(), int(r.headers["X-Total-Count"])


def _due_before(client, headers, wanted: int) -> str:
    """A `before` day for the Deadlines view with about `wanted` items due before it."""
    r = client.get("/api/v1/deadlines?before=2100-01-01", headers=headers)
    assert r.status_code == 200, r.get_json()
    days = sorted(item["due_on"] for item in r.get_json())
    assert len(days) > wanted
    return (date.fromisoformat(days[wanted - 1]) + timedelta(days=1)).isoformat()


def _deadlines_statements(client, headers) -> dict[int, list[str]]:
    """The Deadlines view is not paged: its `before` day is chosen so that a few, then many, are due."""
    counts = {}
    for wanted in (SMALL, LARGE):
        day = _due_before(client, headers, wanted)
        r = client.get(f"/api/v1/deadlines?before={day}", headers=headers)
        items = r.get_json()
        assert r.status_code == 200 and len(items) >= wanted, r.get_json()
        assert all(item["due_on"] < day for item in items)
        counts[wanted] = list_statements(client, f"/api/v1/deadlines?before={day}", headers, len(items))
    return counts


def test_each_list_runs_the_same_statements_for_3_items_as_for_30(client, town):
    """Permits, inspections, the review queue, findings, orders, samples, notifications, then the
    Deadlines view."""
    headers = _login(client, "supervisor")
    for name, url in LISTS.items():
        small, small_items, total = _page(client, headers, url, SMALL)
        large, large_items, _ = _page(client, headers, url, LARGE)
        assert total > LARGE, (name, total)
        assert len({item["id"] for item in large_items}) == LARGE, name
        assert [item["id"] for item in large_items[:SMALL]] == [item["id"] for item in small_items], name
        assert len(large) == len(small), (name, "\n".join(s[:160] for s in large))
        assert len(large) <= MOST, (name, len(large))
        if name == "review queue":
            assert {item["status"] for item in large_items} == {"submitted"}
        if name == "permits":  # what a permit embeds came with it
            assert all(isinstance(item["conditions"], list) and "owner" in item for item in large_items)
    counts = _deadlines_statements(client, headers)
    assert len(counts[SMALL]) == len(counts[LARGE]), "\n".join(s[:160] for s in counts[LARGE])
    assert len(counts[LARGE]) <= MOST, len(counts[LARGE])


# A subquery of every permit's id: what "every permit" looked like in a list's statements before staff
# visibility became a plain "has a permit" (permits.access.permit_visible).
_EVERY_PERMIT = re.compile(r"IN\s*\(\s*SELECT\s+permits\.id\s+FROM\s+permits\s*\)", re.IGNORECASE)


@pytest.mark.parametrize("role", ["supervisor", "inspector"])
def test_a_staff_list_never_walks_every_permit(client, town, role):
    """Staff see every permit, so their lists ask only that a record has one: an IN over every permit
    made SQLite look up each permit's records and sort them all before cutting the page, a cost that
    grew with every permit the Town ever had (benchmarks/visibility.py). Applicants' lists keep theirs."""
    headers = _login(client, role)
    urls = [f"{url}{'&' if '?' in url else '?'}limit={SMALL}" for url in LISTS.values()]
    urls += [f"/api/v1/photos?limit={SMALL}", f"/api/v1/entry-authorizations?limit={SMALL}"]
    if role == "supervisor":  # the Deadlines view is the supervisors'
        urls.append(f"/api/v1/deadlines?before={_due_before(client, headers, SMALL)}")
    for url in urls:
        walking = [s for s in list_statements(client, url, headers, None) if _EVERY_PERMIT.search(s)]
        assert walking == [], (url, walking[0][:300] if walking else "")
