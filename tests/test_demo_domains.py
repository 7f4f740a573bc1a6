"""The field, close-out, bond and enforcement demo data, built on the test database without serving."""
from collections import Counter
from datetime import timedelta
from decimal import Decimal

import pytest
from sqlalchemy import select

from inspect_api import demo
from inspect_api.bonds.models import Bond
from inspect_api.completion.models import CompletionNotice
from inspect_api.enforcement.models import Order, Violation
from inspect_api.entry.models import EntryAuthorization
from inspect_api.extensions import db
from inspect_api.inspections.models import Finding, Inspection
from inspect_api.clock import local_date
from inspect_api.inspections.rules import finding_due_on
from inspect_api.sampling.models import Sample
from inspect_api.workdays import next_business_day
from tests.factories import DEMO_PASSWORDS

@pytest.fixture
def ctx(demo_town):
    return demo_town


def _all(model):
    return db.session.scalars(select(model)).all()


def _login(client, role):
    r = client.post("/api/v1/auth/login", json={"email": f"{role}@{demo.DEMO_DOMAIN}", "password": DEMO_PASSWORDS[role]})
    assert r.status_code == 200, r.get_json()
    return {"Authorization": f"Bearer {r.get_json()['access_token']}"}


def test_entry_and_inspections(ctx):
    site, second = ctx.permits["sconticut"], ctx.permits["alden"]
    auths = _all(EntryAuthorization)
    assert sorted(a.permit_id for a in auths) == sorted([site.id, second.id])
    assert all(a.basis == "owner_consent" and a.scope == ["examination", "survey", "sampling"]
               and a.signature_photo_id and a.created_by == ctx.users["inspector"].id for a in auths)
    inspections = _all(Inspection)
    assert Counter((i.permit_id, i.kind, i.status) for i in inspections) == {
        (site.id, "post_installation", "submitted"): 1, (site.id, "routine", "approved"): 1,
        (site.id, "storm_event", "submitted"): 1, (site.id, "follow_up", "submitted"): 1,
        (second.id, "post_installation", "submitted"): 1, (second.id, "routine", "submitted"): 2,
        (second.id, "routine", "draft"): 1}
    by_kind = {i.kind: i for i in inspections if i.permit_id == site.id}
    assert all(i.findings == [] for i in inspections if i.kind in ("post_installation", "routine"))
    assert by_kind["routine"].reviewed_by == ctx.users["supervisor"].id
    assert {a["answer"] for a in by_kind["routine"].checklist_items} == {"ok"}
    assert by_kind["follow_up"].verifies_finding_ids == [
        f.id for f in by_kind["storm_event"].findings if f.item_key == "perimeter_controls_maintained"]
    # Within the owner's consent to entry (from 30 days ago); at most 14 days between full inspections.
    assert sorted((ctx.today - local_date(i.started_at)).days for i in inspections) == [1, 1, 3, 8, 14, 16, 27, 28]


def test_findings_have_their_due_dates(ctx):
    findings = [f for f in _all(Finding) if f.deleted_at is None]
    assert Counter((f.kind, f.item_key or f.parameter) for f in findings) == {
        ("deficiency", "perimeter_controls_maintained"): 1, ("deficiency", "inlet_protection"): 2,
        ("exceedance", "ph"): 1}
    assert all(f.status == "open" for f in findings)
    for f in findings:
        assert f.due_on == finding_due_on(f.observed_on, f.needs_new_control)
    silt = next(f for f in findings if f.item_key == "perimeter_controls_maintained")
    assert silt.due_on == next_business_day(silt.observed_on) and not silt.needs_new_control
    assert all(f.needs_new_control and f.due_on == f.observed_on + timedelta(days=7)
               for f in findings if f.item_key == "inlet_protection")


def test_samples(ctx):
    samples = _all(Sample)
    assert len(samples) == 3
    exceeding = [s for s in samples if s.exceedances]
    assert [(s.permit_id, [e["parameter"] for e in s.exceedances]) for s in exceeding] == [
        (ctx.permits["alden"].id, ["ph"])]
    assert db.session.scalar(select(Finding.sample_id).where(Finding.kind == "exceedance")) == exceeding[0].id
    turbidity = [s for s in samples if s.outfall_id == "OF-1"]
    assert len(turbidity) == 2 and all(s.permit_id == ctx.permits["sconticut"].id for s in turbidity)


