"""The daily reminder pass (API.md "Notifications") on the database: who is reminded of what, once per
item, recipient and Town day however often the pass runs; the worker's missed hour; preferences;
the operators' command; two workers at once on PostgreSQL."""
from __future__ import annotations

import os
import subprocess
import sys
from datetime import date, datetime, time, timedelta, timezone

import pytest
from sqlalchemy import func, select

from inspect_api import clock
from inspect_api.extensions import db
from inspect_api.notifications import reminders, worker
from inspect_api.notifications.models import Notification
from inspect_api.notifications.reminder_models import ReminderRun

from ..enforcement.conftest import TownClock, make_finding
from ..enforcement.test_costs import ITEMS
from ..enforcement.test_orders import order_body
from .conftest import ROOT
from .events_support import messages

THU = date(2026, 5, 21)  # the day before the Memorial Day weekend


@pytest.fixture
def town(monkeypatch, app, tmp_path):
    app.config["REMINDERS_ENABLED"] = True
    app.config["MAIL_DIR"] = str(tmp_path / "mail")  # a worker run without SMTP_URL writes .eml files
    app.config["PUBLIC_BASE_URL"] = "https://permits.example.org"
    town = TownClock(monkeypatch)
    town.set(THU, time(8, 0))
    return town


@pytest.fixture
def cast(factory):
    applicant, app_h = factory.as_role("applicant", email="ann@example.org")
    supervisor, sup_h = factory.as_role("supervisor", email="sue@example.org")
    return applicant, app_h, supervisor, sup_h


def reminder_rows(prefix: str = "reminder_") -> list[tuple]:
    return sorted((m.event, m.recipient_email, m.record_id) for m in messages()
                  if m.event.startswith(prefix) or m.event == "finding_overdue")


def _count() -> int:
    return db.session.scalar(select(func.count()).select_from(Notification))


def test_pass_reminds_findings_and_orders_once_per_item_and_day(client, factory, cast, town):
    applicant, _, _, sup_h = cast
    permit = factory.permit(applicant, status="issued", disturbed_area_sqft=30000)
    tomorrow = make_finding(permit, observed_on=THU, description="Silt fence down")   # due Friday
    overdue = make_finding(permit, observed_on=date(2026, 5, 18), description="Inlet open")  # due Tuesday
    assert (tomorrow.due_on, overdue.due_on) == (date(2026, 5, 22), date(2026, 5, 19))
    order = client.post("/api/v1/orders", json=order_body(permit, deadline="2026-05-24"), headers=sup_h)
    assert order.status_code == 201, order.get_json()
    order = order.get_json()
    before = _count()  # whatever the order itself sent
    written = reminders.run_pass(THU)
    expected = sorted([("finding_overdue", "ann@example.org", overdue.id),
                       ("finding_overdue", "owner@example.org", overdue.id),
                       ("reminder_finding_due", "ann@example.org", tomorrow.id),
                       ("reminder_finding_due", "owner@example.org", tomorrow.id),
                       ("reminder_order_deadline", "owner@example.org", order["id"])])
    assert reminder_rows() == expected and written == len(expected) == _count() - before
    [due] = [m for m in messages("reminder_finding_due") if m.recipient_role == "owner"]
    assert due.subject == f"Reminder: correction due Friday, May 22, 2026 at {permit.site_address}"
    assert due.dedupe_key == f"reminder:finding_due:{tomorrow.id}:2026-05-21|party:{due.recipient_party_id}"
    [deadline] = messages("reminder_order_deadline")
    assert "in 3 days, on Sunday, May 24, 2026" in deadline.body_text and deadline.required is False
    # The same day again (a restart, a second worker, an operator): nothing new.
    assert reminders.run_pass(THU) == 0 and reminder_rows() == expected
    # Friday: the order is 2 days away, the Friday finding is due today, and the overdue notice was
    # sent once per finding, not once a day.
    town.set(date(2026, 5, 22), time(8, 0))
    assert reminders.run_pass(date(2026, 5, 22)) == 0 and reminder_rows() == expected


