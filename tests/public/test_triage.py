"""The office's queue of reports from the public and their triage (supervisors only): who may read it,
what an item shows (photos, contact, the permits near its point), and the three actions with their
refusals. Linking a report, or opening a case from it, makes a complaint inspection due at that site
(GET /inspections/due), met only by a complaint inspection recorded after it."""
from __future__ import annotations

import uuid
from datetime import time, timedelta

import pytest
import sqlalchemy as sa

from inspect_api.audit import AuditEntry
from inspect_api.extensions import db
from inspect_api.public.models import PublicReport

from ..program.conftest import site, town  # noqa: F401  (site: an issued permit, its applicant, its inspector)
from .test_reports_support import (API, DAY0, QUEUE, assert_error, body, config, report_of, submit,  # noqa: F401
                                   town_clock)

VIOLATOR = {"role": "violator", "name": "Dana Digger", "mailing_address": "9 Pit Road, Fairhaven, MA 02719"}


def _report(client, **overrides) -> PublicReport:
    return report_of(submit(client, body(**overrides))["reference"])


def _triage(client, headers, report, **payload):
    payload.setdefault("answer", "Thank you: an inspector will visit the site this week.")
    payload.setdefault("version", 1)
    return client.post(f"{QUEUE}/{report.id}/triage", json=payload, headers=headers)


def _due(client, headers, **query):
    r = client.get(f"{API}/inspections/due", query_string=query, headers=headers)
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def _audit(record_id):
    db.session.expire_all()
    return db.session.scalars(sa.select(AuditEntry).where(AuditEntry.record_id == record_id)
                              .order_by(AuditEntry.at, AuditEntry.action)).all()


# -- who may read and triage --------------------------------------------------------------------------------------
@pytest.mark.parametrize("role", ["applicant", "inspector", "admin"])
def test_the_queue_is_the_supervisors_alone(client, factory, town_clock, role):
    report = _report(client)
    _, headers = factory.as_role(role)
    for r in (client.get(QUEUE, headers=headers), client.get(f"{QUEUE}/{report.id}", headers=headers),
              _triage(client, headers, report, action="close")):
        assert_error(r, 403, "forbidden")
    for r in (client.get(QUEUE), client.get(f"{QUEUE}/{report.id}"), _triage(client, {}, report, action="close")):
        assert_error(r, 401, "unauthorized")
    assert report_of(report.reference).status == "received"


def test_the_queue_lists_newest_first_by_status_with_a_total(client, factory, town_clock):
    _, headers = factory.as_role("supervisor")
    first = _report(client)
    town_clock.set(DAY0, time(11, 0))
    second = _report(client, location=None, address="Corner of Main and Bridge",
                     contact={"name": "Ana Silva", "email": "ana@example.org", "phone": None})
    town_clock.set(DAY0, time(12, 0))
    third = _report(client)
    assert _triage(client, headers, first, action="close").status_code == 200
    r = client.get(QUEUE, headers=headers)
    assert r.status_code == 200 and r.headers["X-Total-Count"] == "3"
    assert [i["reference"] for i in r.get_json()] == [third.reference, second.reference, first.reference]
    received = client.get(QUEUE, query_string={"status": "received"}, headers=headers)
    assert received.headers["X-Total-Count"] == "2"
    assert [i["reference"] for i in received.get_json()] == [third.reference, second.reference]
    page = client.get(QUEUE, query_string={"limit": 1, "offset": 1}, headers=headers)
    assert page.headers["X-Total-Count"] == "3" and [i["reference"] for i in page.get_json()] == [second.reference]
    item = page.get_json()[0]
    assert (item["location"], item["address"], item["language"], item["photos"]) == (
        None, "Corner of Main and Bridge", "en", [])
    assert item["contact"] == {"name": "Ana Silva", "email": "ana@example.org", "phone": None}
    assert "nearby_permits" not in item  # only on the item itself
    assert_error(client.get(QUEUE, query_string={"status": "lost"}, headers=headers), 422, "validation_error",
                 "status")


