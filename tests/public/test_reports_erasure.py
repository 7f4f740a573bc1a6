"""A resident's contact details are erased PUBLIC_REPORT_CONTACT_DAYS after the report is closed (365 by
default: a report closed on day D keeps them through D + 365, Town days, and loses them on D + 366), by
the worker on each pass and by `inspect-api public erase-contacts`; the report itself stays, and so do
the messages sent to the resident, without the address they went to."""
from __future__ import annotations

from datetime import date, time, timedelta

import sqlalchemy as sa

from inspect_api import clock
from inspect_api.audit import AuditEntry
from inspect_api.cli import main
from inspect_api.extensions import db
from inspect_api.notifications import worker
from inspect_api.notifications.models import Notification

from .test_reports_support import QUEUE, body, config, report_of, submit, town_clock  # noqa: F401

CLOSED_ON = date(2026, 5, 4)
CONTACT = {"name": "Ana Silva", "email": "ana@example.org", "phone": "508-555-0100"}


def _closed_report(client, headers, **contact):
    report = report_of(submit(client, body(contact={**CONTACT, **contact}))["reference"])
    r = client.post(f"{QUEUE}/{report.id}/triage", headers=headers,
                    json={"action": "close", "answer": "Cleaned up by the contractor.", "version": 1})
    assert r.status_code == 200, r.get_json()
    return report_of(report.reference)


def _erase(app, day: date | None = None):
    args = ["public", "erase-contacts"] + (["--date", day.isoformat()] if day else [])
    result = app.test_cli_runner().invoke(main, args)
    assert result.exit_code == 0, result.output
    return result.output.strip()


def test_day_365_keeps_the_contact_and_day_366_erases_it_the_report_stays(app, client, factory, town_clock):
    _, headers = factory.as_role("supervisor")
    report = _closed_report(client, headers)
    still_open = report_of(submit(client, body(contact=CONTACT))["reference"])  # never closed: never erased
    assert {m.recipient_email for m in db.session.scalars(sa.select(Notification))} == {"ana@example.org"}
    town_clock.set(CLOSED_ON + timedelta(days=365), time(23, 59))
    assert _erase(app) == "contact details erased from 0 reports closed before 2026-05-04"
    kept = report_of(report.reference)
    assert (kept.contact_name, kept.contact_email, kept.contact_phone, kept.contact_erased_at) == (
        "Ana Silva", "ana@example.org", "508-555-0100", None)
    version, description = kept.version, kept.description
    town_clock.set(CLOSED_ON + timedelta(days=366), time(0, 1))
    assert _erase(app) == "contact details erased from 1 report closed before 2026-05-05"
    erased = report_of(report.reference)
    assert (erased.contact_name, erased.contact_email, erased.contact_phone) == (None, None, None)
    assert erased.contact_erased_at == clock.now()
    assert (erased.status, erased.description, erased.answer, erased.version) == (
        "closed", description, "Cleaned up by the contractor.", version + 1)
    assert report_of(still_open.reference).contact_email == "ana@example.org"
    shown = client.get(f"{QUEUE}/{report.id}", headers=headers).get_json()
    assert (shown["contact"], shown["contact_erased_at"]) == (None, "2027-05-05T04:01:00+00:00")
    row = db.session.scalar(sa.select(AuditEntry).where(AuditEntry.action == "public_report.contact_erase"))
    assert (row.record_id, row.actor_id, row.changes["erased"]) == (report.id, None, ["name", "email", "phone"])
    # the messages to the resident stay as evidence of what was sent, not of whom it went to
    messages = db.session.scalars(sa.select(Notification).where(Notification.record_id == report.id)).all()
    assert sorted(m.event for m in messages) == ["public_report_received", "public_report_triaged"]
    assert {(m.recipient_name, m.recipient_email) for m in messages} == {("(erased)", None)}
    assert all("ana@example.org" not in (m.body_text + (m.body_html or "")) for m in messages)
    assert _erase(app) == "contact details erased from 0 reports closed before 2026-05-05"  # once


def test_the_worker_erases_on_its_pass_and_the_setting_sets_the_days(app, client, factory, town_clock):
    app.config["PUBLIC_REPORT_CONTACT_DAYS"] = 30
    _, headers = factory.as_role("supervisor")
    report = _closed_report(client, headers)
    town_clock.set(CLOSED_ON + timedelta(days=30), time(12, 0))
    worker.run_hooks()
    assert report_of(report.reference).contact_email == "ana@example.org"
    town_clock.set(CLOSED_ON + timedelta(days=31), time(0, 0))
    worker.run_hooks()
    assert report_of(report.reference).contact_erased_at == clock.now()
    assert report_of(report.reference).contact_email is None


def test_a_date_may_be_given_to_the_command(app, client, factory, town_clock):
    _, headers = factory.as_role("supervisor")
    report = _closed_report(client, headers)
    assert _erase(app, CLOSED_ON + timedelta(days=366)) == \
        "contact details erased from 1 report closed before 2026-05-05"
    assert report_of(report.reference).contact_name is None