def test_closeout_bond_and_enforcement(ctx):
    [notice] = _all(CompletionNotice)
    assert (notice.permit_id, notice.status, len(notice.photo_ids)) == (ctx.permits["mill"].id, "accepted", 3)
    [bond] = _all(Bond)
    bridge = ctx.permits["bridge"]
    assert bond.permit_id == bridge.id and len(bond.phases) == 2
    assert {p.phase_id for p in bond.phases} == {p.id for p in bridge.phases}
    assert sum(Decimal(p.amount) for p in bond.phases) == Decimal(bond.amount) > 0
    [order] = _all(Order)
    site = ctx.permits["sconticut"]
    assert (order.permit_id, order.kinds, order.status) == (site.id, ["controls"], "open")
    assert order.deadline == ctx.today + timedelta(days=7)
    [finding] = [db.session.get(Finding, fid) for fid in order.finding_ids]
    assert (finding.permit_id, finding.item_key, finding.status) == (site.id, "inlet_protection", "open")
    assert site.cease_and_desist is False
    [violation] = _all(Violation)
    assert violation.provision_kind == "permit_condition" and violation.last_observed_on is None
    assert "catch basin" in next(c.text for c in site.conditions if c.id == violation.condition_id)
    assert len(violation.finding_ids) == 2 and len(violation.inspection_ids) == 2


def test_who_sees_what(ctx, client):
    inspector, applicant = _login(client, "inspector"), _login(client, "applicant")
    r = client.get("/api/v1/inspections", headers=inspector)
    assert r.status_code == 200 and len(r.get_json()) == 8
    # The demo applicant sees the submitted and approved visits of their own subdivision, not the
    # inspector's draft on another owner's yard.
    r = client.get("/api/v1/inspections", headers=applicant)
    assert r.status_code == 200
    assert sorted(i["kind"] for i in r.get_json()) == ["follow_up", "post_installation", "routine", "storm_event"]
    r = client.get("/api/v1/findings?status=open", headers=applicant)
    assert r.status_code == 200 and len(r.get_json()) == 3
    r = client.get("/api/v1/completion-notices", headers=applicant)
    assert r.status_code == 200
    [notice] = r.get_json()
    # R-F1: accepted on the one photo that arrived; the other two are still on the applicant's phone.
    assert notice["status"] == "accepted"
    assert [p["status"] for p in notice["photos"]] == ["uploaded", "pending", "pending"]
    r = client.get("/api/v1/orders", headers=inspector)
    assert r.status_code == 200
    [order] = r.get_json()
    assert order["status"] == "open" and order["overdue"] is False and len(order["finding_ids"]) == 1
    r = client.get("/api/v1/bonds", headers=_login(client, "supervisor"))
    assert r.status_code == 200
    [bond] = r.get_json()
    assert bond["status"] == "held" and [p["phase_number"] for p in bond["phases"]] == [1, 2]


def test_public_reports_one_waiting_near_a_site_and_one_answered(ctx, client):
    sup = _login(client, "supervisor")
    waiting = client.get("/api/v1/public-reports?status=received", headers=sup).get_json()
    assert len(waiting) == 1 and waiting[0]["language"] == "pt" and waiting[0]["contact"]["name"] == "Maria Medeiros"
    detail = client.get(f"/api/v1/public-reports/{waiting[0]['id']}", headers=sup).get_json()
    assert detail["nearby_permits"][0]["id"] == ctx.permits["sconticut"].id  # 33 m from the site it concerns
    closed = client.get("/api/v1/public-reports?status=closed", headers=sup).get_json()
    assert len(closed) == 1 and closed[0]["answer"].startswith("The contractor swept the street")
    # Anyone holding its reference reads the answer, and nothing else.
    public = client.get(f"/api/v1/public/reports/{closed[0]['reference']}").get_json()
    assert set(public) == {"reference", "status", "received_at", "answer"} and public["status"] == "closed"
