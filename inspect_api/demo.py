"""`inspect-api demo`: a fresh SQLite database with realistic Fairhaven data, then serve it.

The data is built by small steps (seed_users, seed_permits, seed_assignments, then each domain's),
each taking the shared DemoContext. A domain adds its own demo data by putting a `demo_data.py` in
its package with functions decorated by `@demo_step` (demo_steps.py); they run after the permit
steps, in the order of DEMO_DOMAINS.
"""
from __future__ import annotations

import importlib
import logging
import secrets
import shutil
import threading
import time
from datetime import date, datetime, time as day_time, timedelta, timezone
from pathlib import Path

import click
import flask_migrate
from werkzeug.serving import run_simple

from . import clock, create_app, seed
from .auth.models import ROLES, User
from .auth.passwords import password_problems
from .auth.services import create_user, update_user
from .clock import today as local_today
from .config import DevelopmentConfig, instance_path
from .demo_steps import DemoContext, domain_steps
from .extensions import db
from .notifications.worker import drain
from .photos import derivation
from .permits import exemptions, parts, services, workflow

DEMO_DOMAIN = "demo.fairhaven.test"
# The domains that add demo data (each registers its steps with @demo_step when imported).
DEMO_DOMAINS = ("entry", "inspections", "sampling", "program", "completion", "bonds", "enforcement", "public")


def _load_domain_steps() -> None:
    for domain in DEMO_DOMAINS:
        importlib.import_module(f"{__package__}.{domain}.demo_data")


def build_demo_data(passwords: dict[str, str] | None = None, today: date | None = None) -> DemoContext:
    """Fill an empty schema with the demo data (no serving); used by the command and its test."""
    seed.run_all()
    ctx = DemoContext(passwords=passwords or {role: secrets.token_urlsafe(12) for role in ROLES},
                      today=today or local_today())
    _load_domain_steps()
    # Registered as each module was first imported; run in the order of DEMO_DOMAINS whatever that was.
    ordered = sorted(domain_steps(), key=lambda step: DEMO_DOMAINS.index(step.__module__.split(".")[-2]))
    for step in [*CORE_STEPS, *ordered]:
        step(ctx)
        db.session.flush()
    db.session.commit()
    return ctx


# ---- users --------------------------------------------------------------------------------------
DEMO_NAMES = {"applicant": "Alex Almeida", "inspector": "Ines Costa", "supervisor": "Sam Rebello", "admin": "Ada Admin"}


def seed_users(ctx: DemoContext) -> None:
    for role in ROLES:
        ctx.users[role] = create_user(f"{role}@{DEMO_DOMAIN}", ctx.passwords[role], DEMO_NAMES[role], role)
    # A second applicant whose permits the demo applicant must never see.
    ctx.other_applicants.append(create_user(f"acorn.builders@{DEMO_DOMAIN}", secrets.token_urlsafe(16),
                                            "Acorn Builders LLC", "applicant"))


# ---- permits ------------------------------------------------------------------------------------
def _square(lat: float, lon: float, half_ft: float) -> dict:
    dlat, dlon = half_ft / 364_000, half_ft / 273_000  # feet per degree at 41.6 N
    ring = [[lon - dlon, lat - dlat], [lon + dlon, lat - dlat], [lon + dlon, lat + dlat], [lon - dlon, lat + dlat],
            [lon - dlon, lat - dlat]]
    return {"type": "Polygon", "coordinates": [[[round(x, 6), round(y, 6)] for x, y in ring]]}


