"""The agenda is the one read model of what is due: an item due today is on the Deadlines view and is
reminded once, under the key it was always reminded under; the published and stored names stay; and
the agenda loads its items with the same number of queries however many there are."""
from __future__ import annotations

from contextlib import contextmanager
from datetime import date, time
from decimal import Decimal

import pytest
import sqlalchemy as sa

from inspect_api.agenda import rules as agenda_rules
from inspect_api.agenda import services as agenda
from inspect_api.agenda.schemas import DeadlineSchema
from inspect_api.extensions import db
from inspect_api.notifications import reminders
from inspect_api.notifications import rules as reminder_rules

from ..enforcement.conftest import TownClock, make_finding
from ..enforcement.test_costs import ITEMS
from ..enforcement.test_orders import order_body
from ..notifications.events_support import messages


@pytest.fixture
def town(monkeypatch, app):
    app.config["REMINDERS_ENABLED"] = True
    town = TownClock(monkeypatch)
    town.set(date(2026, 5, 4))
    return town


@pytest.fixture
def office(factory):
    """One applicant and one supervisor: a supervisor's reminder is then exactly one message."""
    applicant, _ = factory.as_role("applicant", email="ann@example.org")
    supervisor, sup_h = factory.as_role("supervisor", email="sue@example.org")
    return applicant, supervisor, sup_h


def _recovery(client, sup_h, permit, abatement_completed_on="2026-05-18"):
    order = client.post("/api/v1/orders", json=order_body(permit, issued_on="2026-05-04", deadline="2026-05-09"),
                        headers=sup_h)
    assert order.status_code == 201, order.get_json()
    record = client.post("/api/v1/cost-recoveries", headers=sup_h, json={
        "order_id": order.get_json()["id"], "abatement_completed_on": abatement_completed_on,
        "description": "Town work", "items": ITEMS})
    assert record.status_code == 201, record.get_json()
    return record.get_json()


def _deadlines(client, sup_h, before):
    r = client.get(f"/api/v1/deadlines?before={before}", headers=sup_h)
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def test_a_protest_window_ending_today_is_listed_and_reminded_once_under_its_old_key(client, factory, office,
                                                                                     town):
    applicant, _, sup_h = office
    permit = factory.permit(applicant, status="issued", disturbed_area_sqft=30000)
    owner = next(p for p in permit.parties if p.role == "owner")
    town.set(date(2026, 6, 5))
    record = _recovery(client, sup_h, permit)
    r = client.patch(f"/api/v1/cost-recoveries/{record['id']}", headers=sup_h, json={
        "version": record["version"], "recipients": [{"party_id": owner.id, "role": "owner", "method": "hand",
                                                      "sent_on": "2026-06-03", "received_on": "2026-06-03"}]})
    assert r.status_code == 200, r.get_json()
    [notice] = r.get_json()["recipients"]
    today = date(2026, 7, 3)  # day 30 after receipt: the window's last day (R-O3)
    town.set(today, time(8, 0))
    [listed] = [i for i in _deadlines(client, sup_h, "2026-07-04") if i["kind"] == "protest_window_ends"]
    assert (listed["due_on"], listed["record_type"], listed["record_id"], listed["overdue"]) == (
        "2026-07-03", "cost_recovery", record["id"], False)
    before = len(messages())
    assert reminders.run_pass(today) == 1
    [message] = messages("reminder_protest_window")
    # The key names the recipient's notice, not the cost recovery the view lists.
    assert message.dedupe_key == f"reminder:protest_window:{notice['id']}:2026-07-03|party:{owner.id}"
    assert message.record_id == listed["record_id"] and len(messages()) == before + 1
    assert reminders.run_pass(today) == 0


def test_the_towns_cost_notice_due_today_is_listed_and_reminded_once_under_its_old_key(client, factory, office,
                                                                                       town):
    applicant, supervisor, sup_h = office
    permit = factory.permit(applicant, status="issued", disturbed_area_sqft=30000)
    town.set(date(2026, 5, 20))
    record = _recovery(client, sup_h, permit)
    today = date(2026, 6, 17)  # day 30 after the abatement: the notice's last day (R-O3)
    town.set(today, time(8, 0))
    [listed] = [i for i in _deadlines(client, sup_h, "2026-06-18") if i["kind"] == "cost_notice_due"]
    assert (listed["due_on"], listed["record_id"], listed["overdue"]) == ("2026-06-17", record["id"], False)
    assert reminders.run_pass(today) == 1
    [message] = messages("reminder_cost_notice_due")
    assert message.dedupe_key == f"reminder:cost_notice_due:{record['id']}:2026-06-17|user:{supervisor.id}"


