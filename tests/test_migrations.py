"""The Alembic migrations build the same schema as the models, from empty, on SQLite and PostgreSQL,
load the same reference data as the app's seed, keep working when a later revision changes a seeded
table, and downgrade back to nothing."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from flask_migrate import downgrade, upgrade

from inspect_api import create_app
from inspect_api.config import MIGRATIONS_ROOT, TestConfig
from inspect_api.db import UTCDateTime
from inspect_api.extensions import db


@pytest.fixture
def empty_database_url(tmp_path):
    url = os.environ.get("TEST_DATABASE_URL")
    if not url:
        yield "sqlite:///" + str(tmp_path / "migrations.sqlite3")
        return
    admin_url = url.replace("postgresql://", "postgresql+psycopg://", 1)
    admin = sa.create_engine(admin_url, isolation_level="AUTOCOMMIT")
    name = f"inspect_mig_{uuid.uuid4().hex[:10]}"
    with admin.connect() as conn:
        conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    yield sa.engine.make_url(admin_url).set(database=name).render_as_string(hide_password=False)
    with admin.connect() as conn:
        conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    admin.dispose()


def test_upgrade_matches_models_then_downgrade_to_empty(empty_database_url, tmp_path):
    app = create_app(TestConfig(SQLALCHEMY_DATABASE_URI=empty_database_url, STORAGE_URL=(tmp_path / "b").as_uri()))
    with app.app_context():
        upgrade()
        with db.engine.connect() as conn:
            diffs = compare_metadata(MigrationContext.configure(conn, opts={"compare_type": True}), db.metadata)
            assert diffs == [], f"models and migrations differ: {diffs}"
            assert conn.execute(sa.text("SELECT value FROM sync_counter WHERE id = 1")).scalar_one() == 0
        tables = set(sa.inspect(db.engine).get_table_names())
        assert {"users", "permits", "audit_log", "sync_changes"} <= tables
        downgrade(revision="base")
        db.engine.dispose()
        left = set(sa.inspect(db.engine).get_table_names()) - {"alembic_version"}
        assert left == set()
        db.engine.dispose()


def _reference_rows(connection) -> dict[str, list]:
    """Every non-empty table's rows, minus what is generated when a row is written (uuid ids,
    timestamps), in a stable order: what the reference data says, not when it was loaded."""
    found = {}
    for table in db.metadata.sorted_tables:
        kept = [c for c in table.columns
                if not isinstance(c.type, (sa.DateTime, UTCDateTime)) and not (c.name == "id" and isinstance(c.type, sa.String))]
        rows = [{c.name: row._mapping[c] for c in kept} for row in connection.execute(sa.select(*kept))]
        if rows:
            found[table.name] = sorted(rows, key=repr)
    return found


def test_migrations_load_the_same_reference_data_as_the_app_seed(app, empty_database_url, tmp_path):
    """tests and the demo load reference data with inspect_api.seed; a database made by `db upgrade`
    gets the migrations' frozen copy. They must agree table by table, row by row."""
    with db.engine.connect() as conn:
        seeded = _reference_rows(conn)
    migrated_app = create_app(TestConfig(SQLALCHEMY_DATABASE_URI=empty_database_url,
                                         STORAGE_URL=(tmp_path / "b").as_uri()))
    with migrated_app.app_context():
        upgrade()
        with db.engine.connect() as conn:
            migrated = _reference_rows(conn)
        db.engine.dispose()
    assert {"checklist_templates", "action_levels", "fine_schedules", "sync_counter"} <= set(seeded)
    assert sorted(migrated) == sorted(seeded)
    for table in seeded:
        assert migrated[table] == seeded[table], table


LATER_REVISION = '''"""a later release: action levels gain a note

Revision ID: {revision}
Revises: {down_revision}
"""
from alembic import op
import sqlalchemy as sa

revision = "{revision}"
down_revision = "{down_revision}"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("action_levels") as batch_op:
        batch_op.add_column(sa.Column("note", sa.Text(), nullable=False, server_default=""))
    levels = sa.table("action_levels", sa.column("parameter", sa.String), sa.column("note", sa.Text))
    op.execute(levels.update().where(levels.c.parameter == "ph").values(note="checked in the field"))


def downgrade():
    with op.batch_alter_table("action_levels") as batch_op:
        batch_op.drop_column("note")
'''

