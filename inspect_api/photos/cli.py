"""`inspect-api photos ...`: maintenance of photo uploads."""
from __future__ import annotations

import time
from datetime import timedelta

import click
from flask.cli import with_appcontext
from flask import current_app

from .. import clock
from ..extensions import db
from ..uploads import TEMP_PREFIX, temp_dir
from .resumable import cleanup_expired


@click.group("photos")
def photos() -> None:
    """Photo evidence maintenance."""


@photos.command("cleanup-uploads")
@click.option("--older-than-hours", type=float, default=None,
              help="Also treat unfinished uploads idle this long as expired (default: UPLOAD_EXPIRY_HOURS only).")
@with_appcontext
def cleanup_uploads(older_than_hours: float | None) -> None:
    """Delete expired resumable uploads with their stored bytes, and stale temporary files."""
    now = clock.now()
    if older_than_hours is not None:
        now = now + timedelta(hours=current_app.config["UPLOAD_EXPIRY_HOURS"] - older_than_hours)
    removed = cleanup_expired(now=now)
    db.session.commit()
    stale = _remove_stale_temp_files(max_age_s=6 * 3600)
    click.echo(f"removed {removed} expired upload(s) and {stale} stale temporary file(s)")


def _remove_stale_temp_files(max_age_s: float) -> int:
    """Temporary files a killed process could not remove (a live request never takes hours)."""
    count, cutoff = 0, time.time() - max_age_s
    folder = temp_dir()
    for path in folder.glob(f"{TEMP_PREFIX}*.part"):
        if path.stat().st_mtime < cutoff:
            path.unlink(missing_ok=True)
            count += 1
    for path in folder.glob("thumb-*.jpg"):
        if path.stat().st_mtime < cutoff:
            path.unlink(missing_ok=True)
            count += 1
    return count


commands = [photos]
