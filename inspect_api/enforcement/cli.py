"""`inspect-api deadlines`: the supervisors' deadlines view on the command line, for a daily cron mail."""
from __future__ import annotations

import json

import click
from flask.cli import with_appcontext

from .. import clock
from . import deadlines as view
from .schemas import DeadlineSchema


@click.command("deadlines")
@click.option("--before", type=click.DateTime(formats=["%Y-%m-%d"]), default=None,
              help="List what is due strictly before this day (YYYY-MM-DD); default: the next 7 days.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="text: a table for mail; json: exactly what GET /api/v1/deadlines answers.")
@with_appcontext
def deadlines(before, fmt: str) -> None:
    """Print findings, orders, final reports, cost notices, protest windows, bond releases and overdue inspections."""
    today = clock.today()
    day = before.date() if before else view.default_before(today)
    items = view.deadlines(day, today)
    if fmt == "json":
        click.echo(json.dumps(DeadlineSchema(many=True).dump(items), indent=2, ensure_ascii=False, sort_keys=True))
    else:
        click.echo(view.as_text(items, day, today))


commands = [deadlines]
