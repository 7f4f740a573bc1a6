"""Tombstone retention (TOMBSTONE_RETENTION_DAYS, default 90): older tombstones and mutation
outcomes are deleted, and SyncCounter.purged_through remembers up to where, so a cursor from
before it answers 410 cursor_expired instead of silently missing a deletion."""
from __future__ import annotations

from datetime import datetime, timedelta

from flask import current_app
from sqlalchemy import delete, func, select, update

from .. import clock
from ..changes import SyncChange, SyncCounter
from ..extensions import db
from .models import SyncMutation


def purge_tombstones(retention_days: int | None = None, now: datetime | None = None) -> dict[str, int]:
    days = current_app.config["TOMBSTONE_RETENTION_DAYS"] if retention_days is None else retention_days
    cutoff = (now or clock.now()) - timedelta(days=days)
    newest = db.session.scalar(select(func.max(SyncChange.seq)).where(SyncChange.op == "delete",
                                                                       SyncChange.changed_at < cutoff))
    deleted = 0
    if newest is not None:
        # Every tombstone up to the newest expired one goes, so "below purged_through" means exactly
        # "a deletion may be missing" (clocks of several servers may not be perfectly in step).
        deleted = db.session.execute(delete(SyncChange).where(SyncChange.op == "delete",
                                                              SyncChange.seq <= newest)).rowcount
        db.session.execute(update(SyncCounter).where(SyncCounter.id == 1, SyncCounter.purged_through < newest)
                           .values(purged_through=newest))
    # An outcome older than the retention is no longer needed to answer a resend: a device offline
    # that long must pull from scratch, and its stale edits meet a newer version (a conflict).
    outcomes = db.session.execute(delete(SyncMutation).where(SyncMutation.at < cutoff)).rowcount
    db.session.flush()
    purged = db.session.scalar(select(SyncCounter.purged_through).where(SyncCounter.id == 1))
    return {"tombstones_deleted": deleted, "outcomes_deleted": outcomes, "purged_through": purged}
