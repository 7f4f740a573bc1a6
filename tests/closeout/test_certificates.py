"""Certificates of completion (R-F3): gating, numbering without gaps, the PDF, closing the permit."""
from concurrent.futures import ThreadPoolExecutor

import pytest

from inspect_api.completion.certificates import next_number
from inspect_api.clock import today as local_today
from inspect_api.extensions import db
from inspect_api.permits.models import Permit, PermitEvent

from ..pdf_support import pdf_text


def test_certificate_on_accepted_notice_closes_the_permit(factory, client, closeout):
    applicant, headers = factory.as_role("applicant")
    supervisor, sup = factory.as_role("supervisor")
    permit = closeout.permit("admin", applicant=applicant)
    notice = closeout.accepted_notice(permit, headers, sup)
    r = client.post(f"/api/v1/permits/{permit.id}/certificate", json={"remarks": "All controls stabilized."},
                    headers=sup)
    assert r.status_code == 201, r.get_json()
    cert = r.get_json()
    year = local_today().year
    assert cert["number"] == f"COC-{year}-0001" and cert["permit_id"] == permit.id
    assert cert["basis_type"] == "completion_notice" and cert["basis_id"] == notice["id"]
    assert cert["issued_by"] == supervisor.id and cert["issued_on"] == local_today().isoformat()
    assert cert["pdf_url"] == f"/api/v1/certificates/{cert['id']}.pdf"
    db.session.expire_all()
    closed = db.session.get(Permit, permit.id)
    assert closed.status == "closed" and closed.closed_at is not None
    event = db.session.query(PermitEvent).filter_by(permit_id=permit.id, to_status="closed").one()
    assert event.from_status == "work_complete" and event.actor_id == supervisor.id
    r = client.get(f"/api/v1/permits/{permit.id}/certificate", headers=headers)
    assert r.status_code == 200 and r.get_json()["number"] == cert["number"]
    r = client.post(f"/api/v1/permits/{permit.id}/certificate", json={}, headers=sup)
    assert r.status_code == 409 and r.get_json()["error"] in ("certificate_exists", "permit_not_work_complete")


def test_certificate_on_accepted_final_report(factory, client, closeout):
    applicant, headers = factory.as_role("applicant")
    _, sup = factory.as_role("supervisor")
    permit = closeout.permit("permit", applicant=applicant)
    report = closeout.accepted_report(permit, headers, sup)
    cert = closeout.certificate(permit, sup)
    assert cert["basis_type"] == "final_report" and cert["basis_id"] == report["id"]


def test_not_accepted_is_409(factory, client, closeout):
    applicant, headers = factory.as_role("applicant")
    _, sup = factory.as_role("supervisor")
    permit = closeout.permit("admin", applicant=applicant)
    url = f"/api/v1/permits/{permit.id}/certificate"
    r = client.post(url, json={}, headers=sup)
    assert r.status_code == 409 and r.get_json()["error"] == "completion_not_accepted"
    notice = closeout.notice(permit, headers).get_json()
    r = client.post(url, json={}, headers=sup)
    assert r.status_code == 409 and r.get_json()["error"] == "completion_not_accepted"
    client.post(f"/api/v1/completion-notices/{notice['id']}/review", json={"decision": "return", "reasons": "blurry"},
                headers=sup)
    r = client.post(url, json={}, headers=sup)
    assert r.status_code == 409 and r.get_json()["error"] == "completion_not_accepted"
    assert db.session.get(Permit, permit.id).status == "work_complete"


def test_wrong_permit_status_is_409(factory, client, closeout):
    applicant, headers = factory.as_role("applicant")
    _, sup = factory.as_role("supervisor")
    permit = closeout.permit("admin", status="active", applicant=applicant)
    closeout.accepted_notice(permit, headers, sup)
    r = client.post(f"/api/v1/permits/{permit.id}/certificate", json={}, headers=sup)
    assert r.status_code == 409 and r.get_json()["error"] == "permit_not_work_complete"
    assert client.get(f"/api/v1/permits/{permit.id}/certificate", headers=sup).status_code == 404


def test_only_supervisors_issue(factory, client, closeout):
    applicant, headers = factory.as_role("applicant")
    _, sup = factory.as_role("supervisor")
    permit = closeout.permit("admin", applicant=applicant)
    closeout.accepted_notice(permit, headers, sup)
    for role in ("applicant", "inspector", "admin"):
        _, other = factory.as_role(role)
        r = client.post(f"/api/v1/permits/{permit.id}/certificate", json={}, headers=other)
        assert r.status_code == 403 and r.get_json()["error"] == "forbidden"
    r = client.post(f"/api/v1/permits/{permit.id}/certificate", json={}, headers=headers)
    assert r.status_code == 403
    assert client.post(f"/api/v1/permits/{permit.id}/certificate", json={}).status_code == 401
    r = client.post("/api/v1/permits/00000000-0000-0000-0000-000000000000/certificate", json={}, headers=sup)
    assert r.status_code == 404


