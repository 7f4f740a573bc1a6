"""`inspect-api storm-events import FILE`: load a NOAA Climate Data Online daily CSV, as the API's upload does."""
from __future__ import annotations

import click
from flask.cli import with_appcontext
from ..errors import ApiError
from ..extensions import db
from .noaa import UNITS
from .storm_events import import_daily_csv


@click.group("storm-events")
def storm_events_group() -> None:
    """Storm events that oblige storm-event inspections."""


@storm_events_group.command("import")
@click.argument("file", type=click.File("r", encoding="utf-8-sig"))
@click.option("--units", type=click.Choice(UNITS), default="standard", show_default=True,
              help="The units the CDO order was placed in: standard (PRCP in inches) or metric (millimetres).")
@with_appcontext
def import_command(file, units: str) -> None:
    """Import a NOAA CDO daily CSV: one storm per day at or over the threshold (re-importing changes nothing)."""
    try:
        result = import_daily_csv(None, file.read(), getattr(file, "name", None), units=units)
        db.session.commit()
    except ApiError as exc:
        db.session.rollback()
        details = "\n".join(f"  {p}" for p in exc.errors.get("file", []))
        raise click.ClickException(exc.message + ("\n" + details if details else "")) from exc
    click.echo(f"{result['days_read']} day(s) read: {result['created']} storm event(s) created, "
               f"{result['updated']} updated, {result['unchanged']} unchanged, "
               f"{result['below_threshold']} day(s) under the threshold")
    for event in result["events"]:
        click.echo(f"  {event.rain_day.isoformat()}  {event.inches:.2f} in  {event.station or ''}")


commands = [storm_events_group]
