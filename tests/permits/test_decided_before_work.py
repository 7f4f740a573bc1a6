"""Approval before work, and a decision on the plan (bylaw §C; R-A6, R-C1, R-C2), through the API.

§C: "Approval or permit must be obtained prior to the commencement" of land disturbance, and the work
is measured against the approved plan: an administrative review is approved on its ESC plan, a permit
issued on its ESC and O&M plans. Days are the Town's calendar days."""
from __future__ import annotations

from datetime import date, time

import pytest

from .conftest import assert_error


def _move(client, headers, permit_id, to, **extra):
    return client.post(f"/api/v1/permits/{permit_id}/transitions", json={"to": to, **extra}, headers=headers)


def _document(client, headers, permit_id, kind, title):
    r = client.post(f"/api/v1/permits/{permit_id}/documents", json={"kind": kind, "filename": f"{kind}.pdf",
                                                                     "title": title}, headers=headers)
    assert r.status_code == 201, r.get_json()
    return r.get_json()


# ---- item 1: commencement before approval (R-A6, R-C2) ------------------------------------------
@pytest.mark.parametrize("area, decision", [(12000, "approved"), (30000, "issued")])
def test_work_is_not_recorded_as_commenced_before_the_day_of_the_approval(client, factory, supervisor, town_clock,
                                                                          area, decision):
    owner, owner_h = factory.as_role("applicant")
    _, sup_h = supervisor
    permit = factory.permit(owner, status="under_review", disturbed_area_sqft=area, plans=True)
    # Decided late on 4 May in Fairhaven (already 5 May in UTC): the approval day is 4 May.
    town_clock.set(date(2026, 5, 4), time(23, 30))
    r = _move(client, sup_h, permit.id, decision, reason="Plans comply")
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["decided_at"].startswith("2026-05-05T03:30")
    town_clock.set(date(2026, 5, 8))
    body = assert_error(_move(client, owner_h, permit.id, "active", on="2026-05-03"), 422, "before_approval",
                        field="on")
    assert "2026-05-04" in body["message"] and "R-A6" in body["message"]
    assert body["errors"]["on"] == [body["message"]]
    shown = client.get(f"/api/v1/permits/{permit.id}", headers=owner_h).get_json()
    assert (shown["status"], shown["work_commenced_on"]) == (decision, None)
    r = _move(client, owner_h, permit.id, "active", on="2026-05-04")         # the day of the approval
    assert r.status_code == 200, r.get_json()
    assert (r.get_json()["status"], r.get_json()["work_commenced_on"]) == ("active", "2026-05-04")


def test_a_decision_known_only_from_its_event_still_bounds_commencement(app, client, factory, supervisor,
                                                                        town_clock):
    """A permit whose decided_at is not set (moved by hand, imported) takes its approval day from the
    recorded move to approved."""
    from inspect_api.extensions import db
    owner, owner_h = factory.as_role("applicant")
    _, sup_h = supervisor
    permit = factory.permit(owner, status="under_review", plans=True)
    town_clock.set(date(2026, 5, 4))
    assert _move(client, sup_h, permit.id, "approved", reason="ok").status_code == 200
    db.session.get(type(permit), permit.id).decided_at = None
    db.session.commit()
    town_clock.set(date(2026, 5, 6))
    assert_error(_move(client, owner_h, permit.id, "active", on="2026-05-03"), 422, "before_approval", field="on")
    assert _move(client, owner_h, permit.id, "active", on="2026-05-04").status_code == 200


# ---- items 5-6: decided without the plan (R-C1) ---------------------------------------------------
def test_an_administrative_review_is_approved_only_with_its_esc_plan_on_file(client, factory, supervisor):
    owner, owner_h = factory.as_role("applicant")
    _, sup_h = supervisor
    permit = factory.permit(owner, status="under_review", disturbed_area_sqft=12000)
    _document(client, owner_h, permit.id, "other", "Site photos")             # not a plan
    body = assert_error(_move(client, sup_h, permit.id, "approved", reason="ok"), 409, "plans_missing")
    assert "ESC plan" in body["message"] and "O&M" not in body["message"] and "R-C1" in body["message"]
    assert body["errors"] == {"documents": ["esc_plan"]}
    assert client.get(f"/api/v1/permits/{permit.id}", headers=sup_h).get_json()["status"] == "under_review"
    # A paper plan delivered to the Town, recorded by name, is on file.
    _document(client, owner_h, permit.id, "esc_plan", "ESC plan, sheet C-1 (paper)")
    r = _move(client, sup_h, permit.id, "approved", reason="ok")
    assert r.status_code == 200 and r.get_json()["status"] == "approved"


