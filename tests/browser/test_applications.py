"""A supervisor decides applications in the app (R-C2, R-B1): the queue, the determination, the
documents the review level needs, an exemption claim rejected with its reason, the review started,
the approval and a denial confirmed, each checked on the server; the site leads to close-out."""
from __future__ import annotations

from inspect_api.extensions import db
from inspect_api.permits.models import Permit

from .conftest import PHONE, TABLET_LANDSCAPE
from .helpers import assert_accessible, confirm, release_db, sign_in, sideways_scroll


def _seed(factory, client):
    supervisor, sup = factory.as_role("supervisor")
    applicant, app_headers = factory.as_role("applicant")
    admin = factory.permit(applicant, status="draft", disturbed_area_sqft=12000,
                           site={"address": "94 Mill Road, Fairhaven, MA 02719", "location": {"lat": 41.64, "lon": -70.90}})
    ldp = factory.permit(applicant, status="under_review", disturbed_area_sqft=32000,
                         site={"address": "7 Oxford Street, Fairhaven, MA 02719", "location": {"lat": 41.63, "lon": -70.91}})
    doc = client.post(f"/api/v1/permits/{admin.id}/documents", headers=app_headers,
                      json={"kind": "esc_plan", "filename": "esc-plan.pdf", "title": "ESC plan, sheet C-1"})
    assert doc.status_code == 201, doc.get_json()
    claim = client.post(f"/api/v1/permits/{admin.id}/exemptions", headers=app_headers,
                        json={"kind": "B2", "statement": "Only a fence along the north line."})
    assert claim.status_code == 201, claim.get_json()
    moved = client.post(f"/api/v1/permits/{admin.id}/transitions", headers=app_headers, json={"to": "submitted"})
    assert moved.status_code == 200, moved.get_json()
    ids = (supervisor.email, sup, admin.id, ldp.id, claim.get_json()["id"])
    release_db()
    return ids


