"""The worker against a real SMTP server in its own process (API.md "Notifications"): what arrives,
a temporary refusal retried with backoff, a permanent one recorded, leases, and .eml files."""
from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from urllib.parse import quote

import pytest

from inspect_api import clock
from inspect_api.extensions import db
from inspect_api.notifications import outbox, worker
from inspect_api.notifications.models import Notification

from .conftest import ROOT, free_port

PDF = b"%PDF-1.4\n" + os.urandom(3000) + b"\n%%EOF\n"
NOW = datetime(2026, 5, 4, 16, 0, tzinfo=timezone.utc)


@pytest.fixture
def pinned(monkeypatch):
    state = {"now": NOW}
    monkeypatch.setattr(clock, "now", lambda: state["now"])
    return state


def queue(app, permit, people, **kwargs):
    from types import SimpleNamespace
    from datetime import date
    order = SimpleNamespace(id="5f7e1c2a-6b8d-4c1e-9f3a-2d4b6a8c0e11", permit_id=permit.id, number="ORD-2026-0007",
                            deadline=date(2026, 5, 9), requirements=[{"kind": "controls", "text": "Restake the fence"}],
                            __sync_entity__="order")
    messages = outbox.enqueue(
        "order_issued", order, [outbox.Recipient(name, address, "owner") for name, address in people],
        {"order": order, "permit": permit, "record_label": "permit", "role_title": "property owner"},
        attachments=[outbox.Attachment("ORD-2026-0007.pdf", "application/pdf", PDF)], required=True,
        link=f"#/permit/{permit.id}", **kwargs)
    db.session.commit()
    return [m.id for m in messages]


def rows(ids):
    db.session.expire_all()
    return [db.session.get(Notification, i) for i in ids]


def test_delivers_what_was_recorded(app, factory, smtp_server, pinned):
    app.config.update(SMTP_URL=smtp_server.url, PUBLIC_BASE_URL="https://permits.example.org",
                      MAIL_FROM="Fairhaven Stormwater <stormwater@town.example>")
    permit = factory.permit(status="issued")
    ids = queue(app, permit, [("Ana Souza", "ana@example.org"), ("Nguyễn Văn Đức", "duc@example.org")])
    tally = worker.drain("w1")
    assert (tally.sent, tally.failed, tally.retrying) == (2, 0, 0)
    received = smtp_server.received()
    assert sorted(env["rcpt_tos"] for env, _ in received) == [["ana@example.org"], ["duc@example.org"]]
    assert {env["mail_from"] for env, _ in received} == {"stormwater@town.example"}
    assert {env["tls"] for env, _ in received} == {True}  # over STARTTLS, the suite's CA trusted
    digest = hashlib.sha256(PDF).hexdigest()
    by_address = {row.recipient_email: row for row in rows(ids)}
    for envelope, mail in received:
        row = by_address[envelope["rcpt_tos"][0]]
        assert row.status == "sent" and row.attempts == 1 and row.sent_at == NOW
        assert row.smtp_reply.startswith("250 2.0.0 Ok: queued as TEST")
        assert mail["Message-ID"] == row.message_id and row.message_id.endswith("@town.example>")
        assert mail["Subject"] == row.subject == "Enforcement order ORD-2026-0007: " + \
            f"{permit.site_address} - act by Saturday, May 9, 2026"
        assert mail["To"].addresses[0].addr_spec == row.recipient_email
        assert mail["To"].addresses[0].display_name == row.recipient_name
        [attachment] = list(mail.iter_attachments())
        assert attachment.get_filename() == "ORD-2026-0007.pdf" and attachment.get_content_type() == "application/pdf"
        assert hashlib.sha256(attachment.get_content()).hexdigest() == digest == row.attachments[0]["sha256"]
        link = f"https://permits.example.org/#/permit/{permit.id}"
        assert link in mail.get_body(("plain",)).get_content()
        assert f'href="{link}"' in mail.get_body(("html",)).get_content()
    assert worker.drain("w1").sent == 0  # nothing is sent twice


