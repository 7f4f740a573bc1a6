"""`inspect-api demo` makes fresh data and an empty mail folder; `--keep` serves the database made
before, as it was. The command runs as a user runs it, only without serving (run_simple) or
delivering mail in a thread."""
from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import func, select

from inspect_api import demo
from inspect_api.auth.models import User
from inspect_api.auth.passwords import verify_password
from inspect_api.config import DevelopmentConfig
from inspect_api.extensions import db
from inspect_api.permits.models import Permit

FIRST, SECOND = "a-demo-passphrase-1", "another-demo-passphrase-2"


@pytest.fixture
def instance(tmp_path, monkeypatch):
    folder = tmp_path / "demo-instance"
    monkeypatch.setattr(DevelopmentConfig, "INSTANCE_PATH", str(folder))
    monkeypatch.setattr(DevelopmentConfig, "MAIL_DIR", None)
    monkeypatch.setattr(DevelopmentConfig, "SMTP_URL", None, raising=False)
    served = []
    monkeypatch.setattr(demo, "run_simple", lambda host, port, app, **kw: served.append((host, port)))
    monkeypatch.setattr(demo, "_deliver_in_background", lambda app: None)
    return folder, served


def _run(*args: str):
    return CliRunner().invoke(demo.demo, list(args), catch_exceptions=False)


def _database(folder: Path, password: str):
    """(permits, the inspector's id and password hash, whether `password` signs the inspector in)."""
    app = demo._demo_app(folder.resolve())
    with app.app_context():
        permits = db.session.scalar(select(func.count()).select_from(Permit))
        inspector = db.session.scalar(select(User).filter_by(email=f"inspector@{demo.DEMO_DOMAIN}"))
        found = permits, inspector.id, inspector.password_hash, verify_password(inspector.password_hash, password)
        db.engine.dispose()
    return found


def test_keep_serves_the_demo_made_before_and_a_fresh_start_empties_the_mail(instance):
    instance, served = instance
    mail = instance / "mail"
    mail.mkdir(parents=True)
    (mail / "old-notice.eml").write_text("Subject: from the last run\n\n")
    (mail / "README.txt").write_text("not a message")

    fresh = _run("--password", FIRST)
    assert fresh.exit_code == 0, fresh.output
    assert "fresh: 12 permits" in fresh.output and "1 e-mails of the previous run removed" in fresh.output
    assert f"inspector@{demo.DEMO_DOMAIN}" in fresh.output and FIRST in fresh.output
    assert "demo --keep" in fresh.output
    assert "Public pages, no sign-in (permit lookup, map, report a problem): http://" in fresh.output
    assert fresh.output.split("no sign-in (permit lookup, map, report a problem): ")[1].split()[0].endswith("/public/")
    assert not (mail / "old-notice.eml").exists() and (mail / "README.txt").read_text() == "not a message"
    permits, inspector_id, first_hash, signs_in = _database(instance, FIRST)
    assert permits == 12 and signs_in

    (mail / "sent-meanwhile.eml").write_text("Subject: kept\n\n")
    kept = _run("--keep")
    assert kept.exit_code == 0, kept.output
    assert "kept as it was" in kept.output and "as printed when this demo database was made" in kept.output
    assert FIRST not in kept.output
    assert (mail / "sent-meanwhile.eml").exists()
    # The same records, the same accounts, the same passwords.
    assert _database(instance, FIRST) == (12, inspector_id, first_hash, True)

    renamed = _run("--keep", "--password", SECOND)
    assert renamed.exit_code == 0, renamed.output
    assert SECOND in renamed.output
    permits, same_inspector, _hash, signs_in = _database(instance, SECOND)
    assert (permits, same_inspector, signs_in) == (12, inspector_id, True)
    assert served == [("127.0.0.1", 5000)] * 3


def test_keep_without_a_demo_database_says_how_to_make_one(instance):
    instance, served = instance
    result = CliRunner().invoke(demo.demo, ["--keep"])
    assert result.exit_code == 2
    assert "no demo database to keep" in result.output and "without --keep" in result.output
    assert served == [] and not (instance / "demo.sqlite3").exists()
