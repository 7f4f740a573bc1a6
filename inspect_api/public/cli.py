"""`inspect-api public erase-contacts [--date YYYY-MM-DD]`: the erasure of residents' contact details, for
operators (the worker runs it on every pass)."""
from __future__ import annotations

import click
from flask import current_app
from flask.cli import with_appcontext

from .. import clock
from ..extensions import db
from .reports import erase_due_contacts
from .rules import erase_closed_before


@click.group("public")
def public_group() -> None:
    """Reports from the public."""


@public_group.command("erase-contacts")
@click.option("--date", "day", type=click.DateTime(formats=["%Y-%m-%d"]), default=None,
              help="The Town day to erase as of (default: today in TIMEZONE).")
@with_appcontext
def erase_contacts_command(day) -> None:
    """Erase the name, e-mail and phone of every report closed more than PUBLIC_REPORT_CONTACT_DAYS days
    ago; the reports stay. Safe to repeat."""
    on = day.date() if day else clock.today()
    erased = erase_due_contacts(on)
    db.session.commit()
    first_kept = erase_closed_before(on, int(current_app.config["PUBLIC_REPORT_CONTACT_DAYS"]))
    click.echo(f"contact details erased from {len(erased)} report{'s' if len(erased) != 1 else ''} "
               f"closed before {first_kept.isoformat()}")


commands = [public_group]
