"""The supervisors' deadlines view (GET /deadlines) and `inspect-api deadlines`, which prints the same."""
from __future__ import annotations

import json
from datetime import date
from decimal import Decimal

import pytest

from inspect_api.extensions import db

from .test_costs import ITEMS
from .test_orders import issue


@pytest.fixture
def scene(client, cast, factory, permit, finding, town_clock):
    """One of each deadline, on a Monday (4 May 2026)."""
    from inspect_api.bonds.models import Bond, BondPhase
    from inspect_api.permits.models import PermitPhase

    town_clock.set(date(2026, 4, 22))
    old = issue(client, cast, permit, issued_on="2026-04-01", deadline="2026-04-10")
    older = issue(client, cast, permit, issued_on="2026-04-01", deadline="2026-04-10")
    unnoticed = _recovery(client, cast, old, "2026-04-20")
    noticed = _recovery(client, cast, older, "2026-04-21")
    town_clock.set(date(2026, 5, 4))
    r = client.patch(f"/api/v1/cost-recoveries/{noticed['id']}", json={
        "version": noticed["version"], "recipients": [
            {"role": "owner", "name": "Owner", "sent_on": "2026-04-23", "received_on": "2026-04-25"}]},
        headers=cast.sup)
    assert r.status_code == 200, r.get_json()
    due = issue(client, cast, permit, deadline="2026-05-09")
    complied = issue(client, cast, permit, deadline="2026-05-08")
    client.post(f"/api/v1/orders/{complied['id']}/status", json={"to": "complied"}, headers=cast.sup)

    finished = factory.permit(cast.applicant, status="work_complete", disturbed_area_sqft=40000)
    finished.work_completed_on = date(2024, 5, 6)
    phase = PermitPhase(permit_id=permit.id, number=1, name="Road and utilities", completed_on=date(2026, 4, 30),
                        completed_in_compliance=True, status="complete")
    db.session.add(phase)
    db.session.flush()
    db.session.add(Bond(permit_id=permit.id, form="surety_bond", amount=Decimal("20000.00"),
                        phases=[BondPhase(phase_id=phase.id, amount=Decimal("8000.00"))]))
    db.session.commit()
    return {"finding": finding, "order": due, "unnoticed": unnoticed, "noticed": noticed, "finished": finished,
            "permit": permit}


def _recovery(client, cast, order, completed_on):
    r = client.post("/api/v1/cost-recoveries", json={"order_id": order["id"], "abatement_completed_on": completed_on,
                                                     "items": ITEMS}, headers=cast.sup)
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def test_deadlines_sorted_with_overdue_flags(client, cast, scene):
    r = client.get("/api/v1/deadlines?before=2026-05-26", headers=cast.sup)
    assert r.status_code == 200
    # The finished permit also owes its final inspection since 2024 (the inspection program's row).
    program = [(i["due_on"], i["kind"], i["record_id"], i["overdue"]) for i in r.get_json()
               if i["kind"] == "inspection_overdue"]
    assert program == [("2024-05-11", "inspection_overdue", scene["finished"].id, True)]
    rows = [(i["due_on"], i["kind"], i["record_type"], i["record_id"], i["permit_number"], i["overdue"])
            for i in r.get_json() if i["kind"] != "inspection_overdue"]
    p, f = scene["permit"], scene["finding"]
    assert rows == [
        (f.due_on.isoformat(), "finding_due", "finding", f.id, p.number, True),
        ("2026-04-30", "bond_phase_release", "bond", rows[1][3], p.number, False),
        ("2026-05-06", "final_report_due", "permit", scene["finished"].id, scene["finished"].number, False),
        ("2026-05-09", "order_due", "order", scene["order"]["id"], p.number, False),
        ("2026-05-20", "cost_notice_due", "cost_recovery", scene["unnoticed"]["id"], p.number, False),
        ("2026-05-25", "protest_window_ends", "cost_recovery", scene["noticed"]["id"], p.number, False),
    ]
    items = r.get_json()[1:]
    assert items[3]["summary"].startswith("ORD-2026-0003 (controls): Re-install silt fence")
    assert "8000.00" in items[1]["summary"] and items[0]["permit_id"] == p.id


def test_before_is_exclusive_and_overdue_follows_the_clock(client, cast, scene, town_clock):
    kinds = [i["kind"] for i in client.get("/api/v1/deadlines?before=2026-05-20", headers=cast.sup).get_json()]
    assert kinds == ["inspection_overdue", "finding_due", "bond_phase_release", "final_report_due", "order_due"]
    town_clock.set(date(2026, 5, 10))
    items = client.get("/api/v1/deadlines?before=2026-05-11", headers=cast.sup).get_json()
    assert {i["kind"]: i["overdue"] for i in items} == {
        "inspection_overdue": True, "finding_due": True, "bond_phase_release": False, "final_report_due": True, "order_due": True}


def test_default_is_the_next_seven_days(client, cast, scene, town_clock):
    town_clock.set(date(2026, 5, 2))
    items = client.get("/api/v1/deadlines", headers=cast.sup).get_json()
    assert items[-1]["due_on"] == "2026-05-09"     # 2 May + 7 days, inclusive


@pytest.mark.parametrize("who", ["insp", "app", "adm"])
def test_supervisors_only(client, cast, who):
    r = client.get("/api/v1/deadlines?before=2026-05-26", headers=getattr(cast, who))
    assert r.status_code == 403 and r.get_json()["error"] == "forbidden"


def test_cli_prints_the_same(app, client, cast, scene):
    from inspect_api.cli import main
    from inspect_api.agenda.cli import deadlines

    assert main.get_command(None, "deadlines") is deadlines
    api = client.get("/api/v1/deadlines?before=2026-05-26", headers=cast.sup).get_json()
    runner = app.test_cli_runner()
    result = runner.invoke(deadlines, ["--before", "2026-05-26", "--format", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == api
    text = runner.invoke(deadlines, ["--before", "2026-05-26"])
    assert text.exit_code == 0
    lines = text.output.splitlines()
    assert lines[0] == "Deadlines before 2026-05-26 (today 2026-05-04, America/New_York): 7"
    assert "OVERDUE" in lines[2] and "inspection_overdue" in lines[2] and "final inspection" in lines[2]
    assert "OVERDUE" in lines[3] and "finding_due" in lines[3] and scene["permit"].number in lines[3]
    assert "protest_window_ends" in lines[-1] and "OVERDUE" not in lines[-1]
    empty = runner.invoke(deadlines, ["--before", "2020-01-01"])
    assert empty.output.splitlines()[1] == "Nothing due."
