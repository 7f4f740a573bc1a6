"""What is due, as the applicant reads it: once the final report is submitted the permit no longer
says it is due (it says the Town is reviewing it), and dated items come soonest first."""
from __future__ import annotations

from tests.closeout.conftest import Closeout

from .conftest import PHONE
from .helpers import release_db, sign_in, wait_synced


def test_a_submitted_final_report_is_no_longer_listed_as_due(live_server, new_context, factory, client):
    closeout = Closeout(factory, client)
    applicant, app_headers = factory.as_role("applicant")
    permit = closeout.permit("permit", status="work_complete", applicant=applicant)
    other = closeout.permit("permit", status="work_complete", applicant=applicant)  # its report not filed yet
    report = client.post("/api/v1/final-reports", json=closeout.report_body(permit.id), headers=app_headers)
    assert report.status_code == 201, report.get_json()
    closeout.documents(report.get_json()["id"], app_headers)
    submitted = client.post(f"/api/v1/final-reports/{report.get_json()['id']}/submit", headers=app_headers)
    assert submitted.status_code == 200, submitted.get_json()
    email, permit_id, other_id = applicant.email, permit.id, other.id
    release_db()

    page = new_context(PHONE).new_page()
    sign_in(page, live_server.url, email)
    wait_synced(page)
    page.locator(f"a.row[data-permit='{permit_id}']").wait_for()
    filed = page.locator(f"li:has(a.row[data-permit='{permit_id}']) [data-test=due]").all_inner_texts()
    assert filed and not [t for t in filed if "Final report with the stamped" in t], filed
    assert any("submitted on" in t for t in filed), filed
    unfiled = page.locator(f"li:has(a.row[data-permit='{other_id}']) [data-test=due]").all_inner_texts()
    assert any("Final report with the stamped as-built plan" in t for t in unfiled), unfiled

    page.click(f"a.row[data-permit='{permit_id}']")
    due = page.locator("section.card:has(h2:text-is('What is due'))")
    due.wait_for()
    page.locator("section.card:has(h2:text-is('What is due')) :text('the Stormwater Authority is reviewing it')").wait_for()
    assert "Final report with the stamped" not in due.inner_text()


def test_the_permit_screen_names_an_order_once_and_what_is_due_points_to_it(live_server, new_context, factory, client):
    """An order is set out in full under "What the Town asks of you"; "What is due" says there is one to act
    on, and by when, instead of listing it a second time."""
    from datetime import date, timedelta
    closeout = Closeout(factory, client)
    applicant, _headers = factory.as_role("applicant")
    _supervisor, sup = factory.as_role("supervisor")
    permit = closeout.permit("permit", status="active", applicant=applicant)
    deadline = date.today() + timedelta(days=10)
    order = client.post("/api/v1/orders", headers=sup, json={"permit_id": permit.id, "kinds": ["controls"],
                        "requirements": [{"kind": "controls", "text": "Reseed the swale banks."}],
                        "deadline": deadline.isoformat()})
    assert order.status_code == 201, order.get_json()
    email, permit_id, number = applicant.email, permit.id, order.get_json()["number"]
    release_db()
    page = new_context(PHONE).new_page()
    sign_in(page, live_server.url, email)
    wait_synced(page)
    page.goto(f"{live_server.url}/#/permit/{permit_id}")
    page.locator("[data-test=town-asks] [data-order]").wait_for()
    due = page.locator("section.card:has(h2:text-is('What is due'))")
    assert "Act on 1 order: see “What the Town asks of you”." in due.inner_text()
    assert f"Order {number}" not in due.inner_text()
    assert page.locator(f"main :text('Order {number}')").count() == 1
