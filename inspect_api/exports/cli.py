"""`inspect-api case-file PERMIT [--out FILE] [--public]` writes a permit's or case's case file;
`inspect-api case-file verify FILE.zip [--trust ROOT.pem]` checks one offline (README "Case files")."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path
from types import SimpleNamespace

import click
from flask.cli import with_appcontext

from .. import audit
from ..extensions import db
from . import case_file, case_file_verify

# Who reads the records from the command line: the records officer at the server, who sees what a
# supervisor sees (every record of the permit, contact details included in the full variant).
RECORDS_OFFICER = SimpleNamespace(id=None, role="supervisor", name="Records officer (command line)")


class _CaseFileGroup(click.Group):
    """`case-file PERMIT ...` is `case-file build PERMIT ...`; `case-file verify ...` is the check."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h"):
            args = ["build", *args]
        return super().parse_args(ctx, args)


@click.group("case-file", cls=_CaseFileGroup)
def case_file_group() -> None:
    """A permit's or case's whole file as one ZIP anyone can verify: `case-file PERMIT` to make one,
    `case-file verify FILE.zip` to check one."""


@case_file_group.command("build")
@click.argument("permit")
@click.option("--out", "out", type=click.Path(dir_okay=False, path_type=Path),
              help="Where to write the ZIP (default: case-file-<number>.zip in the current folder).")
@click.option("--public", is_flag=True,
              help="The public records variant: contact details, internal notes and the audit rows' device and "
                   "network address withheld, and listed as withheld in manifest.json (MGL c.66 §10).")
@with_appcontext
def build_command(permit: str, out: Path | None, public: bool) -> None:
    """Write the case file of PERMIT: its number (LDP-2026-0012, ENF-2026-0001) or its id."""
    record = case_file.find_permit(permit)
    if record is None:
        raise click.ClickException(f"No permit or case {permit!r}.")
    out = out or Path(f"case-file-{record.number or record.id}{'-public' if public else ''}.zip")
    # Written beside the target and renamed into place: a failed run leaves no half-written file.
    handle, partial = tempfile.mkstemp(prefix=f".{out.name}.", dir=out.parent if str(out.parent) else ".")
    try:
        with os.fdopen(handle, "wb") as spool:
            manifest = case_file.build(record, spool, user=RECORDS_OFFICER,
                                       viewer=None if public else RECORDS_OFFICER, public=public)
        os.replace(partial, out)
    except BaseException:
        Path(partial).unlink(missing_ok=True)
        raise
    audit.record("case_file.exported", "permit", record.id,
                 {"public": public, "files": len(manifest["files"]), "audit_rows": manifest["audit"]["rows"],
                  "by": "command line"}, permit_id=record.id)
    db.session.commit()
    audit_summary = manifest["audit"]
    click.echo(f"wrote {out}: {len(manifest['files'])} files, {audit_summary['rows']} audit rows "
               f"({audit_summary['sealed']} sealed, {audit_summary['not_yet_sealed']} not yet sealed)"
               + (f", {sum(item['count'] for item in manifest['withheld'])} fields withheld" if public else ""))


@case_file_group.command("verify")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--trust", "trust", multiple=True, type=click.Path(exists=True, dir_okay=False),
              help="PEM certificate(s) every signed PDF must chain to; may be given more than once.")
def verify_command(file: str, trust: tuple[str, ...]) -> None:
    """Check a case file offline: every file's hash, every audit row's hash and seal proof, every signed
    PDF. Exit 0: all passed; 1: a problem (named); 2: not a readable ZIP."""
    code = case_file_verify.run(file, list(trust) or None, click.echo)
    if code:
        raise SystemExit(code)


commands = [case_file_group]
