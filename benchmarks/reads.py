"""The lists people wait on, against their floor, measured in the same run.

    python benchmarks/reads.py                      # SQLite (a throwaway file)
    python benchmarks/reads.py --pg postgresql://postgres@127.0.0.1:5432/postgres
    TEST_DATABASE_URL=postgresql://... python benchmarks/reads.py

PostgreSQL runs in a throwaway database created on that server and dropped afterwards.

Data: the demo town (`inspect-api demo`'s steps), its permits and field records made again round after
round through each domain's own services, plus an order on findings of the field sites, until every
list has at least the page size to show. The supervisor reads each list in-process (Flask test client,
JWT and all) at page sizes 12 and 100: permits, inspections, the review queue (submitted inspections,
oldest first), findings, orders, samples, notifications and the Deadlines view (not paged: its
`before` day is chosen so that about that many items are due).

floor: the SELECTs the request ran for its rows and what they embed (every statement of the request but
       those of signing in, which `GET /me` runs too), executed again on one connection and their rows
       serialised with the json module: no HTTP, no auth, no ORM, no schema.
me:    `GET /api/v1/me`, the cost of an empty authenticated request, printed beside each list.

The app is built as a server builds it, its garbage collector settled (inspect_api/collector.py);
--gc default leaves CPython's defaults instead.

Each figure is the median of --rounds requests, a list's requests and its floor taken in turn (so both
see the same load from the rest of the machine). The goal is a list at 100 items within 4x its floor.
"""
from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import statistics
import sys
import time
from datetime import date, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import sqlalchemy as sa  # noqa: E402
from sqlalchemy import event  # noqa: E402

from benchmarks.throwaway import Throwaway, database_options, on_each_database  # noqa: E402
from inspect_api import create_app, import_models  # noqa: E402
from inspect_api.config import TestConfig  # noqa: E402
from inspect_api.extensions import db  # noqa: E402

PASSWORD = "benchmark password 1"
GOAL = 4.0
LISTS = (("permits", "/api/v1/permits"), ("inspections", "/api/v1/inspections"),
         ("review queue", "/api/v1/inspections?status=submitted"), ("findings", "/api/v1/findings"),
         ("orders", "/api/v1/orders"), ("samples", "/api/v1/samples"),
         ("notifications", "/api/v1/notifications"), ("due list", "/api/v1/deadlines"))


def build_app(url: str, settle_collector: bool = True):
    """The app as a server builds it (its garbage collector settled: inspect_api/collector.py) unless
    `settle_collector` is False, on the test configuration (the town grows past the drafts limit)."""
    import_models()
    app = create_app(TestConfig(SQLALCHEMY_DATABASE_URI=url, MAX_OPEN_DRAFTS=10_000, GC_SETTLE=settle_collector))
    with app.app_context():
        db.metadata.create_all(db.engine)  # a throwaway database, like the test suite's (every model imported)
    return app