def test_pdf_is_served_to_the_owner_and_staff_only(factory, client, closeout):
    applicant, headers = factory.as_role("applicant")
    _, sup = factory.as_role("supervisor")
    _, stranger = factory.as_role("applicant")
    permit = closeout.permit("admin", applicant=applicant, site={
        "address": "40 Center Street, Fairhaven, MA 02719", "location": {"lat": 41.6376, "lon": -70.9036}})
    closeout.accepted_notice(permit, headers, sup)
    cert = closeout.certificate(permit, sup)
    r = client.get(cert["pdf_url"], headers=headers)
    assert r.status_code == 200 and r.mimetype == "application/pdf" and r.data.startswith(b"%PDF-")
    text = pdf_text(r.data)
    assert cert["number"] in text and "40 Center Street" in text
    # R-F3: the certificate says the operation and maintenance obligations continue after completion.
    assert "continue to be operated and maintained in accordance with the approved operation and maintenance" \
        in text
    assert r.headers["Content-Disposition"] == f'inline; filename="{cert["number"]}.pdf"'
    assert client.get(cert["pdf_url"], headers=sup).data == r.data  # the same bytes every time
    assert client.get(cert["pdf_url"], headers=stranger).status_code == 404
    assert client.get(f"/api/v1/certificates/{cert['id']}", headers=stranger).status_code == 404
    r = client.get(f"/api/v1/certificates/{cert['id']}", headers=headers)
    assert r.status_code == 200 and r.get_json()["number"] == cert["number"]
    assert [c["id"] for c in client.get("/api/v1/certificates", headers=headers).get_json()] == [cert["id"]]
    assert client.get("/api/v1/certificates", headers=stranger).get_json() == []


def test_numbers_are_sequential_and_a_rollback_gives_the_number_back(app):
    assert next_number(2031) == (1, "COC-2031-0001")
    db.session.rollback()
    assert next_number(2031) == (1, "COC-2031-0001")
    assert next_number(2031) == (2, "COC-2031-0002")
    assert next_number(2032) == (1, "COC-2032-0001")
    db.session.commit()


@pytest.mark.slow
def test_concurrent_issues_get_distinct_gapless_numbers(factory, closeout, live_server):
    """Eight supervisors issue at once: numbers 1..8, none twice, none skipped."""
    _, sup = factory.as_role("supervisor")
    permits = []
    for _ in range(8):
        applicant = factory.user("applicant")
        permit = closeout.permit("admin", applicant=applicant)
        closeout.accepted_notice(permit, factory.headers(applicant), sup)
        permits.append(permit.id)
    db.session.commit()

    def issue(permit_id):
        return live_server.request("POST", f"/api/v1/permits/{permit_id}/certificate", {}, sup)

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(issue, permits))
    assert [status for status, _ in results] == [201] * 8, results
    year = local_today().year
    assert sorted(body["number"] for _, body in results) == [f"COC-{year}-{n:04d}" for n in range(1, 9)]


def test_no_certificate_over_open_enforcement(factory, client, closeout):
    """R-F3: while an order, a violation or an unpaid cost recovery is open on the site, the work is not
    "completed in accordance with the permit": 409 `open_enforcement`, naming what is open."""
    applicant, headers = factory.as_role("applicant")
    _, sup = factory.as_role("supervisor")
    permit = closeout.permit("admin", applicant=applicant)
    closeout.accepted_notice(permit, headers, sup)
    today = local_today()
    r = client.post("/api/v1/orders", json={
        "permit_id": permit.id, "kinds": ["remediation"], "deadline": today.isoformat(),
        "requirements": [{"kind": "remediation", "text": "Stabilize the swale"}]}, headers=sup)
    order = r.get_json()
    violation = client.post("/api/v1/violations", json={
        "permit_id": permit.id, "provision_kind": "om_plan", "provision": "O&M plan item 4",
        "first_observed_on": today.isoformat()}, headers=sup).get_json()
    r = client.post(f"/api/v1/permits/{permit.id}/certificate", json={}, headers=sup)
    assert r.status_code == 409 and r.get_json()["error"] == "open_enforcement"
    assert r.get_json()["errors"]["open"] == [f"order {order['number']} is open", "1 violation still ongoing"]
    client.post(f"/api/v1/orders/{order['id']}/status", json={"to": "complied"}, headers=sup)
    r = client.post(f"/api/v1/permits/{permit.id}/certificate", json={}, headers=sup)
    assert r.status_code == 409 and r.get_json()["errors"]["open"] == ["1 violation still ongoing"]
    r = client.patch(f"/api/v1/violations/{violation['id']}", json={
        "last_observed_on": today.isoformat(), "version": violation["version"]}, headers=sup)
    assert r.status_code == 200, r.get_json()
    r = client.post(f"/api/v1/permits/{permit.id}/certificate", json={}, headers=sup)
    assert r.status_code == 201, r.get_json()
    assert db.session.get(Permit, permit.id).status == "closed"
