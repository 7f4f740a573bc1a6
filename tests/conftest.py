"""Fixtures shared by every suite.

The database is SQLite (a file, WAL) unless TEST_DATABASE_URL points at PostgreSQL; then each test
session creates its own throw-away database on that server, so parallel runs never collide.
The schema is built once per session; every test starts from empty tables plus reference data.
"""
from __future__ import annotations

import os
import uuid
from contextlib import contextmanager
from pathlib import Path

import pytest
import sqlalchemy as sa

from inspect_api import create_app, import_models
from inspect_api.config import TestConfig
from inspect_api.extensions import db

from .factories import DEMO_PASSWORDS, Factory

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def _admin_url(url: str) -> str:
    return url.replace("postgresql://", "postgresql+psycopg://", 1) if url.startswith("postgresql://") else url


@pytest.fixture(scope="session")
def database_url(tmp_path_factory):
    url = os.environ.get("TEST_DATABASE_URL")
    if not url:
        yield "sqlite:///" + str(tmp_path_factory.mktemp("db") / "test.sqlite3")
        return
    admin = sa.create_engine(_admin_url(url), isolation_level="AUTOCOMMIT")
    name = f"inspect_test_{uuid.uuid4().hex[:12]}"
    with admin.connect() as conn:
        conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    base = sa.engine.make_url(_admin_url(url))
    yield base.set(database=name).render_as_string(hide_password=False)
    with admin.connect() as conn:
        conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    admin.dispose()


@pytest.fixture(scope="session")
def _schema(database_url):
    import_models()
    engine = sa.create_engine(database_url)
    db.metadata.create_all(engine)
    engine.dispose()
    return database_url


def _empty_tables() -> None:
    from inspect_api.changes import SyncCounter
    from inspect_api.audit import MAINTENANCE_SETTING
    with db.engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            # The one way past the audit tables' append-only trigger (inspect_api/audit.py): a
            # setting for this transaction only, which the app's own connections never make.
            conn.exec_driver_sql(MAINTENANCE_SETTING)
        # DELETE in reverse dependency order: on these small tables it is far faster than TRUNCATE,
        # which rewrites every table's files on PostgreSQL.
        for table in reversed(db.metadata.sorted_tables):
            conn.execute(table.delete())
        conn.execute(SyncCounter.__table__.insert().values(id=1, value=0, purged_through=0))


def _reset_database() -> None:
    """Empty tables plus reference data, committed: where every test starts."""
    from inspect_api.seed import run_all
    _empty_tables()
    run_all()
    db.session.commit()


@pytest.fixture
def config(_schema, tmp_path):
    return TestConfig(SQLALCHEMY_DATABASE_URI=_schema, STORAGE_URL=(tmp_path / "blobs").as_uri())


@contextmanager
def fresh_app(config):
    """A new app on empty tables plus reference data, inside its app context."""
    app = create_app(config)
    with app.app_context():
        _reset_database()
        yield app
        db.session.remove()
        db.engine.dispose()


# Settings read from app.config on every request, so one built app serves tests that differ only in
# these (each test's own blob folder or S3 prefix, its upload spool folder). A test whose config differs
# in anything else gets an app built for that config.
PER_TEST_SETTINGS = ("STORAGE_URL", "S3_ENDPOINT_URL", "UPLOAD_TEMP_DIR")
_APPS_KEPT = 4


def _settings(config) -> dict:
    return {name: getattr(config, name) for name in dir(config) if name.isupper()}


@pytest.fixture(scope="session")
def _built_apps():
    """Apps built so far, by the settings they were built with (least recently used first).
    Building an app (blueprints, the OpenAPI document) costs far more than most tests."""
    apps: dict[str, object] = {}
    yield apps
    for built in apps.values():
        with built.app_context():
            db.engine.dispose()