class Town:
    """The demo town, grown a round at a time (in an app context)."""

    def __init__(self) -> None:
        from inspect_api import demo
        self.demo = demo
        self.ctx = demo.build_demo_data(passwords={role: PASSWORD for role in ("applicant", "inspector",
                                                                             "supervisor", "admin")})
        self.steps = [demo.seed_permits, demo.seed_assignments,
                      *sorted(demo.domain_steps(), key=lambda s: demo.DEMO_DOMAINS.index(s.__module__.split(".")[-2]))]
        self.ordered: set[str] = set()
        self.emails = {role: user.email for role, user in self.ctx.users.items()}
        self.others = [user.email for user in self.ctx.other_applicants]

    def attach(self) -> None:
        """The accounts again, in this app context's session."""
        from inspect_api.auth.models import User
        by_email = {u.email: u for u in db.session.scalars(sa.select(User))}
        self.ctx.users = {role: by_email[email] for role, email in self.emails.items()}
        self.ctx.other_applicants = [by_email[email] for email in self.others]

    def grow(self, rounds: int) -> None:
        self.attach()
        for _ in range(rounds):
            self.ctx.permits = {}
            for step in self.steps:
                step(self.ctx)
                db.session.flush()
            db.session.commit()

    def orders(self, wanted: int) -> None:
        """Orders on findings not yet ordered (one each), due in a month, until `wanted` exist."""
        from inspect_api.enforcement.models import Order
        from inspect_api.enforcement.schemas import OrderCreateSchema
        from inspect_api.enforcement.services import create_order
        from inspect_api.inspections.models import Finding
        self.attach()
        have = db.session.scalar(sa.select(sa.func.count()).select_from(Order))
        findings = db.session.scalars(sa.select(Finding).where(Finding.deleted_at.is_(None), Finding.status == "open")
                                      .order_by(Finding.id)).all()
        supervisor = self.ctx.users["supervisor"]
        for finding in findings:
            if have >= wanted:
                break
            if finding.id in self.ordered:
                continue
            self.ordered.add(finding.id)
            create_order(supervisor, OrderCreateSchema().load({
                "permit_id": finding.permit_id, "kinds": ["controls"],
                "requirements": [{"kind": "controls", "text": f"Correct: {finding.description}"}],
                "finding_ids": [finding.id], "issued_on": self.ctx.today.isoformat(),
                "deadline": (self.ctx.today + timedelta(days=30)).isoformat()}))
            have += 1
        db.session.commit()


def login(client, role: str) -> dict:
    r = client.post("/api/v1/auth/login", json={"email": f"{role}@demo.fairhaven.test", "password": PASSWORD,
                                                "device_id": f"bench-{role}"})
    assert r.status_code == 200, r.get_json()
    return {"Authorization": "Bearer " + r.get_json()["access_token"]}


def captured(app, client, url: str, headers) -> tuple[list[tuple[str, object]], object]:
    """The statements (with their parameters) one GET ran, and its answer."""
    statements: list[tuple[str, object]] = []

    def keep(_conn, _cursor, statement, parameters, *_args):
        statements.append((statement, parameters))
    with app.app_context():
        event.listen(db.engine, "before_cursor_execute", keep)
        try:
            r = client.get(url, headers=headers)
        finally:
            event.remove(db.engine, "before_cursor_execute", keep)
    assert r.status_code == 200, (url, r.status_code, r.get_data(as_text=True)[:300])
    return statements, r


def floor_statements(statements, signing_in: set[str]) -> list[tuple[str, object]]:
    return [(s, p) for s, p in statements
            if s.lstrip().upper().startswith("SELECT") and s not in signing_in]


def floor_once(app, statements) -> float:
    with app.app_context():
        started = time.perf_counter()
        with db.engine.connect() as conn:
            for statement, parameters in statements:
                rows = conn.exec_driver_sql(statement, parameters).all()
                json.dumps([list(row) for row in rows], default=str)
        return time.perf_counter() - started


def medians_of(first, second, rounds: int) -> tuple[float, float]:
    """The median times of `first` and `second`, run in turn round after round, so both see the same
    load from whatever else the machine is doing."""
    first(), second()  # warm
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(rounds):
        for fn, kept in ((first, times[0]), (second, times[1])):
            started = time.perf_counter()
            fn()
            kept.append(time.perf_counter() - started)
    return statistics.median(times[0]), statistics.median(times[1])


def median_of(fn, rounds: int) -> float:
    fn()  # warm
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def due_day(client, headers, wanted: int) -> str:
    """A `before` day for the Deadlines view with about `wanted` items due before it."""
    days = sorted(item["due_on"] for item in client.get("/api/v1/deadlines?before=2100-01-01", headers=headers).get_json())
    if len(days) <= wanted:
        return "2100-01-01"
    return (date.fromisoformat(days[wanted - 1]) + timedelta(days=1)).isoformat()