def test_an_item_shows_the_permits_within_500_m_nearest_first(client, factory, town_clock):
    _, headers = factory.as_role("supervisor")
    near = factory.permit(status="issued")  # 41.6376, -70.9036: about 47 m from the report
    metre = 1 / 111_320
    edge = factory.permit(status="active", site={"address": "1 Edge Road", "location": {
        "lat": 41.6379 + 499 * metre, "lon": -70.9032}})
    beyond = factory.permit(status="issued", site={"address": "1 Far Road", "location": {
        "lat": 41.6379 + 502 * metre, "lon": -70.9032}})
    draft = factory.permit(site={"address": "2 Draft Lane", "location": {"lat": 41.6379, "lon": -70.9032}})
    case = client.post(f"{API}/permits", headers=headers, json=factory.permit_payload(
        parties=[VIOLATOR], site={"address": "7 Mud Lane", "location": {"lat": 41.6380, "lon": -70.9032}}))
    assert case.status_code == 201, case.get_json()
    report = _report(client)
    item = client.get(f"{QUEUE}/{report.id}", headers=headers).get_json()
    nearby = item["nearby_permits"]
    assert [p["id"] for p in nearby] == [case.get_json()["id"], near.id, edge.id]
    assert {p["id"] for p in nearby}.isdisjoint({beyond.id, draft.id})
    assert nearby[1] == {"id": near.id, "number": near.number, "address": near.site_address, "status": "issued",
                         "distance_m": pytest.approx(47.1, abs=0.2),
                         "location": {"lat": near.site_lat, "lon": near.site_lon}, "limit_of_work": near.limit_of_work}
    assert nearby[0]["location"] == {"lat": 41.6380, "lon": -70.9032} and nearby[0]["limit_of_work"] is None
    assert 498 < nearby[2]["distance_m"] <= 500
    no_point = _report(client, location=None, address="Somewhere on Main Street")
    assert client.get(f"{QUEUE}/{no_point.id}", headers=headers).get_json()["nearby_permits"] == []
    assert_error(client.get(f"{QUEUE}/{uuid.uuid4()}", headers=headers), 404, "not_found")


# -- link -----------------------------------------------------------------------------------------------------------
def test_linking_makes_a_complaint_inspection_due_until_a_complaint_inspection_is_recorded(site, client, town_clock):
    report = _report(client)
    r = _triage(client, site.supervisor_h, report, action="link", permit_id=site.permit.id,
                note="Foreman called back")
    assert r.status_code == 200, r.get_json()
    triaged = r.get_json()
    assert (triaged["status"], triaged["answer"], triaged["note"], triaged["version"]) == (
        "linked", "Thank you: an inspector will visit the site this week.", "Foreman called back", 2)
    assert triaged["permit"] == {"id": site.permit.id, "number": site.permit.number, "status": "issued"}
    assert triaged["first_response_at"] == triaged["closed_at"] == "2026-05-04T14:00:00+00:00"
    assert triaged["triaged_by"] == site.supervisor.id
    [item] = [i for i in _due(site.client, site.inspector_h, assigned_to="me") if i["kind"] == "complaint"]
    assert (item["permit_id"], item["source"], item["source_id"]) == (
        site.permit.id, "request", triaged["inspection_request_id"])
    assert item["due_at"] == "2026-05-10T03:59:59+00:00"  # INSPECTION_RESPONSE_DAYS after today, end of day
    assert item["reason"] == f"Complaint from the public (Report {report.reference.rsplit('-', 1)[0]})"
    assert _due(client, site.supervisor_h, kind="complaint") == [item]
    # a routine inspection does not answer a complaint; a complaint inspection made after it does
    town_clock.set(DAY0 + timedelta(days=1), time(9, 0))
    site.record("routine", town(DAY0 + timedelta(days=1), 9, 0))
    assert [i["kind"] for i in _due(client, site.inspector_h, kind="complaint")] == ["complaint"]
    done = site.record("complaint", town(DAY0 + timedelta(days=1), 9, 30))
    assert _due(client, site.inspector_h, kind="complaint") == []
    request = client.get(f"{API}/inspection-requests/{triaged['inspection_request_id']}", headers=site.supervisor_h)
    assert request.status_code == 200
    assert (request.get_json()["kind"], request.get_json()["status"], request.get_json()["inspection_id"]) == (
        "complaint", "done", done)
    actions = [row.action for row in _audit(report.id)]
    assert actions == ["public_report.create", "public_report.triage"]
    row = _audit(report.id)[1]
    assert (row.actor_id, row.permit_id) == (site.supervisor.id, site.permit.id)
    assert row.changes == {"action": "link", "status": "linked", "permit_id": site.permit.id,
                           "inspection_request_id": triaged["inspection_request_id"],
                           "answer": "Thank you: an inspector will visit the site this week.",
                           "note": "Foreman called back"}
    assert [r.action for r in _audit(triaged["inspection_request_id"])] == ["inspection_request.create"]