def test_supervisors_are_reminded_of_the_towns_cost_notice_on_day_29(client, factory, cast, town):
    applicant, _, supervisor, sup_h = cast
    factory.user("supervisor", email="sam@example.org")
    factory.user("supervisor", email="gone@example.org", active=False)
    permit = factory.permit(applicant, status="issued", disturbed_area_sqft=30000)
    town.set(date(2026, 5, 4))
    order = client.post("/api/v1/orders", json=order_body(permit), headers=sup_h).get_json()
    town.set(date(2026, 5, 20))
    record = client.post("/api/v1/cost-recoveries", headers=sup_h, json={
        "order_id": order["id"], "abatement_completed_on": "2026-05-18", "description": "Town work",
        "items": ITEMS}).get_json()
    assert reminders.run_pass(date(2026, 6, 15)) == 0  # day 28
    assert reminders.run_pass(date(2026, 6, 16)) == 2  # day 29: each active supervisor
    assert reminder_rows() == [("reminder_cost_notice_due", "sam@example.org", record["id"]),
                               ("reminder_cost_notice_due", "sue@example.org", record["id"])]
    [first, _] = messages("reminder_cost_notice_due")
    assert first.subject == f"Notice of costs due in 1 day: order {order['number']}, {permit.site_address}"
    assert "by Wednesday, June 17, 2026" in first.body_text and first.link.endswith(f"#/application/{permit.id}")
    assert reminders.run_pass(date(2026, 6, 17)) == 2  # day 30, the last day
    assert reminders.run_pass(date(2026, 6, 18)) == 0  # late: the deadlines view flags it


def test_protest_window_closing_reminds_the_recipient(client, factory, cast, town):
    applicant, _, _, sup_h = cast
    permit = factory.permit(applicant, status="issued", disturbed_area_sqft=30000)
    owner = next(p for p in permit.parties if p.role == "owner")
    town.set(date(2026, 5, 4))
    order = client.post("/api/v1/orders", json=order_body(permit), headers=sup_h).get_json()
    town.set(date(2026, 6, 5))
    record = client.post("/api/v1/cost-recoveries", headers=sup_h, json={
        "order_id": order["id"], "abatement_completed_on": "2026-05-18", "description": "Town work",
        "items": ITEMS}).get_json()
    r = client.patch(f"/api/v1/cost-recoveries/{record['id']}", headers=sup_h, json={
        "version": record["version"], "recipients": [{"party_id": owner.id, "role": "owner", "method": "hand",
                                                      "sent_on": "2026-06-03", "received_on": "2026-06-03"}]})
    assert r.status_code == 200, r.get_json()
    assert reminders.run_pass(date(2026, 7, 2)) == 1  # day 29 of the owner's window
    [message] = messages("reminder_protest_window")
    assert (message.recipient_email, message.recipient_role) == ("owner@example.org", "owner")
    assert message.subject == f"Reminder: 1 day left to protest the costs of order {order['number']}"
    assert "until Friday, July 3, 2026" in message.body_text


def test_final_report_certificate_and_bond_release_reminders(client, factory, cast, town):
    from ..closeout.conftest import Closeout
    from inspect_api.permits.models import Permit
    applicant, app_h, _, sup_h = cast
    closeout = Closeout(factory, client)
    # R-F2: work completed two years less 60 days before today's pass.
    report_permit = closeout.permit("permit", applicant=applicant, completed_on=date(2024, 7, 20))
    # R-F3: an accepted completion notice waiting for its certificate; R-D2: a phase to release.
    waiting = closeout.permit("admin", applicant=applicant)
    closeout.accepted_notice(waiting, app_h, sup_h)
    phase = closeout.phase(waiting, 1, in_compliance=True, completed_on=date(2026, 5, 11))
    bond = client.post("/api/v1/bonds", headers=sup_h, json={
        "permit_id": waiting.id, "form": "surety_bond", "amount": "5000.00", "received_on": "2025-01-02",
        "phases": [{"phase_id": phase.id, "amount": "1000"}]}).get_json()
    from inspect_api.completion.models import CompletionNotice
    notice = db.session.scalar(select(CompletionNotice).where(CompletionNotice.permit_id == waiting.id))
    notice.reviewed_at = datetime(2026, 5, 19, 15, 0, tzinfo=timezone.utc)
    db.session.commit()
    reminders.run_pass(THU)
    assert reminder_rows() == sorted([
        ("reminder_bond_release_waiting", "sue@example.org", bond["id"]),
        ("reminder_certificate_waiting", "sue@example.org", waiting.id),
        ("reminder_final_report_due", "ann@example.org", report_permit.id)])
    [report] = messages("reminder_final_report_due")
    assert report.subject == f"Reminder: final report for {report_permit.number} due in 60 days"
    assert report.link.endswith(f"#/permit/{report_permit.id}/final-report")
    [cert] = messages("reminder_certificate_waiting")
    assert cert.subject == f"Waiting for you: issue the certificate of completion for {waiting.number}"
    assert db.session.get(Permit, waiting.id).status == "work_complete"