def test_published_kinds_and_stored_reminder_names_stay():
    # The Deadlines view's kinds are an API; the reminders' kinds are in every stored dedupe_key.
    assert agenda_rules.DEADLINE_KINDS == ("finding_due", "order_due", "final_report_due", "cost_notice_due",
                                           "protest_window_ends", "bond_phase_release", "inspection_overdue",
                                           "approval_lapsed")
    assert DeadlineSchema().fields["kind"].metadata["enum"] == list(agenda_rules.DEADLINE_KINDS)
    assert {kind: names for kind, (names, _record) in reminders.REMINDERS.items()} == {
        "finding_due": ("finding_due", "finding_overdue"), "order_due": ("order_deadline",),
        "final_report_due": ("final_report_due",), "cost_notice_due": ("cost_notice_due",),
        "protest_window_ends": ("protest_window",), "certificate_waiting": ("certificate_waiting",),
        "bond_phase_release": ("bond_release_waiting",), "bond_full_release": ("bond_release_waiting",)}
    named = {name for names, _record in reminders.REMINDERS.values() for name in names}
    assert named == set(reminder_rules.KINDS) and set(reminders.REMINDERS) <= set(agenda_rules.KINDS)


@contextmanager
def _counting():
    statements: list[str] = []

    def count(conn, cursor, statement, *args):
        statements.append(statement)
    sa.event.listen(db.engine, "before_cursor_execute", count)
    try:
        yield statements
    finally:
        sa.event.remove(db.engine, "before_cursor_execute", count)


def _one_of_each(client, factory, applicant, sup_h, n: int) -> None:
    from inspect_api.bonds.models import Bond, BondPhase
    from inspect_api.permits.models import PermitPhase
    permit = factory.permit(applicant, status="issued", disturbed_area_sqft=30000)
    owner = next(p for p in permit.parties if p.role == "owner")
    make_finding(permit, observed_on=date(2026, 6, 1), description=f"Silt fence down, bay {n}")
    r = client.post("/api/v1/orders", json=order_body(permit, deadline="2026-06-20"), headers=sup_h)
    assert r.status_code == 201, r.get_json()
    _recovery(client, sup_h, permit)  # the Town's notice not yet sent
    noticed = _recovery(client, sup_h, permit)
    r = client.patch(f"/api/v1/cost-recoveries/{noticed['id']}", headers=sup_h, json={
        "version": noticed["version"], "recipients": [{"party_id": owner.id, "role": "owner",
                                                       "sent_on": "2026-06-03", "received_on": "2026-06-03"}]})
    assert r.status_code == 200, r.get_json()
    phase = PermitPhase(permit_id=permit.id, number=1, name="Road", completed_on=date(2026, 5, 30),
                        completed_in_compliance=True, status="complete")
    db.session.add(phase)
    db.session.flush()
    db.session.add(Bond(permit_id=permit.id, form="surety_bond", amount=Decimal("20000.00"),
                        phases=[BondPhase(phase_id=phase.id, amount=Decimal("8000.00"))]))
    finished = factory.permit(applicant, status="work_complete", disturbed_area_sqft=40000)
    finished.work_completed_on = date(2024, 6, 20)
    db.session.commit()


def test_items_are_loaded_with_the_same_queries_however_many_there_are(client, factory, office, town):
    applicant, _, sup_h = office
    town.set(date(2026, 6, 5))
    today, before = date(2026, 6, 5), date(2026, 8, 1)
    kinds = {}
    counts = []
    for n in range(1, 4):
        _one_of_each(client, factory, applicant, sup_h, n)
        db.session.expire_all()
        with _counting() as view:
            found = agenda.deadlines(before, today)
        db.session.expire_all()
        with _counting() as reminded:
            reminders.due_items(today)
        kinds = {k: sum(1 for i in found if i.kind == k) for k in agenda_rules.DEADLINE_KINDS}
        counts.append((len(view), len(reminded)))
    assert all(kinds[k] >= 3 for k in ("finding_due", "order_due", "cost_notice_due", "protest_window_ends",
                                       "bond_phase_release", "final_report_due")), kinds
    assert counts[0] == counts[1] == counts[2], counts