def test_a_complaint_is_due_at_a_closed_permit_too_and_only_the_complaint_is_listed(client, factory, town_clock):
    _, headers = factory.as_role("supervisor")
    closed = factory.permit(status="closed")
    report = _report(client)
    assert _triage(client, headers, report, action="link", permit_id=closed.id).status_code == 200
    assert [(i["kind"], i["permit_id"]) for i in _due(client, headers)] == [("complaint", closed.id)]


# -- open a case -----------------------------------------------------------------------------------------------------
def test_opening_a_case_from_a_report_makes_the_complaint_due_at_the_new_case(client, factory, town_clock):
    supervisor, headers = factory.as_role("supervisor")
    report = _report(client)
    case = factory.permit_payload(parties=[VIOLATOR], site={"address": "7 Mud Lane, Fairhaven, MA 02719",
                                                            "location": {"lat": 41.6380, "lon": -70.9032}},
                                  description="Lot cleared without a permit; reported by a resident")
    r = _triage(client, headers, report, action="open_case", case=case,
                answer="The Town has opened an enforcement case for this lot.")
    assert r.status_code == 200, r.get_json()
    triaged = r.get_json()
    assert triaged["status"] == "case_opened" and triaged["permit"]["status"] == "unpermitted"
    assert triaged["permit"]["number"] == "ENF-2026-0001"
    opened = client.get(f"{API}/permits/{triaged['permit']['id']}", headers=headers).get_json()
    assert (opened["site"]["address"], opened["applicant_id"]) == ("7 Mud Lane, Fairhaven, MA 02719", None)
    [item] = _due(client, headers)
    assert (item["kind"], item["permit_id"], item["source_id"]) == (
        "complaint", triaged["permit"]["id"], triaged["inspection_request_id"])
    assert [row.action for row in _audit(triaged["permit"]["id"])] == ["case.open"]


def test_a_case_is_checked_like_post_permits_and_nothing_is_opened(client, factory, town_clock):
    _, headers = factory.as_role("supervisor")
    report = _report(client)
    r = _triage(client, headers, report, action="open_case", case=factory.permit_payload())  # no violator
    assert assert_error(r, 422, "validation_error", "case")["errors"]["case"] == {
        "parties": ["An enforcement case names at least one violator."]}
    r = _triage(client, headers, report, action="open_case", case={**factory.permit_payload(parties=[VIOLATOR]),
                                                                   "applicant_id": str(uuid.uuid4())})
    assert "applicant_id" in assert_error(r, 422, "validation_error", "case")["errors"]["case"]
    assert client.get(f"{API}/permits", headers=headers).headers["X-Total-Count"] == "0"
    assert report_of(report.reference).status == "received"