# Runs in its own process because it changes the ORM models the way the later release would (a new
# mapped column on ActionLevel), which cannot be undone inside this test session.
LATER_RELEASE = '''
import sys
import sqlalchemy as sa
from sqlalchemy.orm import mapped_column
from flask_migrate import upgrade
from inspect_api import create_app
from inspect_api.config import MIGRATIONS_ROOT, TestConfig
from inspect_api.db import UTCDateTime
from inspect_api.sampling.models import ActionLevel

ActionLevel.note = mapped_column(sa.Text, nullable=False, default="")
url, storage, directory = sys.argv[1:4]
app = create_app(TestConfig(SQLALCHEMY_DATABASE_URI=url, STORAGE_URL=storage))
with app.app_context():
    upgrade(directory=directory)
'''


def test_upgrade_through_a_later_migration_that_changes_a_seeded_table(empty_database_url, tmp_path):
    """The initial revision must not depend on today's models: once a later revision (and the models)
    add a column to a seeded table, an empty database still upgrades through both."""
    migrations = tmp_path / "migrations"
    shutil.copytree(MIGRATIONS_ROOT, migrations, ignore=shutil.ignore_patterns("__pycache__"))
    head = ScriptDirectory(str(migrations)).get_current_head()
    later = "f00dfeedbeef"
    (migrations / "versions" / f"{later}_action_level_note.py").write_text(
        LATER_REVISION.format(revision=later, down_revision=head))

    done = subprocess.run([sys.executable, "-c", LATER_RELEASE, empty_database_url, (tmp_path / "b").as_uri(),
                           str(migrations)], capture_output=True, text=True, timeout=600, cwd=Path(__file__).resolve().parents[1])
    assert done.returncode == 0, done.stderr[-3000:]

    engine = sa.create_engine(empty_database_url)
    try:
        with engine.connect() as conn:
            assert conn.execute(sa.text("SELECT version_num FROM alembic_version")).scalars().all() == [later]
            levels = dict(conn.execute(sa.text("SELECT parameter, note FROM action_levels")).all())
        assert levels == {"turbidity": "", "ph": "checked in the field"}
    finally:
        engine.dispose()


@pytest.mark.parametrize("host_logging", [False, True], ids=["bare process (the demo)", "logging set up by the host"])
def test_the_app_still_logs_its_errors_after_the_migrations_ran(empty_database_url, tmp_path, caplog, host_logging):
    """The demo runs the migrations in its own process before serving: Alembic's logging setup must leave
    the loggers already made working, or every 500's traceback is dropped from the demo's log."""
    import logging
    app = create_app(TestConfig(SQLALCHEMY_DATABASE_URI=empty_database_url, STORAGE_URL=(tmp_path / "b").as_uri(),
                                PROPAGATE_EXCEPTIONS=False))

    @app.get("/api/v1/test-boom")
    def boom():
        raise RuntimeError("boom after the migrations")

    root = logging.getLogger()
    saved_handlers, saved_level = root.handlers[:], root.level
    named = {name: (logging.getLogger(name).level, logging.getLogger(name).handlers[:])
             for name in ("alembic", "sqlalchemy.engine", "flask_migrate")}
    if not host_logging:
        for handler in saved_handlers:
            root.removeHandler(handler)
    try:
        with app.app_context():
            upgrade()
            db.engine.dispose()
    finally:
        for handler in root.handlers[:]:
            root.removeHandler(handler)
        for handler in saved_handlers:
            root.addHandler(handler)
        root.setLevel(saved_level)
        for name, (level, handlers) in named.items():
            logging.getLogger(name).setLevel(level)
            logging.getLogger(name).handlers[:] = handlers
    for name in ("inspect_api.errors", app.logger.name, "werkzeug"):
        assert not logging.getLogger(name).disabled, name
    caplog.clear()
    with caplog.at_level(logging.ERROR):
        r = app.test_client().get("/api/v1/test-boom")
    assert r.status_code == 500 and r.get_json()["error"] == "internal_error"
    logged = [rec for rec in caplog.records if rec.name == "inspect_api.errors" and rec.levelno == logging.ERROR]
    assert logged and "boom after the migrations" in str(logged[0].exc_info[1]), caplog.records
    with app.app_context():
        downgrade(revision="base")
        db.engine.dispose()
