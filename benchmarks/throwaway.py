"""A fresh database for one benchmark run: a temporary SQLite file, or a new database on a PostgreSQL
server (created here, dropped by `drop`, even while connections remain)."""
from __future__ import annotations

import argparse
import os
import tempfile
import uuid
from typing import Any, Callable

import sqlalchemy as sa


def psycopg_url(url: str) -> str:
    """SQLAlchemy's spelling of a PostgreSQL URL served through psycopg 3."""
    return url.replace("postgresql://", "postgresql+psycopg://", 1) if url.startswith("postgresql://") else url


class Throwaway:
    def __init__(self, pg_url: str | None, prefix: str) -> None:
        self.pg_url, self.name = pg_url, None
        if pg_url:
            self.admin = sa.create_engine(psycopg_url(pg_url), isolation_level="AUTOCOMMIT")
            self.name = f"{prefix}_{uuid.uuid4().hex[:10]}"
            with self.admin.connect() as conn:
                conn.exec_driver_sql(f'CREATE DATABASE "{self.name}"')
            self.url = sa.engine.make_url(psycopg_url(pg_url)).set(database=self.name).render_as_string(False)
        else:
            self.folder = tempfile.TemporaryDirectory(prefix=f"{prefix}-")
            self.url = f"sqlite:///{self.folder.name}/bench.sqlite3"

    @property
    def conninfo(self) -> str:
        """The new PostgreSQL database as a libpq URI, for scripts that connect with psycopg directly."""
        return sa.engine.make_url(self.pg_url).set(drivername="postgresql", database=self.name).render_as_string(False)

    def setting(self, name: str) -> str:
        """A server setting (SHOW name), printed beside figures that depend on it (fsync, synchronous_commit)."""
        with self.admin.connect() as conn:
            return conn.exec_driver_sql(f"SHOW {name}").scalar()

    def drop(self) -> None:
        if self.name:
            with self.admin.connect() as conn:
                conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')
            self.admin.dispose()
        else:
            self.folder.cleanup()


def database_options(parser: argparse.ArgumentParser) -> None:
    """`--pg` (default: TEST_DATABASE_URL) and `--no-sqlite`, for a benchmark run on either database."""
    parser.add_argument("--pg", "--database-url", dest="pg", default=os.environ.get("TEST_DATABASE_URL"),
                        help="PostgreSQL server URL (a throwaway database is made on it)")
    parser.add_argument("--no-sqlite", action="store_true")


def on_each_database(args: argparse.Namespace, run: Callable[[str, str | None, Any], None]) -> None:
    """`run(label, pg_url, args)` on SQLite unless --no-sqlite, then on PostgreSQL if --pg names a server."""
    if not args.no_sqlite:
        run("SQLite", None, args)
    if args.pg:
        run("PostgreSQL", args.pg, args)
