"""Engine settings and the one-commit-per-request rule.

Services only flush. After a successful response the request commits once; any error response or
exception rolls everything back, so a half-applied change never lands (indico's RH pattern).
"""
from __future__ import annotations

import logging

from flask import Flask
from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError, OperationalError

from .errors import error_response
from .extensions import db

log = logging.getLogger(__name__)


def configure_engine_events(engine: Engine) -> None:
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
        # Let SQLAlchemy, not pysqlite, emit BEGIN. The embedded default serialises transactions with
        # BEGIN IMMEDIATE: a read that later writes can then never fail with SQLITE_BUSY halfway, and
        # checks such as "released never exceeds the bond" hold under concurrent requests.
        dbapi_connection.isolation_level = None

    @event.listens_for(engine, "begin")
    def _begin(conn):
        conn.exec_driver_sql("BEGIN IMMEDIATE")


def register_request_transaction(app: Flask) -> None:
    @app.after_request
    def _commit_or_rollback(response):
        if response.status_code >= 400:
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
            db.session.rollback()
