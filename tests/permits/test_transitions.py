"""The status flow of R-C2: the full role x move matrix, guards, dates, events, numbers and close-out."""
from datetime import date, timedelta

import pytest

from inspect_api.errors import InvalidTransition
from inspect_api.extensions import db
from inspect_api.permits import rules, services
from inspect_api.clock import today as local_today
from inspect_api.permits.models import STATUSES

from .conftest import assert_error

ROLES = ("owner", "other_applicant", "inspector", "supervisor", "admin")
PAIRS = [(a, b) for a in STATUSES for b in STATUSES]


def _expected(role, move):
    if role in ("other_applicant", "admin"):
        return 404
    if move not in rules.TRANSITIONS or move[1] == "closed":
        return 409
    table_role = "applicant" if role == "owner" else role
    return 200 if table_role in rules.TRANSITIONS[move] else 403


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("from_status", STATUSES)
def test_role_x_move_matrix(client, factory, role, from_status):
    """Every role against every (from, to) pair of statuses: 200, 403, 404 or 409 exactly as the table says.

    Parametrized by role and starting status; each of the ten target statuses is tried on its own
    fresh permit inside the test (one database reset per ten moves keeps the matrix quick)."""
    owner = factory.user("applicant")
    actor = owner if role == "owner" else factory.user("applicant" if role == "other_applicant" else role)
    headers = factory.headers(actor)
    wrong = []
    for to in STATUSES:
        move = (from_status, to)
        permit = factory.permit(owner, status=from_status, disturbed_area_sqft=25000 if to == "issued" else 12000,
                                plans=True)
        version = permit.version
        r = client.post(f"/api/v1/permits/{permit.id}/transitions", json={"to": to, "reason": "matrix"},
                        headers=headers)
        body, expected = r.get_json(), _expected(role, move)
        key = {200: None, 404: "not_found", 409: "invalid_transition", 403: "forbidden"}[expected]
        if expected == 200:
            ok = r.status_code == 200 and body["status"] == to and body["version"] == version + 1
        else:
            db.session.expire_all()
            ok = (r.status_code == expected and body["error"] == key and body["code"] == expected
                  and db.session.get(type(permit), permit.id).status == from_status)
        if not ok:
            wrong.append((move, expected, r.status_code, body))
    assert not wrong, wrong


def _move(client, headers, permit_id, to, **extra):
    return client.post(f"/api/v1/permits/{permit_id}/transitions", json={"to": to, **extra}, headers=headers)


def test_full_flow_records_events_and_dates(client, factory, town_clock):
    owner, owner_h = factory.as_role("applicant")
    sup, sup_h = factory.as_role("supervisor")
    town_clock.set(date(2026, 4, 28))
    permit = factory.permit(owner, plans=True)
    year = local_today().year
    town_clock.set(date(2026, 4, 29))
    r = _move(client, owner_h, permit.id, "submitted", reason="Plans attached")
    assert r.status_code == 200 and r.get_json()["number"] == f"ALDR-{year}-0001"
    assert r.get_json()["submitted_at"]
    town_clock.set(date(2026, 4, 30))
    assert _move(client, sup_h, permit.id, "under_review").status_code == 200
    town_clock.set(date(2026, 5, 1))
    r = _move(client, sup_h, permit.id, "approved", reason="Plan complies")
    assert r.status_code == 200 and r.get_json()["decided_at"]
    town_clock.set(date(2026, 5, 4))  # work commenced the day before it was recorded, after the approval (R-A6)
    yesterday = local_today() - timedelta(days=1)
    r = _move(client, owner_h, permit.id, "active", on=yesterday.isoformat())
    assert r.get_json()["work_commenced_on"] == yesterday.isoformat()
    town_clock.set(date(2026, 5, 5))
    r = _move(client, owner_h, permit.id, "work_complete")
    assert r.status_code == 200 and r.get_json()["work_completed_on"] == local_today().isoformat()
    events = client.get(f"/api/v1/permits/{permit.id}/events", headers=sup_h).get_json()
    assert [(e["from_status"], e["to_status"]) for e in events] == [
        (None, "draft"), ("draft", "submitted"), ("submitted", "under_review"), ("under_review", "approved"),
        ("approved", "active"), ("active", "work_complete")]
    assert events[1]["actor_id"] == owner.id and events[1]["reason"] == "Plans attached"
    assert events[3]["actor_id"] == sup.id and events[3]["reason"] == "Plan complies"
    assert all(e["at"].endswith("+00:00") for e in events)


def test_direct_close_needs_a_certificate(client, factory, supervisor):
    _, headers = supervisor
    permit = factory.permit(status="work_complete")
    body = assert_error(_move(client, headers, permit.id, "closed"), 409, "invalid_transition")
    assert "certificate of completion" in body["message"]


