"""Reminders and events through a real SMTP server (aiosmtpd in its own process, the suite's
smtp_server fixture): `inspect-api worker --once` run twice delivers the day's reminders once, with
their links; an event's attachment arrives with the SHA-256 the outbox recorded."""
from __future__ import annotations

import hashlib
from datetime import date, time

from inspect_api.extensions import db

from ..enforcement.conftest import TownClock, make_finding
from .events_support import messages

THU = date(2026, 5, 21)


def test_worker_once_twice_delivers_each_reminder_once(app, factory, smtp_server, monkeypatch):
    from inspect_api.cli import main
    app.config.update(SMTP_URL=smtp_server.url, PUBLIC_BASE_URL="https://permits.example.org",
                      REMINDERS_ENABLED=True, REMINDER_HOUR=7)
    TownClock(monkeypatch).set(THU, time(7, 30))
    applicant = factory.user("applicant", email="ann@example.org", name="Ann Applicant")
    permit = factory.permit(applicant, status="issued", disturbed_area_sqft=30000)
    finding = make_finding(permit, observed_on=THU, description="Silt fence down along the east swale")
    runner = app.test_cli_runner()
    first = runner.invoke(main, ["worker", "--once"])
    assert first.exit_code == 0, first.output
    assert first.output.strip() == "sent 2, failed 0, to retry 0"
    second = runner.invoke(main, ["worker", "--once"])
    assert second.output.strip() == "sent 0, failed 0, to retry 0"
    received = smtp_server.received()
    assert sorted(env["rcpt_tos"][0] for env, _ in received) == ["ann@example.org", "owner@example.org"]
    for envelope, mail in received:
        assert mail["Subject"] == f"Reminder: correction due Friday, May 22, 2026 at {permit.site_address}"
        text = mail.get_body(("plain",)).get_content()
        assert "Silt fence down along the east swale" in text and "By: Friday, May 22, 2026" in text
        assert f"https://permits.example.org/#/permit/{permit.id}" in text
        assert f'href="https://permits.example.org/#/permit/{permit.id}"' in mail.get_body(("html",)).get_content()
    db.session.expire_all()
    assert {(m.status, m.attempts, m.record_id) for m in messages()} == {("sent", 1, finding.id)}


def test_certificate_arrives_with_its_pdf(app, factory, client, smtp_server):
    from inspect_api.notifications import worker
    from ..closeout.conftest import Closeout
    app.config.update(SMTP_URL=smtp_server.url)
    closeout = Closeout(factory, client)
    applicant, headers = factory.as_role("applicant", email="ann@example.org")
    _, sup = factory.as_role("supervisor")
    permit = closeout.permit("admin", applicant=applicant)
    closeout.accepted_notice(permit, headers, sup)
    cert = closeout.certificate(permit, sup)
    assert worker.drain("w1").sent == 2
    by_address = {env["rcpt_tos"][0]: mail for env, mail in smtp_server.received()}
    assert set(by_address) == {"ann@example.org", "owner@example.org"}
    recorded = {m.recipient_email: m for m in messages("certificate_issued")}
    for address, mail in by_address.items():
        [attachment] = list(mail.iter_attachments())
        assert attachment.get_filename() == f"certificate-{cert['number']}.pdf"
        assert attachment.get_content().startswith(b"%PDF")
        assert hashlib.sha256(attachment.get_content()).hexdigest() == recorded[address].attachments[0]["sha256"]
        assert recorded[address].status == "sent" and mail["Message-ID"] == recorded[address].message_id
