"""The resident's two e-mails, end to end through the suite's SMTP server (a separate process on
127.0.0.1, STARTTLS with the test's CA): "we received your report" when it comes in and "what the Town
did" at triage, in the resident's language, only when they left an e-mail, naming the reference and
nothing else of theirs; each goes through the outbox like every notice and is delivered by the worker."""
from __future__ import annotations

import sqlalchemy as sa

from inspect_api.extensions import db
from inspect_api.notifications import worker
from inspect_api.notifications.models import Notification

from ..notifications.conftest import smtp_factory, smtp_server  # noqa: F401  (the suite's SMTP server)
from .test_reports_support import (QUEUE, body, config, form, phone_photo, post_form, report_of, submit,  # noqa: F401
                                   town_clock)

RESIDENT = {"name": "Maria Sousa", "email": "maria@example.org", "phone": "508-555-0199"}
PRIVATE = ("Maria Sousa", "508-555-0199", "Sediment washing into the brook")


def _texts(mail) -> tuple[str, str]:
    return mail.get_body(("plain",)).get_content(), mail.get_body(("html",)).get_content()


def _messages(report_id: str) -> list[Notification]:
    db.session.expire_all()
    return db.session.scalars(sa.select(Notification).where(Notification.record_id == report_id)
                              .order_by(Notification.created_at, Notification.event)).all()


def test_a_report_from_the_form_in_portuguese_gets_both_messages_in_portuguese(app, client, factory, smtp_server,
                                                                              town_clock):
    app.config.update(SMTP_URL=smtp_server.url)
    r = post_form(client, form(**RESIDENT), [(phone_photo(), "IMG_0042.HEIC.jpg")],
                  headers={"Accept-Language": "pt-PT,pt;q=0.9,en;q=0.4"})
    assert r.status_code == 201, r.get_json()
    reference = r.get_json()["reference"]
    report = report_of(reference)
    assert report.language == "pt"
    assert worker.drain("w1").sent == 1
    [(envelope, received)] = smtp_server.received()
    assert envelope["rcpt_tos"] == ["maria@example.org"]
    assert received["Subject"] == f"Recebemos a sua comunicação {reference}"
    text, html = _texts(received)
    assert f"A referência é {reference}" in text and "4 de maio de 2026, às 10:00" in text
    assert text.startswith("Olá,") and '<html lang="pt">' in html and f"<strong>{reference}</strong>" in html
    assert "guarda-o durante 365 dias" in text
    assert not any(secret in text or secret in html for secret in PRIVATE)  # nothing else of theirs
    assert received["To"] == "Maria Sousa <maria@example.org>"  # to the resident themself, as mail is addressed

    _, headers = factory.as_role("supervisor")
    permit = factory.permit(status="issued")
    answer = "Obrigado. Um fiscal visita o local amanhã de manhã."
    t = client.post(f"{QUEUE}/{report.id}/triage", headers=headers,
                    json={"action": "link", "permit_id": permit.id, "answer": answer, "version": 1,
                          "note": "Owner is Pat; call before going"})
    assert t.status_code == 200, t.get_json()
    assert worker.drain("w1").sent == 1
    (_, second) = smtp_server.received()[1]
    assert second["Subject"] == f"A sua comunicação {reference}: o que o Município fez"
    text, html = _texts(second)
    assert f"analisou a sua comunicação {reference}" in text and "foi pedido a um fiscal que o visite" in text
    assert f"A resposta do Município: {answer}" in text and answer in html
    assert "Owner is Pat" not in text + html and not any(secret in text + html for secret in PRIVATE)
    # The messages are about the report, filed on no permit (a resident's address is in no permit's evidence).
    messages = _messages(report.id)
    assert [(m.event, m.status, m.record_type, m.permit_id, m.recipient_role) for m in messages] == [
        ("public_report_received", "sent", "public_report", None, "resident"),
        ("public_report_triaged", "sent", "public_report", None, "resident")]


def test_in_english_by_default_and_a_closed_report_says_so(app, client, factory, smtp_server, town_clock):
    app.config.update(SMTP_URL=smtp_server.url)
    reference = submit(client, body(contact={"email": "sam@example.org"}))["reference"]
    report = report_of(reference)
    _, headers = factory.as_role("supervisor")
    t = client.post(f"{QUEUE}/{report.id}/triage", headers=headers,
                    json={"action": "close", "answer": "This is the Town's own drainage work.", "version": 1})
    assert t.status_code == 200
    assert worker.drain("w1").sent == 2
    # both were written at the same moment of the Town's clock: the worker sends them in either order
    by_subject = {mail["Subject"]: mail for _envelope, mail in smtp_server.received()}
    first = by_subject[f"We received your report {reference}"]
    second = by_subject[f"Your report {reference}: what the Town did"]
    assert "received your report on May 4, 2026 at 10:00 AM EDT" in _texts(first)[0]
    text = _texts(second)[0]
    assert "The report is now closed." in text and "The Town's answer: This is the Town's own drainage work." in text


def test_no_email_no_message(app, client, factory, town_clock):
    report = report_of(submit(client, body(contact={"name": "Sam", "phone": "508-555-0101"}))["reference"])
    _, headers = factory.as_role("supervisor")
    t = client.post(f"{QUEUE}/{report.id}/triage", headers=headers,
                    json={"action": "close", "answer": "Thank you.", "version": 1})
    assert t.status_code == 200
    assert _messages(report.id) == []