# key, address, parcel, lat, lon, area, ms4, waters, use, luhppl, owner, polygon half-side (ft), final status
PERMITS = [
    ("fort", "27 Fort Street", "3-112", 41.6302, -70.9018, 8_500, True, False, "Single-family addition and driveway",
     None, "Maria Medeiros", None, "draft"),
    ("main", "146 Main Street", "10-041", 41.6391, -70.9037, 14_000, True, False, "Mixed-use building, 4 units",
     None, "Harbor View Realty Trust", None, "submitted"),
    ("huttleston", "226 Huttleston Avenue", "30-018", 41.6376, -70.8853, 18_000, True, False,
     "Convenience store with fuel pumps", "auto_fueling", "Route 6 Fuel LLC", 70, "under_review"),
    ("sconticut", "Sconticut Neck Road (Winsegansett Heights lots 4-11)", "43-201", 41.6041, -70.8722, 65_000, True,
     True, "Eight-lot residential subdivision", None, "Winsegansett Development Corp.", 130, "active"),
    ("alden", "119 Alden Road", "27-006", 41.6571, -70.8705, 22_000, True, False, "Contractor yard and office",
     None, "Alden Road Holdings", 80, "active"),
    ("bridge", "1 Bridge Street", "1-015", 41.6362, -70.9105, 9_000, False, True, "Boatyard haul-out pad",
     "marina", "Fairhaven Shipyard Companies", 50, "issued"),
    ("howland", "38 Howland Road", "37-009", 41.6588, -70.8620, 4_200, True, False, "Detached garage", None,
     "Joao Pacheco", None, "draft"),
    ("washington", "62 Washington Street", "11-077", 41.6404, -70.9012, 11_000, False, True,
     "Seawall repair and regrading", None, "Elena Sousa", None, "approved"),
    ("new_boston", "255 New Boston Road", "38-030", 41.6702, -70.8601, 30_000, True, False, "Self-storage facility",
     None, "Acorn Builders LLC", None, "denied"),
    ("adams", "70 Adams Street", "12-058", 41.6360, -70.8981, 6_200, True, False, "Parking lot expansion", None,
     "Adams Street Apartments", None, "withdrawn"),
    ("mill", "94 Mill Road", "26-044", 41.6612, -70.8478, 12_500, True, False, "Barn and riding ring", None,
     "Ana Rodrigues", None, "work_complete"),
    ("green", "45 Green Street", "13-020", 41.6397, -70.9003, 7_800, True, False, "Church parking reconstruction",
     None, "First Congregational Society", None, "closed"),
]
PATH = ["submitted", "under_review"]
ROUTES = {
    "draft": [], "submitted": ["submitted"], "under_review": PATH, "denied": PATH + ["denied"],
    "withdrawn": ["submitted", "withdrawn"], "approved": PATH + ["approved"], "issued": PATH + ["issued"],
    "active": PATH + ["decided", "active"], "work_complete": PATH + ["decided", "active", "work_complete"],
    "closed": PATH + ["decided", "active", "work_complete"],
}
REASONS = {"submitted": "Application and ESC plan filed", "under_review": "Complete application; review started",
           "approved": "Plan meets the ESC standards", "issued": "Permit issued with conditions",
           "denied": "Stormwater management does not meet the Massachusetts Stormwater Standards",
           "withdrawn": "Project postponed by the owner", "active": "Work commenced",
           "work_complete": "Final stabilization reached"}
CONDITIONS = ["Install perimeter controls (silt fence or compost sock) before any grading.",
              "Maintain a stabilized construction entrance; sweep tracked sediment from the street daily.",
              "Protect every catch basin within 100 feet of the limit of work.",
              "Stabilize inactive disturbed areas within 14 days.",
              "Keep the ESC plan and this permit posted on site."]


def _payload(row) -> dict:
    key, address, parcel, lat, lon, area, ms4, waters, use, luhppl, owner, half, _status = row
    site = {"address": f"{address}, Fairhaven, MA 02719", "parcel_id": parcel, "location": {"lat": lat, "lon": lon}}
    if half:
        site["limit_of_work"] = _square(lat, lon, half)
    return {"site": site, "owner": {"name": owner, "email": None, "phone": "508-555-01" + f"{len(key):02d}"},
            "disturbed_area_sqft": area, "drains_to_ms4": ms4, "drains_to_waters": waters, "proposed_use": use,
            "luhppl_kind": luhppl, "description": f"{use} at {address}."}


# Where work has commenced (40 days ago), the application was filed, reviewed and decided on days
# before that: approval precedes commencement (R-A6, R-C2).
DAYS_BEFORE_START = {"submitted": 30, "under_review": 25, "approved": 10, "issued": 10}


def _dated(permit, to: str, day: date) -> None:
    """Put the move just made (its event, and the permit's submission or decision time) on `day`."""
    at = datetime.combine(day, day_time(10, 0), tzinfo=clock.town_zone()).astimezone(timezone.utc)
    # The move's own event: the permit's creation and its first move share one instant, so the last
    # event by time may be either; pick the one that records this move (and the creation goes with the
    # submission, an hour before it).
    events = workflow.list_events(permit)
    [event for event in events if event.to_status == to][-1].at = at
    if to == "submitted":
        for event in events:
            if event.to_status == "draft":
                event.at = at - timedelta(hours=1)
        permit.submitted_at = at
    elif to in ("approved", "issued"):
        permit.decided_at = at
    db.session.flush()


