"""Engine settings and the one-commit-per-request rule.

Services only flush. After a successful response a write request commits once; any error response or
exception rolls everything back, so a half-applied change never lands (indico's RH pattern). A read
(GET, HEAD, OPTIONS) never commits: whatever it might have changed is rolled back. The one read that
records something is marked with @writes (sync pull notes when the device last pulled).
"""
from __future__ import annotations

import logging

from typing import Callable

from flask import Flask, current_app, has_request_context, request
from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError, OperationalError

from .errors import error_response
from .extensions import db

log = logging.getLogger(__name__)

READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def writes(fn: Callable) -> Callable:
    """Mark a GET view that records something (outermost decorator): its transaction starts as a
    writer's and commits like any write."""
    fn.__writes__ = True
    return fn


def request_writes() -> bool:
    """Does the current request (if any) write? Outside a request (CLI, scripts) the answer is yes."""
    if not has_request_context() or request.method not in READ_METHODS:
        return True
    view = current_app.view_functions.get(request.endpoint) if request.endpoint else None
    view_class = getattr(view, "view_class", None)
    handler = getattr(view_class, request.method.lower(), None) if view_class is not None else view
    return bool(getattr(handler, "__writes__", False))


def configure_engine_events(engine: Engine) -> None:
    configure_savepoints(engine)
    if engine.dialect.name != "sqlite":
        return

    @event.listens_for(engine, "connect")
    def _sqlite_pragmas(dbapi_connection, _record):
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA busy_timeout=10000")
        if engine.url.database not in (None, "", ":memory:"):
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()
        # Let SQLAlchemy, not pysqlite, emit BEGIN. A writing transaction starts with BEGIN IMMEDIATE,
        # which serialises writers: a read that later writes can then never fail with SQLITE_BUSY
        # halfway, and checks such as "released never exceeds the bond" hold under concurrent requests.
        # A read request takes no write lock (plain BEGIN): in WAL mode it reads its snapshot while a
        # slow write goes on, and never waits for one.
        dbapi_connection.isolation_level = None

    @event.listens_for(engine, "begin")
    def _begin(conn):
        conn.exec_driver_sql("BEGIN IMMEDIATE" if request_writes() else "BEGIN")


_RELEASES = "savepoint_releases_held"


def configure_savepoints(engine: Engine) -> None:
    """SAVEPOINT and RELEASE as plain driver statements, and on PostgreSQL each RELEASE sent with the
    next SAVEPOINT in one round trip.

    A sync push applies every mutation in a savepoint of its own: SAVEPOINT, the write, RELEASE, a
    hundred times per request. The dialect would compile each savepoint statement anew (their names
    differ, so they are never cached), and on PostgreSQL each is a round trip to the server.
    Holding a RELEASE until the next SAVEPOINT (or the end of the transaction, which releases
    every savepoint) changes no outcome: the statements run in between are outside every savepoint
    SQLAlchemy still has open, so nothing can roll back to the held one, and a ROLLBACK TO a
    savepoint still open also undoes the held ones (they lie inside it, having been made after it).
    A statement that fails in between leaves the transaction aborted either way.
    """
    dialect = engine.dialect
    hold = dialect.name == "postgresql"  # pysqlite runs one statement per call (and has no round trip)

    def quote(name: str) -> str:
        return dialect.identifier_preparer.format_savepoint(None, name)

    def do_savepoint(connection, name):
        held = connection.info.pop(_RELEASES, None) if hold else None
        sql = f"SAVEPOINT {quote(name)}"
        if held:
            sql = "; ".join([*(f"RELEASE SAVEPOINT {h}" for h in held), sql])
        connection.exec_driver_sql(sql)

    def do_release_savepoint(connection, name):
        quoted = quote(name)
        if hold:
            connection.info.setdefault(_RELEASES, []).append(quoted)
        else:
            connection.exec_driver_sql(f"RELEASE SAVEPOINT {quoted}")

    def do_rollback_to_savepoint(connection, name):
        connection.info.pop(_RELEASES, None)  # every held one lies inside the savepoint rolled back to
        connection.exec_driver_sql(f"ROLLBACK TO SAVEPOINT {quote(name)}")

    dialect.do_savepoint = do_savepoint
    dialect.do_release_savepoint = do_release_savepoint
    dialect.do_rollback_to_savepoint = do_rollback_to_savepoint

    if hold:
        @event.listens_for(engine, "commit")
        @event.listens_for(engine, "rollback")
        def _transaction_ended(connection):
            connection.info.pop(_RELEASES, None)


def register_request_transaction(app: Flask) -> None:
    @app.after_request
    def _commit_or_rollback(response):
        if response.status_code >= 400 or not request_writes():
            db.session.rollback()
            return response
        try:
            db.session.commit()
        except IntegrityError:
            db.session.rollback()
            log.warning("integrity error at commit", exc_info=True)
            return error_response(409, "The change collides with another one; reload and try again.", "conflict")
        except OperationalError:
            db.session.rollback()
            log.exception("database error at commit")
            return error_response(503, "The database is busy; try again.", "service_unavailable")
        return response

    @app.teardown_request
    def _rollback_on_error(exc):
        if exc is not None:
            try:
                db.session.rollback()
            except Exception:  # e.g. the connection is gone; the teardowns after this one must still run
                log.exception("rollback after a failed request")
