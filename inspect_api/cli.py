"""The `inspect-api` command: a Flask CLI group over create_app (run, db, users, demo, ...)."""
from __future__ import annotations

import click
from flask import current_app
from flask.cli import FlaskGroup, with_appcontext
from marshmallow import ValidationError

from . import create_app, demo
from .auth.models import ROLES
from .agenda import cli as agenda_cli
from .auth.services import create_user
from .errors import ApiError
from .extensions import db
from .notifications import cli as notifications_cli
from .photos import cli as photos_cli
from .program import cli as program_cli
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


@users.command("create")
@click.argument("email", callback=_email_address)
@click.option("--role", type=click.Choice(ROLES), required=True)
@click.option("--password", prompt=True, hide_input=True, confirmation_prompt=True)
@click.option("--name", required=True)
@with_appcontext
def users_create(email: str, role: str, password: str, name: str) -> None:
    """Create a user of any role."""
    try:
        user = create_user(email, password, name, role)
        db.session.commit()
    except ApiError as exc:
        raise click.ClickException(exc.message) from exc
    click.echo(f"created {user.role} {user.email} ({user.id})")


def _register_domain_commands() -> None:
    for module in (demo, agenda_cli, notifications_cli, photos_cli, program_cli):
        for command in module.commands:
            main.add_command(command)


_register_domain_commands()

__all__ = ["main", "current_app"]
