"""Citations in the app (R-P1, R-P2): on the close-out screen a supervisor records a violation of the
bylaw, writes a citation from it to the permit's violator, opens its PDF, and records its delivery
and disposition; each step checked through the API."""
from __future__ import annotations

from inspect_api import clock
from inspect_api.extensions import db
from inspect_api.permits.cases import add_party

from .conftest import TABLET_LANDSCAPE
from .helpers import assert_accessible, confirm, release_db, sign_in


def test_supervisor_records_a_violation_and_writes_a_citation(live_server, new_context, factory, client):
    applicant = factory.user("applicant")
    supervisor, sup = factory.as_role("supervisor")
    permit = factory.permit(applicant, status="active", disturbed_area_sqft=30000)
    add_party(supervisor, permit, {"role": "violator", "name": "Acme Site Works LLC", "email": "acme@example.org",
                                   "mailing_address": "1 Mill Rd, New Bedford"})
    db.session.commit()
    email, permit_id = supervisor.email, permit.id
    release_db()
    today = clock.today().isoformat()

    page = new_context(TABLET_LANDSCAPE).new_page()
    sign_in(page, live_server.url, email)
    page.evaluate(f"() => {{ location.hash = '#/closeout/{permit_id}'; }}")
    card = page.locator("[data-test=violations]")
    card.wait_for()
    assert "No violation recorded" in card.inner_text()
    new = card.locator("[data-test=new-violation]")
    new.locator("summary").click()
    new.get_by_label("What was violated").select_option("bylaw")
    new.get_by_role("button", name="Record violation").click()
    assert "Give the section or plan item" in new.inner_text() and "Give the day it was first seen" in new.inner_text()
    new.get_by_label("Section or plan item").fill("§194-21(C)")
    new.get_by_label("What was seen").fill("Sediment leaving the site into the catch basin on Main St")
    new.get_by_label("First seen on").fill(today)
    new.get_by_role("button", name="Record violation").click()
    page.locator("main .banner.ok:has-text('Violation recorded')").wait_for()
    [violation] = client.get(f"/api/v1/violations?permit_id={permit_id}", headers=sup).get_json()
    release_db()
    assert (violation["provision_kind"], violation["provision"], violation["first_observed_on"]) == ("bylaw", "§194-21(C)", today)

    # The citation goes to the permit's violator, named for them; the fine is the schedule's first offense.
    write = page.locator(f"[data-write-citation='{violation['id']}']")
    write.locator("summary").click()
    assert write.get_by_label("Violator", exact=True).input_value() == "Acme Site Works LLC"
    write.get_by_label("Bylaw section").fill("194-21(C)")
    write.get_by_role("button", name="Write citation").click()
    confirm(page, "A non-criminal citation to Acme Site Works LLC")
    page.locator("main .banner.ok:has-text('Citation written')").wait_for()
    [citation] = client.get(f"/api/v1/citations?permit_id={permit_id}", headers=sup).get_json()
    schedule = client.get("/api/v1/fine-schedule", headers=sup).get_json()
    release_db()
    assert citation["violator"] == {"name": "Acme Site Works LLC", "address": "1 Mill Rd, New Bedford"}
    assert citation["offense_number"] == 1 and citation["delivery"] is None
    shown = page.locator(f"[data-citation='{citation['id']}']")
    assert citation["number"] in shown.inner_text() and "not delivered yet" in shown.inner_text()
    assert citation["fine_usd"] == schedule["first_offense"]
    dollars = f"${float(schedule['first_offense']):,.2f} · offense 1"
    assert dollars in shown.inner_text(), shown.inner_text()
    page.locator(f"a.button[data-citation-pdf='{citation['id']}'][href^='blob:']").wait_for()

    # Delivered by hand today, then what became of it.
    form = page.locator(f"form[data-citation-disposition='{citation['id']}']")
    form.get_by_label("Delivered", exact=True).select_option("hand")
    form.get_by_role("button", name="Save").click()
    assert "Give the day it was delivered" in form.inner_text()
    form.get_by_label("Delivered on").fill(today)
    form.get_by_label("Disposition").fill("Fine paid at the Collector's office")
    form.get_by_role("button", name="Save").click()
    page.locator(f"main .banner.ok:has-text('Citation {citation['number']} updated')").wait_for()
    after = client.get(f"/api/v1/citations/{citation['id']}", headers=sup).get_json()
    release_db()
    assert after["delivery"] == {"method": "hand", "delivered_on": today}
    assert after["court_case_note"] == "Fine paid at the Collector's office" and after["respond_by"]
    assert "to pay or ask for a hearing by" in page.locator(f"[data-citation='{citation['id']}']").inner_text()
    assert_accessible(page, "close-out with violations and citations")
