"""A day's seal goes out: e-mailed to AUDIT_SEAL_TO through the outbox (received by the suite's SMTP
server), noted on the seal once delivered, and shown on the public page and JSON, in English and
Portuguese; without AUDIT_SEAL_TO nothing is sent."""
from __future__ import annotations

from datetime import date

import sqlalchemy as sa

from inspect_api.audit import AuditSeal
from inspect_api.cli import main
from inspect_api.extensions import db
from inspect_api.notifications.models import Notification

from ..notifications.conftest import smtp_factory, smtp_server  # noqa: F401  (fixtures)
from ..public.test_pages_support import assert_page, text_of
from .conftest import write_rows

MON, TUE, WED = date(2026, 5, 4), date(2026, 5, 5), date(2026, 5, 6)


def test_worker_pass_seals_and_mails_the_seal(app, town_clock, smtp_server):  # noqa: F811
    app.config.update(SMTP_URL=smtp_server.url, AUDIT_SEAL_TO="clerk@fairhaven.example.org")
    write_rows(town_clock, MON, 3)
    town_clock.set(TUE)
    runner = app.test_cli_runner()
    first = runner.invoke(main, ["worker", "--once"])
    assert first.exit_code == 0, first.output
    assert first.output.strip() == "sent 1, failed 0, to retry 0"
    again = runner.invoke(main, ["worker", "--once"])
    assert again.output.strip() == "sent 0, failed 0, to retry 0"
    seal = db.session.scalars(sa.select(AuditSeal)).one()
    (envelope, mail), = smtp_server.received()
    assert envelope["rcpt_tos"] == ["clerk@fairhaven.example.org"]
    assert mail["Subject"] == f"Audit seal #1 for 2026-05-04: 3 rows, root {seal.merkle_root[:16]}"
    text = mail.get_body(("plain",)).get_content()
    for line in ("Day: 2026-05-04", "Rows: 3", f"Merkle root: {seal.merkle_root}", f"Seal hash: {seal.seal_hash}",
                 f"Previous seal hash: {'0' * 64}"):
        assert line in text
    assert seal.seal_hash in mail.get_body(("html",)).get_content()
    # the second pass noted the delivery on the seal
    db.session.expire_all()
    seal = db.session.get(AuditSeal, 1)
    message = db.session.scalars(sa.select(Notification).where(Notification.record_type == "audit_seal")).one()
    assert message.required and message.record_id == "1"
    assert seal.message_id == message.message_id and seal.message_id.startswith("<")
    assert seal.emailed_at == message.sent_at


def test_without_a_seal_address_nothing_is_sent(app, town_clock):
    assert app.config["AUDIT_SEAL_TO"] is None
    write_rows(town_clock, MON, 1)
    town_clock.set(TUE)
    result = app.test_cli_runner().invoke(main, ["audit", "seal"])
    assert result.exit_code == 0 and result.output.startswith("sealed #1 2026-05-04: 1 rows")
    assert db.session.scalars(sa.select(Notification)).all() == []


def test_seals_on_the_public_page_and_json(app, client, town_clock):
    empty = client.get("/public/audit-seals")
    assert "No day has been sealed yet." in text_of(assert_page(empty, "en"))
    write_rows(town_clock, MON, 2)
    write_rows(town_clock, TUE, 1, record_id="t")
    town_clock.set(WED)
    app.test_cli_runner().invoke(main, ["audit", "seal"])
    mon, tue = db.session.scalars(sa.select(AuditSeal).order_by(AuditSeal.number)).all()

    answer = client.get("/api/v1/public/audit-seals")
    assert answer.status_code == 200
    assert answer.json == [
        {"number": s.number, "day": s.day.isoformat(), "first_seq": s.first_seq, "last_seq": s.last_seq,
         "row_count": s.row_count, "merkle_root": s.merkle_root, "prev_seal_hash": s.prev_seal_hash,
         "seal_hash": s.seal_hash, "sealed_at": s.sealed_at.isoformat()} for s in (tue, mon)]
    assert client.get("/api/v1/public/audit-seals?limit=1").json[0]["day"] == "2026-05-05"
    refused = client.get("/api/v1/public/audit-seals?limit=0")
    assert refused.status_code == 422
    assert refused.json["error"] == "validation_error" and "limit" in refused.json["errors"]

    page = text_of(assert_page(client.get("/public/audit-seals"), "en"))
    assert "Seals of the audit trail" in page
    assert f"2 May 5, 2026 1 {tue.merkle_root} {tue.seal_hash}" in page
    assert f"1 May 4, 2026 2 {mon.merkle_root} {mon.seal_hash}" in page
    pt = text_of(assert_page(client.get("/public/audit-seals", headers={"Accept-Language": "pt"}), "pt"))
    assert "Selos do registo de auditoria" in pt and "4 de maio de 2026" in pt and mon.seal_hash in pt
