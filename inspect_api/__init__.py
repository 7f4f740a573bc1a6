"""inspect-api: permits, inspections and close-out under the Fairhaven stormwater bylaw."""
from __future__ import annotations

import importlib
import importlib.util
from pathlib import Path

from flask import Flask

from .config import MIGRATIONS_ROOT, Config, config_for_environment, instance_path
from .errors import register_error_handlers
from .extensions import api, db, jwt, limiter, migrate

# Domain packages, in the order their blueprints appear in the OpenAPI document. A package joins
# the app by having routes.py (a `blp`) and/or models.py; nothing else needs editing.
DOMAINS = ("auth", "permits", "entry", "checklists", "inspections", "sampling", "program", "photos", "sync",
           "completion", "bonds", "enforcement", "reports", "exports", "web")


def _domain_module(domain: str, part: str):
    name = f"{__name__}.{domain}.{part}"
    if importlib.util.find_spec(f"{__name__}.{domain}") is None or importlib.util.find_spec(name) is None:
        return None
    return importlib.import_module(name)


def import_models() -> None:
    """Import every domain's models so the metadata (and Alembic) sees all tables."""
    from . import audit, changes, numbering  # noqa: F401
    for domain in DOMAINS:
        _domain_module(domain, "models")


def create_app(config: Config | None = None) -> Flask:
    cfg = config or config_for_environment()
    cfg.check()
    app = Flask(__name__, instance_path=str(instance_path(getattr(cfg, "INSTANCE_PATH", None))), static_folder=None)
    app.config.from_object(cfg)
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
        "components": {"securitySchemes": {"bearerAuth": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT"}}},
        "security": [{"bearerAuth": []}],
    }

    import_models()
    db.init_app(app)
    from .database import configure_engine_events, register_request_transaction
    with app.app_context():
        configure_engine_events(db.engine)
    migrate.init_app(app, db, directory=str(MIGRATIONS_ROOT), render_as_batch=True,
                     compare_type=True)
    jwt.init_app(app)
    from .auth import jwt_callbacks  # noqa: F401  (registers the JWT hooks)
    limiter.init_app(app)
    api.init_app(app)
    for domain in DOMAINS:
        routes = _domain_module(domain, "routes")
        if routes is not None:
            for blueprint in getattr(routes, "blueprints", [routes.blp]):
                if getattr(blueprint, "_is_smorest", True) and hasattr(blueprint, "arguments"):
                    api.register_blueprint(blueprint)
                else:
                    app.register_blueprint(blueprint)
    register_error_handlers(app)
    register_request_transaction(app)
    from .http import register_http_policies
    register_http_policies(app)
    return app
