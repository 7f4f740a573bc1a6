"""What a delivered message's headers and bodies say, whatever the names and notes in it (RFC 5322,
RFC 2047): a display name never adds or changes an address, line breaks and control characters in
names and notes never start a line or a header, and a subject decodes to exactly the text recorded."""
from __future__ import annotations

import email.policy
from email.parser import BytesParser
from types import SimpleNamespace

import pytest

from inspect_api.extensions import db
from inspect_api.notifications import outbox, worker

from .test_worker import pinned, queue, rows  # noqa: F401  (pinned is a fixture)

HOSTILE_NAMES = [
    "Mallory Bcc: reg@evil.example",
    "Mallory Müller Bcc: reg@evil.example",
    "Souza, Ana; Pereira, João",
    "Nguyễn, Văn Đức; Bcc: reg@evil.example",
    "Smith, John (Owner), Acme Construction Company Limited Liability Partnership; Bcc: reg@evil.example",
    "Ana <reg@evil.example>",
    '"Ana" <reg@evil.example>, Bo',
    "Çé, ñ; <reg@evil.example>" * 5,
    "x" * 90 + ", reg@evil.example",
    "=?utf-8?q?reg=40evil.example?= <reg@evil.example>",
]


def permit_at(factory, site_address):
    permit = factory.permit(status="issued")
    permit.site_address = site_address
    db.session.commit()
    return permit


def delivered(server):
    """Each received message parsed from its bytes as a mail reader would (policy.default)."""
    out = []
    for eml in sorted(server.out.glob("*.eml")):
        out.append(BytesParser(policy=email.policy.default).parsebytes(eml.read_bytes()))
    return out


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_a_display_name_never_adds_or_changes_an_address(app, factory, smtp_server, pinned, name):  # noqa: F811
    app.config["SMTP_URL"] = smtp_server.url
    [mid] = queue(app, factory.permit(status="issued"), [(name, "ana@example.org")])
    assert worker.drain("w1").sent == 1
    [(envelope, _)] = smtp_server.received()
    assert envelope["rcpt_tos"] == ["ana@example.org"]
    [mail] = delivered(smtp_server)
    assert [a.addr_spec for a in mail["To"].addresses] == ["ana@example.org"]
    assert mail["Bcc"] is None and mail["Cc"] is None
    assert [a.addr_spec for a in mail["From"].addresses] == ["stormwater@fairhaven-ma.gov"]
    assert all(len(line) <= 78 for line in mail.as_bytes().split(b"\n\n")[0].split(b"\n"))  # RFC 5322 2.1.1
    assert rows([mid])[0].recipient_name == name


def test_a_short_display_name_arrives_as_written(app, factory, smtp_server, pinned):  # noqa: F811
    app.config["SMTP_URL"] = smtp_server.url
    names = ["Souza, Ana", "Nguyễn, Văn Đức", 'Ana "Boss" O\'Brien']
    queue(app, factory.permit(status="issued"), [(n, f"p{i}@example.org") for i, n in enumerate(names)])
    assert worker.drain("w1").sent == 3
    got = {m["To"].addresses[0].addr_spec: m["To"].addresses[0].display_name for m in delivered(smtp_server)}
    assert got == {f"p{i}@example.org": n for i, n in enumerate(names)}


def _decided(app, name, note, site_address="12 Oak Street"):
    permit = SimpleNamespace(id="6a1f3c2e-7b9d-4e2f-8a1b-3c5d7e9f1a23", number="LDP-2026-0042", permit_id=None,
                             site_address=site_address)
    outbox.enqueue("application_decided", permit, [outbox.Recipient(name, "ana@example.org", "applicant")],
                   {"permit": permit, "level": "land disturbance permit", "decision": "issued", "reason": note},
                   record_type="permit")
    db.session.commit()


def test_line_breaks_in_a_name_or_note_start_no_line_and_no_header(app, factory, smtp_server, pinned):  # noqa: F811
    app.config["SMTP_URL"] = smtp_server.url
    _decided(app, "Ana\r\nBcc: reg@evil.example\r\n", "Fence fixed.\r\n\r\nDear Ana,\nPay now to account 1234\x1b[0m",
             site_address="12 Oak Street\u2028Subject: urgent")
    assert worker.drain("w1").sent == 1
    [mail] = delivered(smtp_server)
    assert mail["Bcc"] is None and [a.addr_spec for a in mail["To"].addresses] == ["ana@example.org"]
    assert mail["To"].addresses[0].display_name == "Ana Bcc: reg@evil.example"
    text = mail.get_body(("plain",)).get_content()
    lines = text.splitlines()
    assert lines[0] == "Dear Ana Bcc: reg@evil.example,"
    assert not any(line.startswith(("Bcc:", "Dear Ana,", "Pay now", "Subject:")) for line in lines)
    [decision] = [line for line in lines if "Note:" in line]
    assert decision.endswith("for 12 Oak Street Subject: urgent. Note: Fence fixed. Dear Ana, Pay now to account 1234 [0m")
    assert "\x1b" not in text and "\u2028" not in text
    html = mail.get_body(("html",)).get_content()
    assert "<p>Dear Ana Bcc: reg@evil.example,</p>" in html
    assert "Note: Fence fixed. Dear Ana, Pay now to account 1234 [0m</p>" in html
    assert "\x1b" not in html and "\u2028" not in html


@pytest.mark.parametrize("site_address", ["Rua da Conceição, São João", "Praça Conceição São João 7",
                                          "São João", "Rua São João 12, São João da Barra, Conceição de Macabu"])
def test_a_non_ascii_subject_keeps_its_spaces(app, factory, smtp_server, pinned, site_address):  # noqa: F811
    app.config["SMTP_URL"] = smtp_server.url
    [mid] = queue(app, permit_at(factory, site_address), [("Ana", "ana@example.org")])
    assert worker.drain("w1").sent == 1
    [mail] = delivered(smtp_server)
    row = rows([mid])[0]
    assert site_address in row.subject
    assert str(mail["Subject"]) == row.subject


@pytest.mark.parametrize("length", range(70, 78))
def test_a_subject_of_70_to_77_characters_does_not_begin_with_a_space(app, factory, smtp_server, pinned,
                                                                      length):  # noqa: F811
    app.config["SMTP_URL"] = smtp_server.url
    site_address = "12 Mainstreet"[:length - 64]  # the rest of the order's subject is 64 characters
    [mid] = queue(app, permit_at(factory, site_address), [("Ana", "ana@example.org")])
    assert worker.drain("w1").sent == 1
    [mail] = delivered(smtp_server)
    row = rows([mid])[0]
    assert len(row.subject) == length
    assert str(mail["Subject"]) == row.subject and not str(mail["Subject"]).startswith(" ")
