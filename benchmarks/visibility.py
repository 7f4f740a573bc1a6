"""A staff list in a Town of many permits: the page scoped by "has a permit" (permits.access.permit_visible)
against the same page scoped by an IN over every permit's id, in the same run.

    python benchmarks/visibility.py                      # SQLite (a throwaway file)
    python benchmarks/visibility.py --pg postgresql://postgres@127.0.0.1:5432/postgres
    python benchmarks/visibility.py --permits 5000 --findings 50000 --rounds 9

Data: `--permits` permits of `--applicants` applicants, four parties a permit (half of them with an
account), and `--findings` open findings spread over the permits at random, written straight into the
app's tables (a throwaway database).

- staff: the supervisor's first page of 100 findings, read through the findings list's own service
  (`list_findings`: its query, its order, its count), then through the same query with the old scope,
  `Finding.permit_id IN (SELECT permits.id FROM permits)`. Both answer the same page and total
  (checked). On SQLite the old scope made the database look each permit's findings up and sort all
  of them before it cut the page, so its cost grew with every permit the Town ever had.
- applicant: an applicant's first page through the same service, with the index on `parties.user_id`
  and then without it (dropped for the measurement and made again): the scope asks which permits
  name the applicant as a party, a walk over every party without the index.

Each figure is the median of `--rounds`, the two taken in turn.
"""
from __future__ import annotations

import argparse
import random
import sys
import uuid
from datetime import date, timedelta
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import sqlalchemy as sa  # noqa: E402

from benchmarks.reads import build_app, median_of, medians_of, release  # noqa: E402
from benchmarks.throwaway import Throwaway, database_options, on_each_database  # noqa: E402
from inspect_api.auth.models import User  # noqa: E402
from inspect_api.extensions import db  # noqa: E402
from inspect_api.inspections.finding_services import list_findings  # noqa: E402
from inspect_api.inspections.models import FINDING_KINDS, SEVERITIES, Finding  # noqa: E402
from inspect_api.paging import page_query  # noqa: E402
from inspect_api.permits.access import visible_permit_ids  # noqa: E402
from inspect_api.permits.models import Party, Permit  # noqa: E402

BATCH = 5000


def seed(permits: int, findings: int, applicants: int) -> str:
    """The rows, and the id of an applicant who applied for the first permit and is a party to the second
    (each with a finding), whatever the sizes."""
    rng = random.Random(7)
    users = [str(uuid.UUID(int=rng.getrandbits(128))) for _ in range(applicants)]
    db.session.execute(sa.insert(User), [{"id": user_id, "email": f"applicant{n}@example.test", "name": f"A {n}",
                                          "role": "applicant", "password_hash": "-"} for n, user_id in enumerate(users)])
    ids = [str(uuid.UUID(int=rng.getrandbits(128))) for _ in range(permits)]
    for start in range(0, permits, BATCH):
        db.session.execute(sa.insert(Permit), [{
            "id": permit_id, "site_address": f"{n} Main St", "site_lat": 41.63, "site_lon": -70.9,
            "owner_name": "Owner", "disturbed_area_sqft": 12_000.0, "proposed_use": "house",
            "review_level": "administrative_review", "status": "active",
            "applicant_id": users[0] if n == 0 else rng.choice(users)}
            for n, permit_id in enumerate(ids[start:start + BATCH], start)])
        db.session.execute(sa.insert(Party), [{
            "id": str(uuid.UUID(int=rng.getrandbits(128))), "permit_id": permit_id, "role": role, "name": role,
            "user_id": (users[0] if permit_id == ids[1] else rng.choice(users)) if role in ("applicant", "contractor")
            else None}
            for permit_id in ids[start:start + BATCH] for role in ("owner", "violator", "applicant", "contractor")])
    day = date(2026, 1, 1)
    for start in range(0, findings, BATCH):
        db.session.execute(sa.insert(Finding), [{
            "id": str(uuid.UUID(int=rng.getrandbits(128))), "permit_id": ids[n] if n < 2 else rng.choice(ids),
            "kind": rng.choice(FINDING_KINDS), "severity": rng.choice(SEVERITIES), "description": "Silt fence down",
            "observed_on": day + timedelta(days=n % 300), "due_on": day + timedelta(days=n % 300 + 7)}
            for n in range(start, min(findings, start + BATCH))])
    db.session.commit()
    return users[0]


def run(label: str, pg_url: str | None, args) -> None:
    target = Throwaway(pg_url, "visibility_bench")
    print(f"\n== {label}: {args.permits} permits, {args.permits * 4} parties, {args.findings} findings ==")
    try:
        app = build_app(target.url)
        with app.app_context():
            applicant = SimpleNamespace(role="applicant", id=seed(args.permits, args.findings, args.applicants))
            if pg_url:  # the statistics autovacuum would have gathered on a server in use
                with db.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
                    conn.exec_driver_sql("ANALYZE")
            supervisor = SimpleNamespace(role="supervisor", id=str(uuid.uuid4()))
            page = {"limit": 100, "offset": 0}

            def listed(user):
                found = list_findings(user, page)
                db.session.rollback()
                return found

            def walking():
                query = (sa.select(Finding).where(Finding.permit_id.in_(visible_permit_ids(supervisor)),
                                                  Finding.deleted_at.is_(None))
                         .order_by(Finding.due_on, Finding.created_at, Finding.id))
                found = page_query(query, page)
                db.session.rollback()
                return found

            (new_page, new_total), (old_page, old_total) = listed(supervisor), walking()
            assert [f.id for f in new_page] == [f.id for f in old_page] and new_total == old_total == args.findings
            report("staff, first page of 100", "has a permit", "IN every permit",
                   *medians_of(lambda: listed(supervisor), walking, args.rounds))
            mine = listed(applicant)
            assert mine[1] > 0
            indexed = median_of(lambda: listed(applicant), args.rounds)
            index = next(i for i in Party.__table__.indexes if list(i.columns) == [Party.__table__.c.user_id])
            index.drop(db.session.connection())
            db.session.commit()  # each read rolls back when done
            try:
                assert listed(applicant) == mine
                unindexed = median_of(lambda: listed(applicant), args.rounds)
            finally:
                index.create(db.session.connection())
                db.session.commit()
            report("applicant, first page", "parties.user_id indexed", "not indexed", indexed, unindexed)
        release(app)
    finally:
        target.drop()


def report(what: str, new: str, old: str, new_s: float, old_s: float) -> None:
    print(f"{what:26s} {new} {new_s * 1000:8.2f} ms   {old} {old_s * 1000:8.2f} ms   {old_s / new_s:6.1f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    database_options(parser)
    parser.add_argument("--permits", type=int, default=5000)
    parser.add_argument("--findings", type=int, default=50_000)
    parser.add_argument("--applicants", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=9, help="pages per figure (the median is printed)")
    on_each_database(parser.parse_args(), run)


if __name__ == "__main__":
    main()