def measure(app, client, headers, size: int, rounds: int, me_s: float, signing_in: set[str]) -> list[dict]:
    results = []
    for name, base in LISTS:
        if name == "due list":
            url = f"{base}?before={due_day(client, headers, size)}"
        else:
            url = f"{base}{'&' if '?' in base else '?'}limit={size}"
        statements, r = captured(app, client, url, headers)
        floor = floor_statements(statements, signing_in)
        request_s, floor_s = medians_of(lambda url=url: client.get(url, headers=headers),
                                        lambda floor=floor: floor_once(app, floor), rounds)
        results.append({"name": name, "size": size, "items": len(r.get_json()), "bytes": len(r.data),
                        "statements": len(statements), "selects": len(floor), "request_s": request_s,
                        "floor_s": floor_s, "ratio": request_s / floor_s, "me_s": me_s})
    return results


def report(results: list[dict]) -> None:
    print(f"{'list':14s} {'size':>4s} {'items':>5s} {'kB':>6s} {'stmts':>5s} {'request':>9s} {'floor':>8s} "
          f"{'ratio':>6s} {'me':>7s}  goal (<= {GOAL:g}x at 100)")
    for r in results:
        verdict = ("PASS" if r["ratio"] <= GOAL else "MISS") if r["size"] >= 100 else ""
        print(f"{r['name']:14s} {r['size']:4d} {r['items']:5d} {r['bytes'] / 1000:6.1f} {r['statements']:5d} "
              f"{r['request_s'] * 1000:7.2f}ms {r['floor_s'] * 1000:6.2f}ms {r['ratio']:5.1f}x "
              f"{r['me_s'] * 1000:5.2f}ms  {verdict}")


def profile(client, headers, url: str) -> None:
    """Where 20 requests of `url` spend their time (cProfile, the functions costing most themselves)."""
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(20):
        client.get(url, headers=headers)
    profiler.disable()
    pstats.Stats(profiler).sort_stats("tottime").print_stats(30)


def run(label: str, pg_url: str | None, args) -> None:
    """Seeding runs in an app context; the requests run outside it, so each gets its own session as
    in a server."""
    target = Throwaway(pg_url, "reads_bench")
    print(f"\n== {label} (garbage collector: {args.gc}) ==")
    try:
        app = build_app(target.url, settle_collector=args.gc == "server")
        with app.app_context():
            started = time.perf_counter()
            town = Town()
            town.grow(3)
            town.orders(12)
        client = app.test_client()
        headers = login(client, "supervisor")
        me_statements, _ = captured(app, client, "/api/v1/me", headers)
        signing_in = {s for s, _ in me_statements}
        me_s = median_of(lambda: client.get("/api/v1/me", headers=headers), args.rounds)
        results = measure(app, client, headers, 12, args.rounds, me_s, signing_in)
        with app.app_context():
            town.grow(args.grow)
            town.orders(100)
            print(f"seeded in {time.perf_counter() - started:.1f}s")
        me_s = median_of(lambda: client.get("/api/v1/me", headers=headers), args.rounds)
        results += measure(app, client, headers, 100, args.rounds, me_s, signing_in)
        report(results)
        if args.profile:
            profile(client, headers, args.profile)
        release(app)
    finally:
        target.drop()


def release(app) -> None:
    """The app's connections closed, so its throwaway database can be dropped."""
    with app.app_context():
        db.session.remove()
        db.engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    database_options(parser)
    parser.add_argument("--rounds", type=int, default=15, help="requests per figure (the median is printed)")
    parser.add_argument("--grow", type=int, default=31, help="rounds of the demo town added for the 100-item pages")
    parser.add_argument("--gc", choices=("server", "default"), default="server",
                        help="the garbage collector as a serving process settles it (frozen after start, young "
                             "threshold GC_YOUNG_THRESHOLD), or CPython's defaults")
    parser.add_argument("--profile", metavar="URL", help="print a profile of 20 requests of URL (at the 100-item "
                                                        "town) at the end (cProfile)")
    on_each_database(parser.parse_args(), run)


if __name__ == "__main__":
    main()