def test_close_permit_service(app, factory):
    sup = factory.user("supervisor")
    permit = factory.permit(status="work_complete")
    services.close_permit(permit, sup, "Certificate COC-2026-0001")
    db.session.commit()
    assert permit.status == "closed" and permit.closed_at is not None
    from inspect_api.permits.workflow import list_events
    last = list_events(permit)[-1]
    assert (last.from_status, last.to_status, last.actor_id, last.reason) == (
        "work_complete", "closed", sup.id, "Certificate COC-2026-0001")
    active = factory.permit(status="active")
    with pytest.raises(InvalidTransition, match="work is complete"):
        services.close_permit(active, sup)


def test_decision_must_fit_the_level(client, factory, supervisor):
    _, headers = supervisor
    aldr = factory.permit(status="under_review", disturbed_area_sqft=20000)
    ldp = factory.permit(status="under_review", disturbed_area_sqft=20001, plans=True)
    assert "Only a land disturbance permit" in assert_error(_move(client, headers, aldr.id, "issued"),
                                                            409, "invalid_transition")["message"]
    assert "Only an administrative review" in assert_error(_move(client, headers, ldp.id, "approved"),
                                                           409, "invalid_transition")["message"]
    assert _move(client, headers, ldp.id, "issued").get_json()["status"] == "issued"


def test_not_covered_cannot_be_submitted(client, factory):
    owner, headers = factory.as_role("applicant")
    permit = factory.permit(owner, disturbed_area_sqft=4999)
    body = assert_error(_move(client, headers, permit.id, "submitted"), 409, "invalid_transition")
    assert "does not cover" in body["message"]


def test_numbers_are_sequential_per_prefix(client, factory):
    year = local_today().year
    numbers = []
    for area in (6000, 30000, 7000, 40000, 8000):
        owner, headers = factory.as_role("applicant")
        permit = factory.permit(owner, disturbed_area_sqft=area)
        numbers.append(_move(client, headers, permit.id, "submitted").get_json()["number"])
    assert numbers == [f"ALDR-{year}-0001", f"LDP-{year}-0001", f"ALDR-{year}-0002", f"LDP-{year}-0002",
                       f"ALDR-{year}-0003"]


def test_rolled_back_submission_returns_its_number(app, factory):
    year = local_today().year
    owner = factory.user("applicant")
    permit = factory.permit(owner)
    services.transition(owner, permit, "submitted")
    assert permit.number == f"ALDR-{year}-0001"
    db.session.rollback()
    permit = db.session.get(type(permit), permit.id)
    assert (permit.status, permit.number) == ("draft", None)
    services.transition(owner, permit, "submitted")
    db.session.commit()
    assert permit.number == f"ALDR-{year}-0001"


def test_dated_moves_validate_the_day(client, factory):
    owner, headers = factory.as_role("applicant")
    permit = factory.permit(owner, status="approved")
    tomorrow = (local_today() + timedelta(days=1)).isoformat()
    assert_error(_move(client, headers, permit.id, "active", on=tomorrow), 422, "validation_error", field="on")
    draft = factory.permit(owner)
    assert_error(_move(client, headers, draft.id, "submitted", on=local_today().isoformat()), 422,
                 "validation_error", field="on")
    today = local_today()
    _move(client, headers, permit.id, "active", on=today.isoformat())
    before = (today - timedelta(days=1)).isoformat()
    assert_error(_move(client, headers, permit.id, "work_complete", on=before), 422, "validation_error", field="on")


def test_transition_honours_a_stale_version(client, factory):
    owner, headers = factory.as_role("applicant")
    permit = factory.permit(owner)
    body = assert_error(_move(client, headers, permit.id, "submitted", version=7), 409, "version_conflict")
    assert body["errors"]["current"]["status"] == "draft"


def test_unknown_status_is_a_validation_error(client, factory):
    owner, headers = factory.as_role("applicant")
    permit = factory.permit(owner)
    assert_error(_move(client, headers, permit.id, "returned"), 422, "validation_error", field="to")


def test_each_move_is_audited(client, factory, supervisor):
    _, sup_h = supervisor
    owner, headers = factory.as_role("applicant")
    permit = factory.permit(owner)
    _move(client, headers, permit.id, "submitted", reason="ready")
    rows = client.get(f"/api/v1/audit?record_id={permit.id}", headers=sup_h).get_json()
    assert rows[0]["action"] == "permit.transition" and rows[0]["actor_id"] == owner.id
    assert rows[0]["changes"]["status"] == ["draft", "submitted"] and rows[0]["changes"]["reason"] == "ready"
    assert rows[-1]["action"] == "permit.create"
