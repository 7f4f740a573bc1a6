"""`inspect-api deadlines`: the supervisors' Deadlines view on the command line, for a daily cron mail."""
from __future__ import annotations

import json
from datetime import date

import click
from flask.cli import with_appcontext

from .. import clock
from . import rules, services
from .rules import Item
from .schemas import DeadlineSchema


def as_text(items: list[Item], before: date, today: date) -> str:
    """A plain table for a daily cron mail."""
    head = f"Deadlines before {before.isoformat()} (today {today.isoformat()}, {clock.town_zone().key}): {len(items)}"
    if not items:
        return head + "\nNothing due."
    width = max(len(i.permit_number or "-") for i in items)
    lines = [head, f"{'due on':<10}  {'':<7}  {'kind':<19}  {'permit':<{width}}  summary"]
    for i in items:
        flag = "OVERDUE" if i.overdue else ""
        lines.append(f"{i.due_on.isoformat():<10}  {flag:<7}  {i.kind:<19}  "
                     f"{(i.permit_number or '-'):<{width}}  {i.summary}")
    return "\n".join(lines)


@click.command("deadlines")
@click.option("--before", type=click.DateTime(formats=["%Y-%m-%d"]), default=None,
              help="List what is due strictly before this day (YYYY-MM-DD); default: the next 7 days.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="text: a table for mail; json: exactly what GET /api/v1/deadlines answers.")
@with_appcontext
def deadlines(before, fmt: str) -> None:
    """Print findings, orders, final reports, cost notices, protest windows, bond releases and overdue inspections."""
    today = clock.today()
    day = before.date() if before else rules.default_before(today)
    items = services.deadlines(day, today)
    if fmt == "json":
        click.echo(json.dumps(DeadlineSchema(many=True).dump(items), indent=2, ensure_ascii=False, sort_keys=True))
    else:
        click.echo(as_text(items, day, today))


commands = [deadlines]