def test_switched_off_reminder_skips_the_user_but_not_the_owner(client, factory, cast, town):
    applicant, app_h, _, _ = cast
    r = client.put("/api/v1/me/notification-preferences", headers=app_h,
                   json={"preferences": [{"event": "reminder_finding_due", "enabled": False}]})
    assert r.status_code == 200, r.get_json()
    permit = factory.permit(applicant, status="issued", disturbed_area_sqft=30000)
    finding = make_finding(permit, observed_on=THU)
    assert reminders.run_pass(THU) == 1
    assert reminder_rows() == [("reminder_finding_due", "owner@example.org", finding.id)]


def test_worker_runs_the_days_pass_once_from_the_hour_or_at_start_after_missing_it(app, factory, cast, town):
    applicant = cast[0]
    permit = factory.permit(applicant, status="issued", disturbed_area_sqft=30000)
    make_finding(permit, observed_on=THU)
    app.config["REMINDER_HOUR"] = 9
    town.set(THU, time(8, 59))
    assert reminders.pass_due() is None and reminders.cycle() == 0 and _count() == 0
    # The worker was down at 9:00 and starts at 15:30: its first pass runs the day's reminders.
    town.set(THU, time(15, 30))
    assert reminders.pass_due() == THU
    tally = worker.run(once=True)
    assert _count() == 2 and tally.sent == 2
    run = db.session.get(ReminderRun, THU)
    assert run is not None and run.written == 2
    assert reminders.pass_due() is None and worker.run(once=True).sent == 0 and _count() == 2
    # Just after midnight the next day is not yet due; from the hour it is (the Town's day, not UTC's).
    town.set(date(2026, 5, 22), time(0, 30))
    assert reminders.pass_due() is None


def test_operators_command_runs_a_given_day(app, factory, cast, town):
    from inspect_api.cli import main
    permit = factory.permit(cast[0], status="issued", disturbed_area_sqft=30000)
    make_finding(permit, observed_on=THU)
    runner = app.test_cli_runner()
    result = runner.invoke(main, ["reminders", "run", "--date", "2026-05-21"])
    assert result.exit_code == 0, result.output
    assert result.output.strip() == "reminders for 2026-05-21: 2 messages written"
    again = runner.invoke(main, ["reminders", "run", "--date", "2026-05-21"])
    assert again.output.strip() == "reminders for 2026-05-21: 0 messages written"
    assert runner.invoke(main, ["reminders", "run", "--date", "21/05/2026"]).exit_code == 2


