"""The public page of the audit trail's seals (/public/audit-seals): the recent days' seals, so that
anyone can hold the Town to its own past (README "Tamper-evident audit trail")."""
from __future__ import annotations

from ..audit_seals import recent_seals
from .pages import _page, bp

SHOWN = 60


@bp.get("/audit-seals")
def audit_seals_page():
    """The recent seals, newest first: day, rows, Merkle root and seal hash."""
    return _page("public/audit_seals.html", cacheable=True, seals=recent_seals(SHOWN))