def test_login_from_url_decoded_credentials(app, factory, smtp_factory, pinned):
    server = smtp_factory(user="town@fairhaven", password="p@ss/w rd:%")
    host = server.url.removeprefix("smtp://")
    app.config["SMTP_URL"] = f"smtp://{quote('town@fairhaven', safe='')}:{quote('p@ss/w rd:%', safe='')}@{host}"
    [mid] = queue(app, factory.permit(status="issued"), [("Ana", "ana@example.org")])
    assert worker.drain("w1").sent == 1
    [(envelope, _mail)] = server.received()
    assert envelope["login"] == "town@fairhaven"
    assert rows([mid])[0].status == "sent"


def test_wrong_password_waits_instead_of_failing_the_message(app, factory, smtp_factory, pinned):
    server = smtp_factory(user="town", password="right")
    app.config["SMTP_URL"] = server.url.replace("smtp://", "smtp://town:wrong@")
    [mid] = queue(app, factory.permit(status="issued"), [("Ana", "ana@example.org")])
    assert worker.drain("w1").retrying == 1
    row = rows([mid])[0]
    assert row.status == "queued" and row.smtp_reply.startswith("authentication failed: 535")


def test_temporary_refusal_is_retried_with_backoff(app, factory, smtp_factory, pinned):
    server = smtp_factory("--refuse", "451", "--refuse-count", "1")
    app.config.update(SMTP_URL=server.url, NOTIFY_RETRY_SECONDS=60)
    [mid] = queue(app, factory.permit(status="issued"), [("Ana", "ana@example.org")])
    assert worker.drain("w1").retrying == 1
    row = rows([mid])[0]
    assert (row.status, row.attempts) == ("queued", 1)
    assert row.smtp_reply == "451 4.3.0 Mailbox temporarily unavailable, try again later"
    assert row.next_attempt_at == NOW + timedelta(seconds=60)
    first_id = row.message_id
    assert first_id  # recorded before the first attempt
    pinned["now"] = NOW + timedelta(seconds=59)
    assert worker.drain("w1").ids == []  # not due yet
    pinned["now"] = NOW + timedelta(seconds=60)
    assert worker.drain("w1").sent == 1
    row = rows([mid])[0]
    assert (row.status, row.attempts, row.message_id) == ("sent", 2, first_id)
    [(envelope, mail)] = server.received()
    assert mail["Message-ID"] == first_id


def test_permanent_refusal_is_failed_with_the_reply(app, factory, smtp_factory, pinned):
    server = smtp_factory("--refuse", "550")
    app.config["SMTP_URL"] = server.url
    [mid] = queue(app, factory.permit(status="issued"), [("Ana", "nobody@example.org")])
    assert worker.drain("w1").failed == 1
    row = rows([mid])[0]
    assert (row.status, row.attempts, row.sent_at, row.next_attempt_at) == ("failed", 1, None, None)
    assert row.smtp_reply == "550 5.1.1 No such mailbox here"
    assert row.failure_reason == "The recipient's mail server refused the message: 550 5.1.1 No such mailbox here"
    assert server.received() == []


def test_unreachable_server_backs_off_doubling_then_gives_up(app, factory, pinned):
    app.config.update(SMTP_URL=f"smtp://127.0.0.1:{free_port()}", NOTIFY_RETRY_SECONDS=10, NOTIFY_MAX_ATTEMPTS=3,
                      SMTP_TIMEOUT_SECONDS=5)
    [mid] = queue(app, factory.permit(status="issued"), [("Ana", "ana@example.org")])
    waits = []
    for _ in range(2):
        assert worker.drain("w1").retrying == 1
        row = rows([mid])[0]
        waits.append((row.next_attempt_at - pinned["now"]).total_seconds())
        pinned["now"] = row.next_attempt_at
        assert row.smtp_reply.startswith("connection failed: ConnectionRefusedError")
    assert waits == [10, 20]
    assert worker.drain("w1").failed == 1
    row = rows([mid])[0]
    assert (row.status, row.attempts) == ("failed", 3)
    assert row.failure_reason.startswith("Not delivered after 3 attempts; the mail server last answered: connection")


