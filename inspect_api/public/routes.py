"""The public's API and the office's queue of reports (API.md "Public"), and the public's pages.

Each module below serves one part; `blueprints` is what create_app registers, in this order."""
from __future__ import annotations

from .pages import bp as pages_bp  # HTML under /public/: a plain Flask blueprint, outside the OpenAPI document
from .routes_lookup import blp as lookup_blp
from .routes_queue import blp as queue_blp
from .routes_reports import blp as reports_blp

blueprints: list = [lookup_blp, reports_blp, queue_blp, pages_bp]
