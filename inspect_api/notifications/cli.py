"""`inspect-api worker [--once]`: deliver the outbox."""
from __future__ import annotations

import click
from flask.cli import with_appcontext


@click.command("worker")
@click.option("--once", is_flag=True, help="Deliver everything due now, then exit (for cron or tests).")
@with_appcontext
def worker_command(once: bool) -> None:
    """Deliver queued e-mail over SMTP_URL (or as .eml files under <instance>/mail/ without it).

    Run one or more beside gunicorn; on PostgreSQL several may run at once and never send a message
    twice. On SQLite run one."""
    tally = run(once=once, echo=click.echo)
    if once:
        click.echo(str(tally))


commands = [worker_command]

# `inspect-api reminders run` (reminders_cli.py) is registered beside the worker.
from .reminders_cli import commands as _reminder_commands  # noqa: E402
from .worker import run

commands += _reminder_commands