def test_backoff_is_capped(app):
    app.config.update(NOTIFY_RETRY_SECONDS=60, NOTIFY_RETRY_MAX_SECONDS=3600)
    assert [worker.backoff(n).total_seconds() for n in (1, 2, 3, 6, 7, 20)] == [60, 120, 240, 1920, 3600, 3600]


def test_a_dead_workers_claim_expires_and_a_live_one_is_respected(app, factory, smtp_server, pinned):
    app.config.update(SMTP_URL=smtp_server.url, NOTIFY_LEASE_SECONDS=300)
    ids = queue(app, factory.permit(status="issued"), [("Ana", "ana@example.org"), ("Bo", "bo@example.org")])
    [dead] = worker.claim("dead-worker", 1)
    [live] = set(ids) - {dead}
    assert worker.drain("w2").ids == [live]  # the dead worker's message is still under its lease
    pinned["now"] = NOW + timedelta(seconds=301)
    assert worker.drain("w2").ids == [dead]
    assert [r.status for r in rows([dead, live])] == ["sent", "sent"]
    assert len(smtp_server.received()) == 2
    # The dead worker wakes up: its message is no longer its own, so it sends nothing.
    assert worker.deliver(dead, "dead-worker", None) == "skipped"


def test_eml_files_without_smtp_url(app, factory, pinned, tmp_path, monkeypatch):
    app.config.update(SMTP_URL=None, MAIL_DIR=None)
    monkeypatch.setattr(app, "instance_path", str(tmp_path / "instance"))
    ids = queue(app, factory.permit(status="issued"), [("Ana", "ana@example.org"), ("Bo", "bo@example.org")])
    assert worker.drain("w1").sent == 2
    import email
    import email.policy
    for row in rows(ids):
        path = tmp_path / "instance" / "mail" / f"{row.id}.eml"
        assert row.status == "sent" and row.smtp_reply == f"written to {path}"
        mail = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
        assert mail["To"].addresses[0].addr_spec == row.recipient_email and mail["Message-ID"] == row.message_id
        [attachment] = list(mail.iter_attachments())
        assert attachment.get_content() == PDF


def test_worker_command_once(app, factory, smtp_server, pinned):
    app.config["SMTP_URL"] = smtp_server.url
    queue(app, factory.permit(status="issued"), [("Ana", "ana@example.org")])
    from inspect_api.cli import main
    result = app.test_cli_runner().invoke(main, ["worker", "--once"])
    assert result.exit_code == 0, result.output
    assert result.output.strip() == "sent 1, failed 0, to retry 0"


@pytest.mark.postgres
@pytest.mark.slow
def test_two_workers_on_postgresql_send_each_message_once(app, factory, smtp_factory, database_url, config):
    server = smtp_factory("--delay", "0.05")
    permit = factory.permit(status="issued")
    n = 40
    ids = queue(app, permit, [(f"Person {i}", f"p{i}@example.org") for i in range(n)])
    env = {**os.environ, "DATABASE_URL": database_url, "STORAGE_URL": config.STORAGE_URL,
           "SMTP_URL": server.url, "SMTP_CA_FILE": server.ca_file, "INSPECT_API_ENV": "development",
           "NOTIFY_BATCH": "3"}
    command = [sys.executable, "-c", "from inspect_api.cli import main; main()", "worker", "--once"]
    workers = [subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
               for _ in range(2)]
    outputs = [w.communicate(timeout=120) for w in workers]
    assert all(w.returncode == 0 for w in workers), outputs
    sent = [int(out.strip().split()[1].rstrip(",")) for out, _err in outputs]
    assert sum(sent) == n and min(sent) > 0, sent  # both took part, and together sent each once
    received = server.received()
    assert sorted(env["rcpt_tos"][0] for env, _ in received) == sorted(f"p{i}@example.org" for i in range(n))
    assert len({mail["Message-ID"] for _, mail in received}) == n
    assert {(r.status, r.attempts) for r in rows(ids)} == {("sent", 1)}


