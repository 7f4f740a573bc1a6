"""The outbox (API.md "Notifications"): messages are written with the change that causes them, rendered and
with their attachments stored, and a recipient who cannot be reached is recorded, not dropped."""
from __future__ import annotations

import hashlib
from types import SimpleNamespace

import pytest
from jinja2 import UndefinedError
from sqlalchemy import func, select

from inspect_api.extensions import db
from inspect_api.notifications import outbox
from inspect_api.notifications.models import Notification
from inspect_api.permits.models import Party
from inspect_api.storage import blob_key, get_storage

PDF = b"%PDF-1.4 pretend order\n" * 40


def _order(permit, number="ORD-2026-0001"):
    from datetime import date
    return SimpleNamespace(id="0b7c6f3e-8d6e-4a37-9a55-3f0e6f2b1a01", permit_id=permit.id, number=number,
                           deadline=date(2026, 5, 9), requirements=[{"kind": "controls", "text": "Restake the silt fence"}],
                           __sync_entity__="order")


def _context(permit, order):
    return {"order": order, "permit": permit, "record_label": "permit", "role_title": "property owner"}


def _count() -> int:
    return db.session.scalar(select(func.count()).select_from(Notification))


def test_enqueue_writes_rendered_messages_and_records_the_unreachable(app, factory):
    app.config["PUBLIC_BASE_URL"] = "https://permits.example.org"
    permit = factory.permit(status="issued")
    owner = next(p for p in permit.parties if p.role == "owner")
    violator = Party(permit_id=permit.id, role="violator", name="Sam Nomail", email=None)
    db.session.add(violator)
    db.session.flush()
    order = _order(permit)
    written = outbox.enqueue("order_issued", order, [outbox.Recipient.from_party(owner),
                                                     outbox.Recipient.from_party(violator)],
                             _context(permit, order), required=True, link=f"#/permit/{permit.id}",
                             attachments=[outbox.Attachment("ORD-2026-0001.pdf", "application/pdf", PDF)])
    db.session.commit()
    assert [m.status for m in written] == ["queued", "failed"]
    sent, unreachable = written
    assert (sent.recipient_email, sent.recipient_role, sent.recipient_party_id) == ("owner@example.org", "owner",
                                                                                     owner.id)
    assert sent.subject.startswith("Enforcement order ORD-2026-0001: ")
    assert "Saturday, May 9, 2026" in sent.subject and "Restake the silt fence" in sent.body_text
    assert f"https://permits.example.org/#/permit/{permit.id}" in sent.body_text
    assert f'href="https://permits.example.org/#/permit/{permit.id}"' in sent.body_html
    assert sent.record_type == "order" and sent.permit_id == permit.id and sent.required is True
    digest = hashlib.sha256(PDF).hexdigest()
    assert sent.attachments == [{"name": "ORD-2026-0001.pdf", "content_type": "application/pdf",
                                 "sha256": digest, "bytes": len(PDF)}]
    with get_storage().open(blob_key(digest)) as stored:
        assert stored.read() == PDF
    assert unreachable.attempts == 0 and unreachable.next_attempt_at is None
    assert unreachable.failure_reason == ("No e-mail address on file for Sam Nomail (violator); "
                                          "serve the notice another way.")


def test_invalid_address_is_failed_with_reason(app, factory):
    permit = factory.permit(status="issued")
    order = _order(permit)
    [message] = outbox.enqueue("order_issued", order, [outbox.Recipient("Pat", "pat at example.org", "owner")],
                               _context(permit, order))
    assert message.status == "failed" and "is not a valid address" in message.failure_reason
    [header] = outbox.enqueue("order_issued", order, [outbox.Recipient("Pat", "pat@example.org\nBcc: x@y.org")],
                              _context(permit, order))
    assert header.status == "failed"


def test_rolled_back_transaction_leaves_nothing(app, factory):
    permit = factory.permit(status="issued")
    order = _order(permit)
    outbox.enqueue("order_issued", order, [outbox.Recipient("Pat", "pat@example.org", "owner")],
                   _context(permit, order))
    assert _count() == 1
    db.session.rollback()
    assert _count() == 0


