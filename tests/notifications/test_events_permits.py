"""Application received and decided (R-C2), exemption claim decided (R-B1): written with the move
that causes them, to the applicant, and nothing after a refused move."""
from __future__ import annotations

import pytest

from .events_support import messages, rows


@pytest.fixture
def people(factory, app):
    app.config["PUBLIC_BASE_URL"] = "https://permits.example.org"
    applicant, app_h = factory.as_role("applicant", email="ann@example.org", name="Ann Applicant")
    supervisor, sup_h = factory.as_role("supervisor")
    return applicant, app_h, supervisor, sup_h


def _move(client, headers, permit_id, to, **extra):
    return client.post(f"/api/v1/permits/{permit_id}/transitions", json={"to": to, **extra}, headers=headers)


def test_submission_tells_the_applicant_it_was_received(client, factory, people):
    applicant, app_h, _, sup_h = people
    permit = factory.permit(applicant, disturbed_area_sqft=12000)
    r = _move(client, app_h, permit.id, "submitted")
    assert r.status_code == 200, r.get_json()
    number = r.get_json()["number"]
    assert rows() == [("ann@example.org", "applicant", "application_received", False, "queued")]
    [message] = messages()
    assert message.subject == f"Application {number} received: {permit.site_address}"
    assert number in message.body_text and "administrative land disturbance review" in message.body_text
    assert f"https://permits.example.org/#/permit/{permit.id}" in message.body_text
    assert "Town of Fairhaven" in message.body_text and message.record_type == "permit"
    assert message.record_id == permit.id and message.attachments == []
    assert "<strong>" + number in message.body_html


def test_refused_move_writes_nothing(client, factory, people):
    applicant, app_h, _, _ = people
    permit = factory.permit(applicant, disturbed_area_sqft=12000)
    r = _move(client, app_h, permit.id, "approved")  # an applicant cannot approve
    assert r.status_code in (403, 409), r.get_json()
    assert messages() == []


def test_denial_is_required_and_carries_the_reason(client, factory, people):
    applicant, app_h, _, sup_h = people
    permit = factory.permit(applicant, disturbed_area_sqft=30000)
    assert _move(client, app_h, permit.id, "submitted").status_code == 200
    assert _move(client, sup_h, permit.id, "under_review").status_code == 200
    r = _move(client, sup_h, permit.id, "denied", reason="No erosion and sedimentation control plan")
    assert r.status_code == 200, r.get_json()
    assert rows("application_decided") == [("ann@example.org", "applicant", "application_decided", True, "queued")]
    [message] = messages("application_decided")
    assert "denied" in message.subject and "No erosion and sedimentation control plan" in message.body_text
    assert "court of competent jurisdiction" in message.body_text


def test_issue_of_a_permit_tells_the_applicant(client, factory, people):
    applicant, app_h, _, sup_h = people
    permit = factory.permit(applicant, disturbed_area_sqft=30000, plans=True)
    for headers, to in ((app_h, "submitted"), (sup_h, "under_review"), (sup_h, "issued")):
        assert _move(client, headers, permit.id, to).status_code == 200
    [message] = messages("application_decided")
    assert message.subject.startswith("Application LDP-") and " issued: " in message.subject
    assert "land disturbance permit" in message.body_text and message.required is True


def test_exemption_decision_goes_to_the_applicant(client, factory, people):
    applicant, app_h, _, sup_h = people
    permit = factory.permit(applicant, disturbed_area_sqft=30000)
    claim = client.post(f"/api/v1/permits/{permit.id}/exemptions", json={"kind": "B2", "statement": "Fence"},
                        headers=app_h).get_json()
    assert _move(client, app_h, permit.id, "submitted").status_code == 200
    refused = client.post(f"/api/v1/permits/{permit.id}/exemptions/{claim['id']}/decision",
                          json={"decision": "rejected"}, headers=sup_h)  # no reason: 422
    assert refused.status_code == 422 and messages("exemption_decided") == []
    r = client.post(f"/api/v1/permits/{permit.id}/exemptions/{claim['id']}/decision",
                    json={"decision": "rejected", "reason": "The fence regrades the slope"}, headers=sup_h)
    assert r.status_code == 200, r.get_json()
    assert rows("exemption_decided") == [("ann@example.org", "applicant", "exemption_decided", False, "queued")]
    [message] = messages("exemption_decided")
    assert message.subject.startswith("Exemption claim B2 rejected")
    assert "The fence regrades the slope" in message.body_text and message.record_id == claim["id"]


def test_an_exempt_submission_without_a_number_reads_plainly(client, factory, people):
    applicant, app_h, _, _ = people
    permit = factory.permit(applicant, disturbed_area_sqft=30000)
    client.post(f"/api/v1/permits/{permit.id}/exemptions", json={"kind": "B2", "statement": "Fence"}, headers=app_h)
    r = _move(client, app_h, permit.id, "submitted")
    assert r.status_code == 200 and r.get_json()["number"] is None
    [message] = messages()
    assert message.subject == f"Your application was received: {permit.site_address}"
    assert "review of the exemption you claimed" in message.body_text and "not yet assigned" in message.body_text