# -- close ----------------------------------------------------------------------------------------------------------
def test_closing_keeps_the_answer_and_makes_nothing_due(client, factory, town_clock):
    _, headers = factory.as_role("supervisor")
    factory.permit(status="issued")
    report = _report(client)
    town_clock.set(DAY0 + timedelta(days=2), time(15, 30))
    r = _triage(client, headers, report, action="close", answer="This is a Town road project; it is inspected.")
    assert r.status_code == 200, r.get_json()
    triaged = r.get_json()
    assert (triaged["status"], triaged["permit"], triaged["inspection_request_id"]) == ("closed", None, None)
    assert triaged["first_response_at"] == triaged["closed_at"] == "2026-05-06T19:30:00+00:00"
    assert [i for i in _due(client, headers) if i["kind"] == "complaint"] == []


# -- refusals -------------------------------------------------------------------------------------------------------
def test_refusals_name_the_field_and_change_nothing(client, factory, town_clock):
    _, headers = factory.as_role("supervisor")
    report = _report(client)
    draft, withdrawn = factory.permit(), factory.permit(status="withdrawn")
    cases = [({"action": "link", "permit_id": str(uuid.uuid4())}, "permit_id"),
             ({"action": "link", "permit_id": "not-a-permit"}, "permit_id"),
             ({"action": "link", "permit_id": draft.id}, "permit_id"),
             ({"action": "link", "permit_id": withdrawn.id}, "permit_id"),
             ({"action": "link"}, "permit_id"),
             ({"action": "close", "permit_id": draft.id}, "permit_id"),
             ({"action": "close", "case": factory.permit_payload(parties=[VIOLATOR])}, "case"),
             ({"action": "open_case"}, "case"),
             ({"action": "close", "answer": ""}, "answer"),
             ({"action": "close", "answer": "x" * 4001}, "answer"),
             ({"action": "forget"}, "action")]
    for payload, field in cases:
        assert_error(_triage(client, headers, report, **payload), 422, "validation_error", field)
    r = client.post(f"{QUEUE}/{report.id}/triage", json={"action": "close"}, headers=headers)
    assert_error(r, 422, "validation_error", "answer")
    kept = report_of(report.reference)
    assert (kept.status, kept.version, kept.answer, kept.first_response_at) == ("received", 1, None, None)
    assert [row.action for row in _audit(report.id)] == ["public_report.create"]


def test_a_stale_version_and_a_triaged_report_are_409(client, factory, town_clock):
    _, headers = factory.as_role("supervisor")
    report = _report(client)
    r = client.post(f"{QUEUE}/{report.id}/triage", json={"action": "close", "answer": "Done."}, headers=headers)
    assert_error(r, 428, "precondition_required")
    stale = _triage(client, headers, report, action="close", version=7)
    current = assert_error(stale, 409, "version_conflict")["errors"]["current"]
    assert (current["id"], current["version"], current["status"]) == (report.id, 1, "received")
    assert _triage(client, headers, report, action="close").status_code == 200
    again = _triage(client, headers, report, action="close", version=2)
    assert "triaged already" in assert_error(again, 409, "invalid_transition")["message"]
    by_header = client.post(f"{QUEUE}/{report.id}/triage", json={"action": "close", "answer": "Again."},
                            headers={**headers, "If-Match": "1"})
    assert_error(by_header, 409, "version_conflict")
    unknown = client.post(f"{QUEUE}/{uuid.uuid4()}/triage", json={"action": "close", "answer": "x", "version": 1},
                          headers=headers)
    assert_error(unknown, 404, "not_found")
    assert [row.action for row in _audit(report.id)] == ["public_report.create", "public_report.triage"]


def test_an_applicant_cannot_ask_for_a_complaint_inspection(site, client, town_clock):
    r = client.post(f"{API}/inspection-requests", json={"permit_id": site.permit.id, "kind": "complaint"},
                    headers=site.applicant_h)
    assert assert_error(r, 422, "validation_error", "kind")["errors"]["kind"] == [
        "A complaint inspection is made due by a supervisor triaging a report from the public."]
