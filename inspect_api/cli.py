"""The `inspect-api` command: a Flask CLI group over create_app (run, db, users, demo, ...)."""
from __future__ import annotations

import sys

import click
from flask import current_app
from flask.cli import FlaskGroup, with_appcontext
from marshmallow import ValidationError

from . import audit_cli, create_app, demo, signing_cli
from .auth.models import ROLES
from .agenda import cli as agenda_cli
from .auth.services import create_user
from .errors import ApiError
from .extensions import db
from .exports import cli as exports_cli
from .notifications import cli as notifications_cli
from .photos import cli as photos_cli
from .program import cli as program_cli
from .public import cli as public_cli
from .schemas import EmailAddress


@click.group(cls=FlaskGroup, create_app=lambda: create_app())
def main() -> None:
    """inspect-api: Fairhaven stormwater permits, inspections and close-out."""


@main.group()
def users() -> None:
    """Manage user accounts."""


def _email_address(ctx, param, value: str) -> str:
    """The same rule as every address the API takes."""
    try:
        return EmailAddress().deserialize(value)
    except ValidationError as exc:
        raise click.BadParameter(" ".join(exc.messages)) from exc


def _password(password: str | None) -> str:
    """The option (or INSPECT_API_PASSWORD), else asked twice on a terminal, else the first line of
    standard input: a deploy script or cron job has no terminal to be asked on."""
    if password:
        return password
    stdin = sys.stdin
    if stdin is not None and stdin.isatty():
        return click.prompt("Password", hide_input=True, confirmation_prompt=True)
    password = stdin.readline().rstrip("\r\n") if stdin is not None else ""
    if not password:
        raise click.UsageError("Give the password in INSPECT_API_PASSWORD, on standard input, with --password, "
                               "or run the command at a terminal to be asked for it.")
    return password


@users.command("create")
@click.argument("email", callback=_email_address)
@click.option("--role", type=click.Choice(ROLES), required=True)
@click.option("--password", envvar="INSPECT_API_PASSWORD", show_envvar=True,
              help="The password (better: INSPECT_API_PASSWORD or standard input, which no process list shows); "
                   "asked for at a terminal when none is given.")
@click.option("--name", required=True)
@with_appcontext
def users_create(email: str, role: str, password: str | None, name: str) -> None:
    """Create a user of any role."""
    password = _password(password)
    try:
        user = create_user(email, password, name, role)
        db.session.commit()
    except ApiError as exc:
        raise click.ClickException(exc.message) from exc
    click.echo(f"created {user.role} {user.email} ({user.id})")


def _register_domain_commands() -> None:
    for module in (audit_cli, demo, agenda_cli, exports_cli, notifications_cli, photos_cli, program_cli, public_cli, signing_cli):
        for command in module.commands:
            main.add_command(command)


_register_domain_commands()

__all__ = ["main", "current_app"]
