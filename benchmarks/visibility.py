"""A staff list in a Town of many permits: the page scoped by "has a permit" (permits.access.permit_visible)
against the same page scoped by an IN over every permit's id, in the same run.

    python benchmarks/visibility.py                      # SQLite (a throwaway file)
    python benchmarks/visibility.py --pg postgresql://postgres@127.0.0.1:5432/postgres
    python benchmarks/visibility.py --permits 5000 --findings 50000 --rounds 9

Data: `--permits` permits and `--findings` open findings spread over them at random, written straight
into the app's tables (a throwaway database). The supervisor's first page of 100 findings is read
through the findings list's own service (`list_findings`: its query, its order, its count), then
through the same query with the old scope, `Finding.permit_id IN (SELECT permits.id FROM permits)`.
Both answer the same page and total (checked); each figure is the median of `--rounds`, the two taken
in turn. On SQLite the old scope made the database look each permit's findings up and sort all of
them before it cut the page, so its cost grew with every permit the Town ever had.
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

from benchmarks.reads import build_app, medians_of, release  # noqa: E402
from benchmarks.throwaway import Throwaway, database_options, on_each_database  # noqa: E402
from inspect_api.extensions import db  # noqa: E402

BATCH = 5000


def seed(permits: int, findings: int) -> None:
    from inspect_api.inspections.models import FINDING_KINDS, SEVERITIES, Finding
    from inspect_api.permits.models import Permit
    rng = random.Random(7)
    ids = [str(uuid.UUID(int=rng.getrandbits(128))) for _ in range(permits)]
    for start in range(0, permits, BATCH):
        db.session.execute(sa.insert(Permit), [{
            "id": permit_id, "site_address": f"{n} Main St", "site_lat": 41.63, "site_lon": -70.9,
            "owner_name": "Owner", "disturbed_area_sqft": 12_000.0, "proposed_use": "house",
            "review_level": "administrative_review", "status": "active"} for n, permit_id in enumerate(ids[start:start + BATCH], start)])
    day = date(2026, 1, 1)
    for start in range(0, findings, BATCH):
        db.session.execute(sa.insert(Finding), [{
            "id": str(uuid.UUID(int=rng.getrandbits(128))), "permit_id": rng.choice(ids),
            "kind": rng.choice(FINDING_KINDS), "severity": rng.choice(SEVERITIES), "description": "Silt fence down",
            "observed_on": day + timedelta(days=n % 300), "due_on": day + timedelta(days=n % 300 + 7)}
            for n in range(start, min(findings, start + BATCH))])
    db.session.commit()


def run(label: str, pg_url: str | None, args) -> None:
    from inspect_api.inspections.finding_services import list_findings
    from inspect_api.inspections.models import Finding
    from inspect_api.paging import page_query
    from inspect_api.permits.access import visible_permit_ids
    target = Throwaway(pg_url, "visibility_bench")
    print(f"\n== {label}: {args.permits} permits, {args.findings} findings ==")
    try:
        app = build_app(target.url)
        with app.app_context():
            seed(args.permits, args.findings)
            supervisor = SimpleNamespace(role="supervisor", id=str(uuid.uuid4()))
            page = {"limit": 100, "offset": 0}

            def scoped():
                found = list_findings(supervisor, page)
                db.session.rollback()
                return found

            def walking():
                query = (sa.select(Finding).where(Finding.permit_id.in_(visible_permit_ids(supervisor)),
                                                  Finding.deleted_at.is_(None))
                         .order_by(Finding.due_on, Finding.created_at, Finding.id))
                found = page_query(query, page)
                db.session.rollback()
                return found

            (new_page, new_total), (old_page, old_total) = scoped(), walking()
            assert [f.id for f in new_page] == [f.id for f in old_page] and new_total == old_total == args.findings
            new_s, old_s = medians_of(scoped, walking, args.rounds)
            print(f"first page of 100: has a permit {new_s * 1000:8.2f} ms   IN every permit {old_s * 1000:8.2f} ms"
                  f"   {old_s / new_s:6.1f}x")
        release(app)
    finally:
        target.drop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    database_options(parser)
    parser.add_argument("--permits", type=int, default=5000)
    parser.add_argument("--findings", type=int, default=50_000)
    parser.add_argument("--rounds", type=int, default=9, help="pages per figure (the median is printed)")
    on_each_database(parser.parse_args(), run)


if __name__ == "__main__":
    main()
