"""inspect-api: permits, inspections and close-out under the Fairhaven stormwater bylaw."""
from __future__ import annotations

import importlib
from pathlib import Path

from flask import Flask
from werkzeug.middleware.proxy_fix import ProxyFix

from . import audit, changes, clock, collector, lanes, numbering, openapi, questions, renditions, signals  # noqa: F401  (audit, changes, numbering, renditions: tables of the core)
from .config import MIGRATIONS_ROOT, Config, config_for_environment, instance_path
from .database import configure_engine_events, register_request_transaction
from .errors import register_error_handlers
from .extensions import api, compress, db, jwt, limiter, migrate
from .http import register_http_policies
from .json_provider import OrjsonProvider, load_stored
from .records import RecordIdConverter

# Domain packages, in the order their blueprints appear in the OpenAPI document. Every domain is part
# of the app: each has routes.py (`blueprints`, or one `blp`); those listed in MODEL_DOMAINS also have
# models.py. A missing module is an installation error and stops the app at start-up.
DOMAINS = ("auth", "permits", "entry", "checklists", "inspections", "sampling", "program", "photos", "sync",
           "completion", "bonds", "enforcement", "agenda", "public", "notifications", "reports", "exports", "web")
MODEL_DOMAINS = ("auth", "permits", "entry", "checklists", "inspections", "sampling", "program", "photos",
                 "sync", "completion", "bonds", "enforcement", "public", "notifications")


def import_models() -> None:
    """Import every domain's models so the metadata (and Alembic) sees all tables. Domains are
    imported here and in create_app, not when the package is: `import inspect_api.clock` must not load
    every domain, and the domains import the core, which is this package."""
    for domain in MODEL_DOMAINS:
        importlib.import_module(f"{__name__}.{domain}.models")