def _walk(ctx: DemoContext, permit, target: str, applicant: User) -> None:
    supervisor = ctx.users["supervisor"]
    started = ctx.today - timedelta(days=40)
    commences = "decided" in ROUTES[target]
    for step in ROUTES[target]:
        to = {"decided": "issued" if permit.review_level == "land_disturbance_permit" else "approved"}.get(step, step)
        actor = applicant if to in ("submitted", "withdrawn", "active", "work_complete") else supervisor
        on = {"active": started, "work_complete": ctx.today - timedelta(days=3)}.get(to)
        if to == "approved" and permit.review_level == "exempt":
            # The Washington Street seawall rests on a valid order of conditions (B5).
            for claim in [c for c in permit.exemptions if c.status == "claimed"]:
                exemptions.decide_exemption(supervisor, permit, claim, "accepted")
        workflow.transition(actor, permit, to, REASONS[to], on=on)
        if commences and to in DAYS_BEFORE_START:
            _dated(permit, to, started - timedelta(days=DAYS_BEFORE_START[to]))
        if to in ("approved", "issued"):
            for text in CONDITIONS[: 5 if to == "issued" else 3]:
                parts.add_condition(supervisor, permit, text)
    if target == "closed":
        services.close_permit(permit, supervisor, "Certificate of completion issued")


def seed_permits(ctx: DemoContext) -> None:
    for n, row in enumerate(PERMITS):
        applicant = ctx.other_applicants[0] if row[0] in ("new_boston", "alden") else ctx.users["applicant"]
        permit, _ = services.create_permit(applicant, _payload(row))
        parts.add_document(applicant, permit, {"kind": "esc_plan", "filename": f"esc-plan-{row[0]}.pdf",
                                               "title": "Erosion and sedimentation control plan"})
        if permit.review_level == "land_disturbance_permit":
            parts.add_document(applicant, permit, {"kind": "om_plan", "filename": f"om-plan-{row[0]}.pdf"})
            parts.add_phase(applicant, permit, {"name": "Clearing, grading and perimeter controls",
                                                "bond_amount": 15_000 + 1_000 * n})
            parts.add_phase(applicant, permit, {"name": "Paving, loam and seed, final stabilization",
                                                "bond_amount": 10_000})
        if row[0] == "washington":
            document, _ = parts.add_document(applicant, permit, {"kind": "other", "filename": "order-of-conditions.pdf",
                                                                 "title": "Order of Conditions SE 023-1187"})
            exemptions.claim_exemption(applicant, permit, {
                "kind": "B5", "document_number": "SE 023-1187", "issued_on": ctx.today - timedelta(days=200),
                "expires_on": ctx.today + timedelta(days=895), "document_id": document.id})
        ctx.permits[row[0]] = permit
        _walk(ctx, permit, row[-1], applicant)


def seed_assignments(ctx: DemoContext) -> None:
    for key in ("sconticut", "alden", "bridge", "huttleston", "mill"):
        services.assign_inspector(ctx.permits[key], ctx.users["inspector"].id, ctx.users["supervisor"])


CORE_STEPS = (seed_users, seed_permits, seed_assignments)


# ---- the command --------------------------------------------------------------------------------
def demo_instance() -> Path:
    """The demo's folder is the app's own instance folder (INSTANCE_PATH, else ./instance), so its
    database, its blobs and the .eml files of its mail all land in one place."""
    return instance_path(DevelopmentConfig.INSTANCE_PATH)


def _demo_app(instance: Path, url: str | None = None):
    cfg = DevelopmentConfig()
    cfg.SQLALCHEMY_DATABASE_URI = f"sqlite:///{instance / 'demo.sqlite3'}"
    cfg.STORAGE_URL = (instance / "demo-blobs").as_uri()
    cfg.PUBLIC_BASE_URL = cfg.PUBLIC_BASE_URL or url  # links in the demo's e-mails open this server
    return create_app(cfg)


def _deliver_in_background(app) -> None:
    """The demo's mail worker: one thread delivering the outbox (to <instance>/mail/*.eml without
    SMTP_URL) every NOTIFY_POLL_SECONDS, so a demo user sees the notices the app sends."""
    def loop() -> None:
        while True:
            with app.app_context():
                try:
                    drain()
                except Exception:  # keep serving the demo; the next pass tries again
                    logging.getLogger(__name__).exception("demo mail delivery failed")
            time.sleep(max(int(app.config["NOTIFY_POLL_SECONDS"]), 1))

    threading.Thread(target=loop, name="demo-mail", daemon=True).start()