@pytest.mark.parametrize("have, missing", [((), ["esc_plan", "om_plan"]), (("esc_plan",), ["om_plan"]),
                                           (("om_plan",), ["esc_plan"])])
def test_a_permit_is_issued_only_with_its_esc_and_om_plans_on_file(client, factory, supervisor, have, missing):
    owner, owner_h = factory.as_role("applicant")
    _, sup_h = supervisor
    permit = factory.permit(owner, status="under_review", disturbed_area_sqft=20001)
    for kind in have:
        _document(client, owner_h, permit.id, kind, kind)
    body = assert_error(_move(client, sup_h, permit.id, "issued", reason="ok"), 409, "plans_missing")
    assert body["errors"] == {"documents": missing}
    assert ("ESC plan" in body["message"]) == ("esc_plan" in missing)
    assert ("O&M plan" in body["message"]) == ("om_plan" in missing)
    for kind in missing:
        _document(client, sup_h, permit.id, kind, kind)                        # a supervisor records it
    r = _move(client, sup_h, permit.id, "issued", reason="ok")
    assert r.status_code == 200 and r.get_json()["status"] == "issued"


def test_an_exempt_project_is_approved_without_plans(client, factory, supervisor):
    owner, owner_h = factory.as_role("applicant")
    _, sup_h = supervisor
    permit = factory.permit(owner, disturbed_area_sqft=30000)
    claim = client.post(f"/api/v1/permits/{permit.id}/exemptions", json={"kind": "B2", "statement": "A fence"},
                        headers=owner_h).get_json()
    assert _move(client, owner_h, permit.id, "submitted").status_code == 200
    assert _move(client, sup_h, permit.id, "under_review").status_code == 200
    r = client.post(f"/api/v1/permits/{permit.id}/exemptions/{claim['id']}/decision", json={"decision": "accepted"},
                    headers=sup_h)
    assert r.status_code == 200, r.get_json()
    r = _move(client, sup_h, permit.id, "approved", reason="Fence only")
    assert r.status_code == 200, r.get_json()
    assert (r.get_json()["status"], r.get_json()["review_level"], r.get_json()["documents"]) == ("approved", "exempt", [])


def test_denial_needs_no_plan(client, factory, supervisor):
    _, sup_h = supervisor
    permit = factory.permit(status="under_review", disturbed_area_sqft=30000)
    r = _move(client, sup_h, permit.id, "denied", reason="No plans after two requests")
    assert r.status_code == 200 and r.get_json()["status"] == "denied"


# ---- the rules themselves -------------------------------------------------------------------------
def test_commencement_day_rule_at_its_boundary():
    from inspect_api.permits import rules
    approved = date(2026, 5, 4)
    assert rules.commencement_day_problem(date(2026, 5, 3), approved).startswith("Work cannot be recorded")
    assert rules.commencement_day_problem(date(2026, 5, 4), approved) is None
    assert rules.commencement_day_problem(date(2026, 5, 5), approved) is None
    assert rules.commencement_day_problem(date(2026, 5, 3), None) is None


@pytest.mark.parametrize("level, kinds, missing", [
    ("administrative_review", (), ["esc_plan"]), ("administrative_review", ("esc_plan",), []),
    ("administrative_review", ("om_plan", "other"), ["esc_plan"]),
    ("land_disturbance_permit", (), ["esc_plan", "om_plan"]), ("land_disturbance_permit", ("esc_plan",), ["om_plan"]),
    ("land_disturbance_permit", ("om_plan", "esc_plan"), []), ("exempt", (), []), ("not_covered", (), [])])
def test_plans_a_decision_needs(level, kinds, missing):
    from inspect_api.permits import rules
    assert rules.missing_plans(level, kinds) == missing
