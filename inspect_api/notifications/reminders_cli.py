"""`inspect-api reminders run [--date YYYY-MM-DD]`: the daily reminder pass, for operators."""
from __future__ import annotations

import click
from flask.cli import with_appcontext

from .. import clock
from .reminders import run_pass


@click.group("reminders")
def reminders_group() -> None:
    """The daily reminders the worker sends at REMINDER_HOUR."""


@reminders_group.command("run")
@click.option("--date", "day", type=click.DateTime(formats=["%Y-%m-%d"]), default=None,
              help="The Town day to run the pass for (default: today in TIMEZONE).")
@with_appcontext
def run_command(day) -> None:
    """Write the day's reminders to the outbox now; the worker delivers them. Safe to repeat: each
    reminder is written once per item, recipient and day."""
    on = day.date() if day else clock.today()
    written = run_pass(on, worker="cli")
    click.echo(f"reminders for {on.isoformat()}: {written} message{'s' if written != 1 else ''} written")


commands = [reminders_group]