@pytest.mark.postgres
@pytest.mark.slow
def test_two_workers_on_postgresql_write_and_send_each_reminder_once(app, factory, cast, smtp_factory, database_url,
                                                                     config):
    """Two `inspect-api worker --once` processes at once, both past the hour with no pass done today:
    both run the day's pass, the unique key lets each reminder in once, and each arrives once."""
    server = smtp_factory()
    supervisor_h = cast[3]
    today = clock.today()
    people = []
    for n in range(6):
        permit = factory.permit(cast[0], status="issued", disturbed_area_sqft=30000)
        r = factory.client.post("/api/v1/orders", headers=supervisor_h, json=order_body(
            permit, issued_on=today.isoformat(), deadline=(today + timedelta(days=3)).isoformat()))
        assert r.status_code == 201, r.get_json()
        people.append(permit)
    db.session.query(Notification).delete()  # what the orders themselves sent is not this test's
    db.session.commit()
    env = {**os.environ, "DATABASE_URL": database_url, "STORAGE_URL": config.STORAGE_URL, "SMTP_URL": server.url,
           "SMTP_CA_FILE": server.ca_file, "INSPECT_API_ENV": "development", "REMINDER_HOUR": "0", "REMINDERS": "on"}
    command = [sys.executable, "-c", "from inspect_api.cli import main; main()", "worker", "--once"]
    workers = [subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
               for _ in range(2)]
    outputs = [w.communicate(timeout=120) for w in workers]
    assert all(w.returncode == 0 for w in workers), outputs
    db.session.expire_all()
    keys = db.session.scalars(select(Notification.dedupe_key).where(
        Notification.event == "reminder_order_deadline")).all()
    assert len(keys) == len(set(keys)) == 6  # the owner of each order, once
    received = [mail for _env, mail in server.received() if mail["Subject"].startswith("Reminder: order")]
    assert len(received) == 6 and len({m["Message-ID"] for m in received}) == 6
    assert db.session.scalar(select(func.count()).select_from(ReminderRun)) == 1


def test_switched_off_holds_for_the_same_address_as_a_party(client, factory, cast, town):
    """An owner party with the applicant's own address is the same person: switched off is off."""
    applicant, app_h, _, _ = cast
    client.put("/api/v1/me/notification-preferences", headers=app_h,
               json={"preferences": [{"event": "reminder_finding_due", "enabled": False}]})
    permit = factory.permit(applicant, status="issued", disturbed_area_sqft=30000,
                            owner={"name": "Ann Applicant", "email": "ANN@example.org"})
    make_finding(permit, observed_on=THU)
    assert reminders.run_pass(THU) == 0 and messages() == []


def test_a_failing_pass_leaves_the_day_undone_and_delivery_going(app, factory, cast, town, monkeypatch):
    from inspect_api.notifications import outbox
    permit = factory.permit(cast[0], status="issued", disturbed_area_sqft=30000)
    make_finding(permit, observed_on=THU)
    outbox.enqueue("application_received", permit, [outbox.Recipient("Pat", "pat@example.org")],
                   {"permit": permit, "level": "review", "reason": None}, record_type="permit")
    db.session.commit()

    def broken(day, worker=None):
        raise RuntimeError("database went away")
    monkeypatch.setattr(reminders, "run_pass", broken)
    assert worker.run(once=True).sent == 1
    assert db.session.get(ReminderRun, THU) is None
    monkeypatch.undo()
    TownClock(monkeypatch).set(THU, time(8, 0))
    app.config["REMINDERS_ENABLED"] = True
    assert worker.run(once=True).sent == 2  # the next pass runs the day


def test_full_bond_release_waits_from_the_certificate(client, factory, cast, town):
    """R-D3: once the certificate is issued, the rest of the security waits for a supervisor."""
    from ..closeout.conftest import Closeout
    applicant, app_h, _, sup_h = cast
    closeout = Closeout(factory, client)
    permit = closeout.permit("admin", applicant=applicant)
    bond = client.post("/api/v1/bonds", headers=sup_h, json={
        "permit_id": permit.id, "form": "cash", "amount": "2500.00", "received_on": "2025-01-02"}).get_json()
    closeout.accepted_notice(permit, app_h, sup_h)
    cert = closeout.certificate(permit, sup_h)
    assert reminders.run_pass(THU) == 0  # issued today: already in front of the office
    assert reminders.run_pass(date(2026, 5, 22)) == 1
    [message] = messages("reminder_bond_release_waiting")
    assert (message.recipient_email, message.record_id) == ("sue@example.org", bond["id"])
    assert message.subject == f"Waiting for you: release $2,500.00 in full of {permit.number}"
    assert f"Certificate of completion {cert['number']}" in message.body_text and "R-D3" in message.body_text
    assert client.post(f"/api/v1/bonds/{bond['id']}/releases", json={"kind": "full"},
                       headers=sup_h).status_code == 201
    town.set(date(2026, 5, 26), time(8, 0))
    assert reminders.run_pass(date(2026, 5, 26)) == 0  # released: nothing waits
