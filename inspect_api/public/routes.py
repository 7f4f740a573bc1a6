"""The public's API and the office's queue of reports (API.md "Public"), and the public's pages.

Each module below serves one part; `blueprints` is what create_app registers, in this order."""
from __future__ import annotations

from . import audit_seal_pages  # noqa: F401  (the seals' page, on pages_bp)
from .pages import bp as pages_bp  # HTML under /public/: a plain Flask blueprint, outside the OpenAPI document
from .routes_audit_seals import blp as audit_seals_blp
from .routes_lookup import blp as lookup_blp
from .routes_queue import blp as queue_blp
from .routes_reports import blp as reports_blp

blueprints: list = [lookup_blp, reports_blp, queue_blp, audit_seals_blp, pages_bp]