def create_app(config: Config | None = None) -> Flask:
    cfg = config or config_for_environment()
    import_models()  # every domain, so the settings each one parses are declared before the check
    cfg.check()
    app = Flask(__name__, instance_path=str(instance_path(getattr(cfg, "INSTANCE_PATH", None))), static_folder=None)
    app.json = OrjsonProvider(app)  # the same JSON text as Flask's provider, written by orjson
    app.config.from_object(cfg)
    app.url_map.converters["record"] = RecordIdConverter  # before any blueprint adds a rule
    clock.one_day_per_request(app)  # before every other hook
    proxies = int(app.config.get("TRUSTED_PROXIES") or 0)
    if proxies < 0:
        raise RuntimeError("TRUSTED_PROXIES must be 0 or more")
    if proxies:
        # The client's address and scheme as the trusted proxies saw them; X-Forwarded-Host is not
        # trusted: absolute URLs are built on PUBLIC_BASE_URL, never on the request's Host.
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=proxies, x_proto=proxies)
    # The instance folder is made only when a default needs it: a production process with its own
    # database and storage may run from a read-only working directory.
    if not app.config.get("SQLALCHEMY_DATABASE_URI"):
        Path(app.instance_path).mkdir(parents=True, exist_ok=True)
        app.config["SQLALCHEMY_DATABASE_URI"] = f"sqlite:///{Path(app.instance_path, 'inspect_api.sqlite3')}"
    if not app.config.get("STORAGE_URL"):
        app.config["STORAGE_URL"] = Path(app.instance_path, "blobs").as_uri()
    uri = app.config["SQLALCHEMY_DATABASE_URI"]
    if uri.startswith("postgres://"):
        app.config["SQLALCHEMY_DATABASE_URI"] = "postgresql+psycopg://" + uri[len("postgres://"):]
    elif uri.startswith("postgresql://"):
        app.config["SQLALCHEMY_DATABASE_URI"] = "postgresql+psycopg://" + uri[len("postgresql://"):]
    app.config["API_SPEC_OPTIONS"] = {
        "info": {"description": "Land disturbance permits, inspections and close-out under the Town of "
                                "Fairhaven stormwater bylaw (Ch. 194, Part 3)."},
        "components": {"securitySchemes": {
            "bearerAuth": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT",
                           "description": "The access token from /auth/login or /auth/refresh"},
            "refreshToken": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT",
                             "description": "The refresh token from /auth/login, sent only to /auth/refresh"}}},
        "security": [{"bearerAuth": []}],
    }

    # Stored JSON columns are read by orjson (json_provider.load_stored): lists read many of them.
    app.config["SQLALCHEMY_ENGINE_OPTIONS"] = {"json_deserializer": load_stored,
                                               **app.config.get("SQLALCHEMY_ENGINE_OPTIONS", {})}
    db.init_app(app)
    with app.app_context():
        configure_engine_events(db.engine)
        changes.set_numbering(db.engine, app.config.get("SYNC_FEED_NUMBERING", "counter"))
    migrate.init_app(app, db, directory=str(MIGRATIONS_ROOT), render_as_batch=True,
                     compare_type=True)
    jwt.init_app(app)
    from .auth import jwt_callbacks  # noqa: F401  (registers the JWT hooks)
    limiter.init_app(app)
    api.init_app(app, spec_kwargs=openapi.spec_kwargs())  # operationIds and component names
    compress.init_app(app)  # before the HTTP policies: their after_request hooks must see plain JSON
    for domain in DOMAINS:
        routes = importlib.import_module(f"{__name__}.{domain}.routes")
        for blueprint in routes.blueprints if hasattr(routes, "blueprints") else [routes.blp]:
            if getattr(blueprint, "_is_smorest", True) and hasattr(blueprint, "arguments"):
                api.register_blueprint(blueprint)
            else:
                app.register_blueprint(blueprint)
    openapi.group_tags(api.spec)  # one tag per domain, once every blueprint has declared its own
    # The records photos attach to: sampling and completion sit beside and above photos, so the app
    # names them all here rather than photos importing them.
    from .completion.models import CompletionNotice
    from .entry.models import EntryAuthorization
    from .inspections.models import Finding, Inspection
    from .photos import parents as photo_parents
    from .sampling.models import Sample
    for kind, model in (("inspection", Inspection), ("finding", Finding), ("sample", Sample),
                        ("entry_authorization", EntryAuthorization), ("completion_notice", CompletionNotice)):
        photo_parents.register_parent(kind, model)
    photo_parents.check_parents()
    # Questions a domain asks of one above it, answered by the owner of the data (questions.py).
    from .bonds.services import security_held
    from .enforcement.services import cease_and_desist_open
    from .inspections.workflow import CEASE_AND_DESIST_OPEN
    from .permits.commencement import SECURITY_HELD
    from .permits.parts import PHOTO_SEEN_ON_PERMIT
    from .photos.services import photo_seen_on_permit
    SECURITY_HELD.answer(security_held)
    PHOTO_SEEN_ON_PERMIT.answer(photo_seen_on_permit)
    CEASE_AND_DESIST_OPEN.answer(cease_and_desist_open)
    questions.check_answered()
    # Sync's declarations: an incomplete one stops the start here; the PATCH settling of records sent
    # back is installed with them, and the snapshot commit hook with the snapshots module.
    from .sync import adapters as sync_adapters, registry as sync_registry, sent_back as sync_sent_back
    from .sync import snapshots  # noqa: F401
    sync_sent_back.install(sync_registry.load(sync_adapters.declarations()).values())
    from .notifications import receivers as notification_receivers
    notification_receivers.connect()  # the messages the domains' signals send
    signals.check_receivers()  # a signal that must notify and has no receiver stops the start here
    register_error_handlers(app)
    lanes.register(app)  # before the request transaction: its teardown runs after the rollback's
    register_request_transaction(app)
    register_http_policies(app)
    if app.config.get("GC_SETTLE"):
        collector.settle(int(app.config["GC_YOUNG_THRESHOLD"]))
    return app