@pytest.fixture
def app(config, _built_apps):
    """The app for `config`, inside its app context, on empty tables plus reference data. Built once
    per distinct config and reused: everything a test may change on it (app.config, the blob store,
    rate-limit counters, the database) is put back before the next test."""
    from inspect_api.extensions import limiter
    settings = _settings(config)
    key = repr(sorted((name, value) for name, value in settings.items() if name not in PER_TEST_SETTINGS))
    built = _built_apps.pop(key, None)
    if built is None:
        if len(_built_apps) >= _APPS_KEPT:
            oldest = _built_apps.pop(next(iter(_built_apps)))
            with oldest.app_context():
                db.engine.dispose()
        built = create_app(config)
    _built_apps[key] = built  # most recently used last
    saved = dict(built.config)
    built.config.update({name: settings[name] for name in PER_TEST_SETTINGS if name in settings})
    built.extensions.pop("blob_store", None)
    try:
        with built.app_context():
            _reset_database()
            limiter.reset()
            yield built
            db.session.remove()
    finally:
        built.config.clear()
        built.config.update(saved)
        built.extensions.pop("blob_store", None)


@pytest.fixture
def client(app):
    """The test client; every /api/v1 answer it receives is checked against the OpenAPI document."""
    from .openapi_contract import ContractClient
    app.test_client_class = ContractClient
    return app.test_client()


@pytest.fixture
def factory(app, client):
    return Factory(app, client)


@pytest.fixture
def is_postgres(database_url):
    return database_url.startswith("postgresql")


S3_TEST_BUCKET = "inspect-test"


def s3_test_config(schema: str, endpoint: str) -> TestConfig:
    """A test's configuration storing its blobs on moto's S3 server, under a key prefix of its own."""
    prefix = f"t-{uuid.uuid4().hex[:12]}"
    return TestConfig(SQLALCHEMY_DATABASE_URI=schema, STORAGE_URL=f"s3://{S3_TEST_BUCKET}/{prefix}",
                      S3_ENDPOINT_URL=endpoint)


@pytest.fixture(scope="session")
def moto_endpoint():
    """A real S3 endpoint over HTTP: moto's standalone server on 127.0.0.1 with one bucket
    (`S3_TEST_BUCKET`); tests keep apart by using their own key prefix."""
    import boto3
    from moto.server import ThreadedMotoServer
    patch = pytest.MonkeyPatch()
    for name, value in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                        "AWS_DEFAULT_REGION": "us-east-1", "AWS_SHARED_CREDENTIALS_FILE": "/dev/null",
                        "AWS_CONFIG_FILE": "/dev/null"}.items():
        patch.setenv(name, value)
    patch.delenv("AWS_SESSION_TOKEN", raising=False)
    patch.delenv("AWS_PROFILE", raising=False)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    boto3.client("s3", endpoint_url=endpoint).create_bucket(Bucket=S3_TEST_BUCKET)
    yield endpoint
    server.stop()
    patch.undo()


@pytest.fixture
def shared_data():
    folder = SHARED_DATA / "real-exif"
    if not folder.is_dir():
        pytest.skip(f"real camera files not present at {folder} (the ../shared folder beside the checkout)")
    return folder


def pytest_collection_modifyitems(config, items):
    """`postgres` tests check what only PostgreSQL does (concurrent writers, row locks): on SQLite they
    are skipped, saying why. `-m "not slow"` leaves out the long harnesses for a quick run."""
    url = os.environ.get("TEST_DATABASE_URL") or ""
    if url.startswith("postgresql"):
        return
    skip = pytest.mark.skip(reason="PostgreSQL only: set TEST_DATABASE_URL=postgresql://... to run it")
    for item in items:
        if "postgres" in item.keywords:
            item.add_marker(skip)


def pytest_report_header(config):
    url = os.environ.get("TEST_DATABASE_URL")
    if url:
        return f"database: PostgreSQL ({sa.engine.make_url(url).render_as_string(hide_password=True)})"
    return "database: SQLite (set TEST_DATABASE_URL=postgresql://... to run the suite on PostgreSQL)"


@pytest.fixture
def demo_town(app):
    """The demo town (inspect_api.demo), built on the test database without serving."""
    from inspect_api import demo
    return demo.build_demo_data(DEMO_PASSWORDS)