def test_dedupe_key_writes_each_recipient_once(app, factory):
    permit = factory.permit(status="issued")
    order = _order(permit)
    people = [outbox.Recipient("Pat", "pat@example.org", "owner"), outbox.Recipient("Sam", "sam@example.org")]
    first = outbox.enqueue("order_issued", order, people[:1], _context(permit, order), dedupe_key="r:1:2026-05-04")
    again = outbox.enqueue("order_issued", order, people, _context(permit, order), dedupe_key="r:1:2026-05-04")
    db.session.commit()
    assert len(first) == 1 and [m.recipient_name for m in again] == ["Sam"]
    assert _count() == 2


def test_template_missing_a_name_fails_instead_of_mailing_a_blank(app, factory):
    permit = factory.permit(status="issued")
    with pytest.raises(UndefinedError):
        outbox.enqueue("order_issued", _order(permit), [outbox.Recipient("Pat", "pat@example.org")],
                       {"permit": permit})
    db.session.rollback()
    assert _count() == 0


def test_names_fold_to_one_line_and_addresses_must_be_plain_ascii(app, factory):
    permit = factory.permit(status="issued")
    order = _order(permit)
    [folded, unicode_address] = outbox.enqueue(
        "order_issued", order, [outbox.Recipient("Ana\r\nBcc: x@y.org Souza", "ana@example.org"),
                                outbox.Recipient("Ñandú", "ñandú@example.org")], _context(permit, order))
    assert folded.recipient_name == "Ana Bcc: x@y.org Souza" and folded.status == "queued"
    assert unicode_address.status == "failed" and "is not a valid address" in unicode_address.failure_reason


def test_dedupe_key_holds_when_another_process_wrote_it_between_check_and_insert(app, factory, monkeypatch):
    import sqlalchemy as sa
    permit = factory.permit(status="issued")
    order = _order(permit)
    people = [outbox.Recipient("Pat", "pat@example.org", "owner")]
    assert len(outbox.enqueue("order_issued", order, people, _context(permit, order), dedupe_key="k")) == 1
    db.session.commit()
    # The check sees nothing (as when a concurrent worker has not committed yet): the unique key refuses.
    monkeypatch.setattr(outbox, "select", lambda *cols: sa.select(*cols).where(sa.false()))
    assert outbox.enqueue("order_issued", order, people, _context(permit, order), dedupe_key="k") == []
    db.session.commit()
    assert _count() == 1


def test_template_filters_speak_the_towns_dates_and_money(app):
    from datetime import date, datetime, timezone
    from decimal import Decimal
    from inspect_api.notifications.templating import local_time, long_date, money
    assert long_date(date(2026, 5, 9)) == long_date("2026-05-09") == "Saturday, May 9, 2026"
    assert local_time(datetime(2026, 7, 4, 16, 5, tzinfo=timezone.utc)) == "July 4, 2026 at 12:05 PM EDT"
    assert local_time(datetime(2026, 12, 1, 3, 30, tzinfo=timezone.utc)) == "November 30, 2026 at 10:30 PM EST"
    assert money(Decimal("3000")) == "$3,000.00" and money(None) == ""


def test_town_name_and_contact_come_from_settings(app, factory):
    app.config.update(TOWN_NAME="Town of Marion", TOWN_CONTACT="Town House, 2 Spring Street")
    permit = factory.permit(status="issued")
    order = _order(permit)
    [message] = outbox.enqueue("order_issued", order, [outbox.Recipient("Pat", "pat@example.org")],
                               _context(permit, order))
    assert "Town of Marion Stormwater Authority\nTown House, 2 Spring Street" in message.body_text
    assert "Town House, 2 Spring Street" in message.body_html and "Town of Fairhaven" not in message.body_text
    assert "Sign in to the Town of Marion permit app" in message.body_text  # no PUBLIC_BASE_URL: no link
