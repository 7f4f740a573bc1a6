"""`inspect-api worker [--once] [--mail-only | --photos-only]`: deliver the outbox and make photo
thumbnails."""
from __future__ import annotations

import threading

import click
from flask import current_app
from flask.cli import with_appcontext

from ..photos import derivation


@click.command("worker")
@click.option("--once", is_flag=True, help="Do everything due now, then exit (for cron or tests).")
@click.option("--mail-only", is_flag=True, help="Deliver e-mail only (another worker makes the thumbnails).")
@click.option("--photos-only", is_flag=True, help="Make photo thumbnails only (another worker delivers e-mail).")
@with_appcontext
def worker_command(once: bool, mail_only: bool, photos_only: bool) -> None:
    """Deliver queued e-mail over SMTP_URL (or as .eml files under <instance>/mail/ without it), and
    make the display and small thumbnails of uploaded photos on a thread beside it.

    Run one or more beside gunicorn; on PostgreSQL several may run at once and never send a message
    twice or make one photo's thumbnails twice. On SQLite run one."""
    if mail_only and photos_only:
        raise click.UsageError("--mail-only and --photos-only exclude each other.")
    if once:
        if not photos_only:
            click.echo(str(run(once=True, echo=click.echo)))
        if not mail_only:
            photos = derivation.drain()
            if photos.ids or photos_only:  # a mail-only install never sees a line about photos
                click.echo(str(photos))
        return
    if photos_only:
        derivation.run(echo=click.echo)
        return
    stop = threading.Event()
    photos = None if mail_only else derivation.start_thread(current_app._get_current_object(), stop, click.echo)
    try:
        run(echo=click.echo)  # until SIGTERM or SIGINT
    finally:
        stop.set()
        if photos is not None:  # the photo in hand is finished, then the thread ends
            photos.join(timeout=current_app.config["PHOTO_DERIVE_LEASE_SECONDS"])


commands = [worker_command]

# `inspect-api reminders run` (reminders_cli.py) is registered beside the worker.
from .reminders_cli import commands as _reminder_commands  # noqa: E402
from .worker import run

commands += _reminder_commands
