"""`inspect-api audit seal` and `inspect-api audit verify [--since DATE]` (README "Tamper-evident
audit trail")."""
from __future__ import annotations


import click
from flask.cli import with_appcontext

from .audit_seals import seal_finished_days, verify
from .extensions import db


@click.group("audit")
def audit() -> None:
    """The tamper-evident audit trail: daily seals and their verification."""


@audit.command("seal")
@with_appcontext
def seal_command() -> None:
    """Seal every finished Town day not yet sealed (idempotent; the worker does it on every pass)."""
    made = seal_finished_days()
    db.session.commit()
    if not made:
        click.echo("nothing to seal: every finished day is sealed")
    for seal in made:
        click.echo(f"sealed #{seal.number} {seal.day}: {seal.row_count} rows, root {seal.merkle_root}, "
                   f"seal {seal.seal_hash}")


@audit.command("verify")
@click.option("--since", type=click.DateTime(formats=["%Y-%m-%d"]), default=None,
              help="Check from the seal of this Town day (YYYY-MM-DD) on; without it, everything.")
@with_appcontext
def verify_command(since) -> None:
    """Recompute every row hash, every seal and the chain of seals; exit 1 naming the first row
    changed, removed or inserted."""
    report = verify(since.date() if since else None)
    db.session.rollback()
    if report.ok:
        click.echo(f"audit trail intact: {report.rows} rows, {report.seals} seals checked")
        return
    click.echo(f"audit trail BROKEN: {report.first.message}", err=True)
    for finding in report.findings[1:]:
        click.echo(f"  also: {finding.message}", err=True)
    raise SystemExit(1)


commands = [audit]
