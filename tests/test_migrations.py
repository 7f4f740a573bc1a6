"""The Alembic migrations build the same schema as the models, from empty, on SQLite and PostgreSQL,
seed the reference data, and downgrade back to nothing."""
from __future__ import annotations

import os
import uuid

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from flask_migrate import downgrade, upgrade

from inspect_api import create_app
from inspect_api.config import TestConfig
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
