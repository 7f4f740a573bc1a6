"""The public's API and the office's queue of reports (API.md "Public")."""
from __future__ import annotations

from ..http import Blueprint

blp = Blueprint("public", __name__, url_prefix="/api/v1",
                description="The public, with no account: permit lookup and reports from residents")