def _derive_in_background(app) -> None:
    """The demo's photo worker: one thread making the thumbnails of uploaded photos every
    PHOTO_POLL_SECONDS (the demo runs on SQLite, one process: one worker)."""
    derivation.start_thread(app, threading.Event())


def _mail_folder(app) -> Path:
    return Path(app.config.get("MAIL_DIR") or Path(app.instance_path, "mail"))


def _fresh_files(instance: Path) -> None:
    instance.mkdir(parents=True, exist_ok=True)
    for suffix in ("", "-wal", "-shm"):
        (instance / f"demo.sqlite3{suffix}").unlink(missing_ok=True)
    shutil.rmtree(instance / "demo-blobs", ignore_errors=True)


def _empty_mail(folder: Path) -> int:
    """A fresh demo starts with no messages: the previous run's .eml files are removed (only those; the
    folder may be one MAIL_DIR shares with other files). Returns how many were removed."""
    removed = 0
    for message in folder.glob("*.eml") if folder.is_dir() else ():
        message.unlink(missing_ok=True)
        removed += 1
    return removed


def _kept_accounts(password: str | None) -> dict[str, str]:
    """The demo accounts of a kept database, each given `password` when one is set."""
    shown = {}
    for role in ROLES:
        user = db.session.scalar(db.select(User).filter_by(email=f"{role}@{DEMO_DOMAIN}"))
        if user is None:
            continue
        if password:
            update_user(user, {"password": password}, None)
        shown[role] = password or "as printed when this demo database was made"
    db.session.commit()
    return shown


@click.command("demo")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to serve on.")
@click.option("--port", default=5000, show_default=True, type=int, help="Port to serve on.")
@click.option("--password", default=None, help="One password for every demo login (default: random, printed).")
@click.option("--keep", is_flag=True, help="Serve the existing demo database, its files and its mail again "
                                           "instead of making fresh data dated around today.")
def demo(host: str, port: int, password: str | None, keep: bool) -> None:
    """Create a fresh demo database with Fairhaven permits and one user per role, then serve it
    (--keep: serve the one made before)."""
    if password and password_problems(password):
        # The demo accounts follow the same password rule as real ones (NIST SP 800-63B).
        raise click.BadParameter(" ".join(password_problems(password)), param_hint="--password")
    instance = demo_instance()
    database = instance / "demo.sqlite3"
    if keep and not database.is_file():
        raise click.UsageError(f"There is no demo database to keep at {database}: run `inspect-api demo` "
                               "without --keep to make one.")
    if not keep:
        _fresh_files(instance)
    url = f"http://{'127.0.0.1' if host in ('0.0.0.0', '::') else host}:{port}/"
    app = _demo_app(instance, url)
    with app.app_context():
        flask_migrate.upgrade()
        if keep:
            passwords = _kept_accounts(password)
            counts = "kept as it was: its dates are those of the day it was made"
        else:
            removed = _empty_mail(_mail_folder(app))
            ctx = build_demo_data({role: password for role in ROLES} if password else None)
            passwords = ctx.passwords
            counts = f"fresh: {len(ctx.permits)} permits, {len(ctx.users) + len(ctx.other_applicants)} users"
            if removed:
                counts += f"; {removed} e-mails of the previous run removed"
    click.echo(f"\nDemo database: {database} ({counts})\nOpen {url}  (API reference: {url}api/v1/docs)")
    click.echo(f"Public pages, no sign-in (permit lookup, map, report a problem): {url}public/")
    mail = app.config.get("SMTP_URL") and "sent through SMTP_URL" or f"written as .eml files to {_mail_folder(app)}"
    click.echo(f"E-mail notices are {mail}.")
    _deliver_in_background(app)
    _derive_in_background(app)
    click.echo("Logins:")
    for role, shown in passwords.items():
        click.echo(f"  {role:<10} {role + '@' + DEMO_DOMAIN:<32} password: {shown}")
    click.echo("Run `inspect-api demo --keep` to serve this demo again as it is; without --keep the demo starts fresh.")
    # Serve with werkzeug directly: Flask ignores app.run() inside its own CLI. Production uses gunicorn.
    run_simple(host, port, app, threaded=True, use_reloader=False, use_debugger=False)


commands = [demo]