def test_supervisor_decides_applications(live_server, new_context, factory, client, screenshot):
    email, sup, admin_id, ldp_id, claim_id = _seed(factory, client)
    page = new_context(TABLET_LANDSCAPE).new_page()
    sign_in(page, live_server.url, email)
    page.click("#nav a[href='#/applications']")
    row = page.locator(f"a.row[data-application='{admin_id}']")
    row.wait_for()
    assert "94 Mill Road" in row.inner_text() and "Submitted" in row.inner_text()
    ldp_row = page.locator(f"a.row[data-application='{ldp_id}']")
    assert "Documents missing" in ldp_row.inner_text()  # no ESC or O&M plan on the permit application
    assert_accessible(page, "applications queue")
    screenshot(page, "supervisor-applications")

    row.click()
    page.locator("h1:has-text('94 Mill Road')").wait_for()
    main = page.locator("main")
    assert "ESC plan, sheet C-1" in main.inner_text()
    claim = page.locator(f"[data-exemption='{claim_id}']")
    assert "Only a fence along the north line." in claim.inner_text()
    # The claim stands, but until a supervisor accepts it the exemption is claimed, not decided (R-B2).
    assert "Exemption claimed, not yet decided" in page.locator(".determination").inner_text()
    assert "claims exemption" in page.locator(".determination").inner_text()
    # Rejecting needs a reason.
    claim.get_by_role("button", name="Reject claim").click()
    assert "Say why the claim is rejected" in claim.inner_text()
    # The review starts; then the claim is rejected and the project falls back to administrative review.
    page.get_by_role("button", name="Start the review").click()
    page.locator("[data-test=status]:has-text('Under review')").wait_for()
    claim = page.locator(f"[data-exemption='{claim_id}']")
    claim.get_by_label("Reason for the applicant").fill("The fence crosses the drainage swale; it alters drainage.")
    claim.get_by_role("button", name="Reject claim").click()
    confirm(page, "reviewed at the level its area and use require")  # asks once ...
    page.locator(f"[data-exemption='{claim_id}'] .chip.bad:has-text('Rejected')").wait_for()
    assert "rejected: the applicant is told." in page.locator("main .banner.ok").inner_text()  # ... and says what happened
    assert "Administrative land disturbance review" in page.locator(".determination").inner_text()
    assert_accessible(page, "application under review")

    # The decision needs a reason, then asks once, then is recorded with the reason.
    decision = page.locator("[data-test=decision]")
    decision.get_by_role("button", name="Approve").click()
    assert "Give the reason for the decision" in decision.inner_text()
    decision.get_by_label("Reason for the decision").fill("ESC plan complete; perimeter controls shown on sheet C-1.")
    assert "Give the reason" not in decision.inner_text()
    page.evaluate("() => window.scrollTo(0, 0)")
    screenshot(page, "supervisor-deciding-application")
    decision.get_by_role("button", name="Approve").click()
    confirm(page, "94 Mill Road")
    page.locator("h1 ~ [data-test=status]:has-text('Approved'), .split [data-test=status]:has-text('Approved')").first.wait_for()
    assert "ESC plan complete" in page.locator("main").inner_text()  # the history shows the reason
    assert page.locator("main .banner.ok").inner_text() == "Application approved: the applicant is told."
    record = client.get(f"/api/v1/permits/{admin_id}", headers=sup).get_json()
    events = client.get(f"/api/v1/permits/{admin_id}/events", headers=sup).get_json()
    claims = client.get(f"/api/v1/permits/{admin_id}/exemptions", headers=sup).get_json()
    release_db()
    assert record["status"] == "approved" and record["review_level"] == "administrative_review"
    assert [e["to_status"] for e in events][-2:] == ["under_review", "approved"]
    assert events[-1]["reason"] == "ESC plan complete; perimeter controls shown on sheet C-1."
    assert claims[0]["status"] == "rejected" and claims[0]["decision_reason"].startswith("The fence crosses")

    # The site leads to the application and to close-out (94 Mill Road is no longer only reachable by URL).
    page.goto(f"{live_server.url}/#/site/{admin_id}")
    links = page.locator("[data-test=office-links]")
    links.wait_for()
    links.get_by_role("link", name="Close-out, bonds and orders").click()
    page.locator("h1:has-text('Close-out')").wait_for()

    # Denying a permit application: cancelling the confirmation changes nothing; confirming denies it.
    page.goto(f"{live_server.url}/#/application/{ldp_id}")
    decision = page.locator("[data-test=decision]")
    decision.wait_for()
    assert decision.get_by_role("button", name="Approve").count() == 0  # a permit is issued, not approved
    # No ESC or O&M plan on file: the app says so before the supervisor tries, and offers no issue (R-C1).
    needs = page.locator("[data-test=decision-needs]").inner_text()
    assert "A permit is issued on its plan" in needs and "(ESC plan)" in needs and "(O&M plan)" in needs
    assert decision.get_by_role("button", name="Issue the permit").is_disabled()
    decision.get_by_label("Reason for the decision").fill("No ESC plan after two requests.")
    decision.get_by_role("button", name="Deny").click()
    page.locator("dialog.confirm[open] [data-confirm=no]").click()
    assert client.get(f"/api/v1/permits/{ldp_id}", headers=sup).get_json()["status"] == "under_review"
    release_db()
    decision.get_by_role("button", name="Deny").click()
    confirm(page, "denied")
    page.locator(".split [data-test=status]:has-text('Denied')").wait_for()
    assert db.session.get(Permit, ldp_id).status == "denied"
    release_db()


def test_application_screens_at_phone_size(live_server, new_context, factory, client, screenshot):
    email, _sup, admin_id, _ldp_id, _claim = _seed(factory, client)
    page = new_context(PHONE, has_touch=True, is_mobile=True).new_page()
    sign_in(page, live_server.url, email)
    page.goto(f"{live_server.url}/#/application/{admin_id}")
    page.locator("[data-test=decision]").wait_for()
    assert sideways_scroll(page) == []
    assert_accessible(page, "application at phone size")
    screenshot(page, "supervisor-application", sizes=("phone", "tablet"))