@pytest.mark.parametrize("url, expected", [
    ("smtp://mail.town.example", ("mail.town.example", 25, False, None, None)),
    ("smtp://u%40town:p%2Fw%40rd@mail.town.example:587", ("mail.town.example", 587, False, "u@town", "p/w@rd")),
    ("smtps://notices:s3cret@mail.town.example", ("mail.town.example", 465, True, "notices", "s3cret")),
])
def test_smtp_url_forms(url, expected):
    from inspect_api.notifications.delivery import SmtpSettings
    s = SmtpSettings.parse(url)
    assert (s.host, s.port, s.implicit_tls, s.user, s.password) == expected


@pytest.mark.parametrize("url", ["http://mail.town.example", "smtp://", "smtp://user:hunter2@host:notaport"])
def test_a_malformed_smtp_url_stops_the_app_without_printing_it(url):
    from inspect_api import create_app
    from inspect_api.config import TestConfig
    with pytest.raises(RuntimeError, match="SMTP_URL") as raised:
        create_app(TestConfig(SQLALCHEMY_DATABASE_URI="sqlite://", SMTP_URL=url))
    assert "hunter2" not in str(raised.value)


def test_a_message_that_cannot_be_built_fails_alone(app, factory, smtp_server, pinned):
    app.config["SMTP_URL"] = smtp_server.url
    bad, good = queue(app, factory.permit(status="issued"), [("Ana", "ana@example.org"), ("Bo", "bo@example.org")])
    row = db.session.get(Notification, bad)
    row.attachments = [{**row.attachments[0], "content_type": "application/pdf", "sha256": "0" * 64}]
    db.session.commit()
    tally = worker.drain("w1")
    assert (tally.sent, tally.failed) == (1, 1)
    failed, sent = rows([bad, good])
    assert failed.status == "failed" and failed.failure_reason == (
        "An attachment of this message is missing from storage; it was not sent.")
    assert sent.status == "sent" and len(smtp_server.received()) == 1


def test_running_worker_delivers_as_messages_arrive_and_stops_on_sigterm(app, factory, smtp_server, database_url,
                                                                         config):
    import signal
    import time
    env = {**os.environ, "DATABASE_URL": database_url, "STORAGE_URL": config.STORAGE_URL, "SMTP_URL": smtp_server.url,
           "SMTP_CA_FILE": smtp_server.ca_file, "INSPECT_API_ENV": "development", "NOTIFY_POLL_SECONDS": "1"}
    process = subprocess.Popen([sys.executable, "-c", "from inspect_api.cli import main; main()", "worker"],
                               cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        [mid] = queue(app, factory.permit(status="issued"), [("Ana", "ana@example.org")])
        db.session.close()  # the test holds no transaction (on SQLite one would keep the worker waiting)
        deadline = time.monotonic() + 60
        while not smtp_server.received() and time.monotonic() < deadline:
            time.sleep(0.2)
        process.send_signal(signal.SIGTERM)  # mid-message or between passes: it finishes the one in hand
        out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, err
    assert "delivering every 1 s" in out and "sent 1, failed 0, to retry 0" in out
    assert len(smtp_server.received()) == 1
    assert rows([mid])[0].status == "sent"


def test_cycle_hooks_run_before_delivery_so_their_messages_go_out_in_the_same_pass(app, factory, smtp_server,
                                                                                    pinned, monkeypatch):
    app.config["SMTP_URL"] = smtp_server.url
    permit = factory.permit(status="issued")
    calls = []

    def reminder():
        calls.append(1)
        queue(app, permit, [("Ana", "ana@example.org")], dedupe_key="reminder:x:2026-05-04")

    monkeypatch.setattr(worker, "CYCLE_HOOKS", [reminder])
    assert worker.run(once=True).sent == 1
    assert worker.run(once=True).sent == 0  # the hook ran again; its dedupe key kept it to one message
    assert len(calls) == 2 and len(smtp_server.received()) == 1
