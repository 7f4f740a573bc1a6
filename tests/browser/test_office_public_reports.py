"""Reports from the public in the office's app: a supervisor reads a resident's report with its photo and
where the camera was, links it to the permit near it (a complaint inspection is then due there), opens an
enforcement case from another, and each is checked through the API."""
from __future__ import annotations

from .api_seed import resident_report
from .conftest import TABLET_LANDSCAPE, camera_jpeg
from .helpers import assert_accessible, confirm, release_db, sign_in, wait_synced
from .seed import SITE, office_and_active_site

REPORTS = "/api/v1/public/reports"


def _id_of(client, sup, reference: str) -> dict:
    reports = client.get("/api/v1/public-reports", headers=sup).get_json()
    return next(r for r in reports if r["reference"] == reference)


def test_supervisor_links_one_report_and_opens_a_case_from_another(live_server, new_context, factory, client, screenshot):
    office = office_and_active_site(factory)
    sup, site_id, number, email = office.supervisor_headers, office.site_id, office.site_number, office.supervisor_email
    contact = {"email": "neighbour@example.org", "name": "Rita Neighbour"}
    linked_ref = resident_report(client, "Brown water running from the site into the catch basin on Center Street.",
                         lat=SITE["lat"] + 0.0004, lon=SITE["lon"], address="Center Street by the town hall",
                         photo=camera_jpeg(SITE["lat"] + 0.0004, SITE["lon"], seed=11), **contact)
    case_ref = resident_report(client, "Someone is clearing the wooded lot and pushing soil into the marsh.",
                       lat=41.6010, lon=-70.8890, address="Shore Lane, behind number 12", **contact)
    linked = _id_of(client, sup, linked_ref)
    case_report = _id_of(client, sup, case_ref)
    release_db()

    page = new_context(TABLET_LANDSCAPE).new_page()
    sign_in(page, live_server.url, email)
    wait_synced(page)
    page.click("#nav a[href='#/public-reports']")
    rows = page.locator("a.row[data-report]")
    rows.first.wait_for()
    assert rows.count() == 2
    assert_accessible(page, "reports from the public")

    # The report as the resident sent it, with the photo and where its camera was.
    page.click(f"a.row[data-report='{linked['id']}']")
    page.locator(f"h1:has-text('Report {linked_ref}')").wait_for()
    assert "Brown water running" in page.inner_text("[data-test=report-description]")
    assert "Rita Neighbour · neighbour@example.org" in page.inner_text("main")
    photo = page.locator("[data-report-photo] img")
    page.wait_for_function("() => { const i = document.querySelector('[data-report-photo] img'); return i && i.complete && i.naturalWidth > 0; }")
    assert photo.get_attribute("src").startswith("blob:")
    assert "camera GPS: 0 m away from the place reported" in page.inner_text("figure.report-photo")
    assert_accessible(page, "a report from the public")
    screenshot(page, "supervisor-public-report", sizes=("tablet",))

    triage = page.locator("[data-test=triage]")
    assert triage.get_by_label("What the Town does").input_value() == "link"
    assert number in triage.get_by_label("Permit or case").locator("option:checked").inner_text()
    triage.get_by_role("button", name="Triage the report").click()
    assert "Write the answer the resident reads." in triage.inner_text()  # refused in words, nothing sent
    triage.get_by_label("Answer to the resident").fill("Thank you. An inspector will visit the site this week.")
    triage.get_by_role("button", name="Triage the report").click()
    confirm(page, "a complaint inspection becomes due there")
    page.locator("[data-test=answered]").wait_for()
    assert page.locator("[data-test=told]").inner_text() == \
        f"Report {linked_ref} linked to {number}: a complaint inspection is due there."
    stored = client.get(f"/api/v1/public-reports/{linked['id']}", headers=sup).get_json()
    due = client.get(f"/api/v1/inspections/due?permit_id={site_id}", headers=sup).get_json()
    status = client.get(f"{REPORTS}/{linked_ref}").get_json()
    release_db()
    assert stored["status"] == "linked" and stored["permit"]["id"] == site_id
    assert [d["kind"] for d in due if d["kind"] == "complaint"] == ["complaint"], due
    assert status["status"] == "linked" and status["answer"] == "Thank you. An inspector will visit the site this week."

    # The other: an enforcement case opened from it, starting from the place and words the resident gave.
    page.goto(f"{live_server.url}/#/public-reports/{case_report['id']}")
    triage = page.locator("[data-test=triage]")
    triage.wait_for()
    assert triage.get_by_label("Permit or case").count() == 0 or not triage.get_by_label("Permit or case").is_visible()
    triage.get_by_label("What the Town does").select_option("open_case")
    triage.get_by_role("button", name="Triage the report").click()
    form = page.locator("[data-test=new-case]")
    form.wait_for()
    assert form.get_by_label("Site address").input_value() == "Shore Lane, behind number 12"
    assert form.get_by_label("Latitude").input_value() == "41.601000"
    assert case_ref in form.get_by_label("What was seen").input_value()
    page.locator("[data-test=case-owner]").get_by_label("Name").fill("Shore Lane Trust")
    page.locator("[data-test=case-violator]").get_by_label("Name").fill("Dale Digger")
    form.get_by_label("Answer to the resident").fill("Thank you. The Town has opened an enforcement case.")
    form.get_by_role("button", name="Open the case").click()
    confirm(page, "Shore Lane, behind number 12")
    page.locator("[data-test=answered]").wait_for()
    assert "opened from report" in page.inner_text("[data-test=told]")
    stored = client.get(f"/api/v1/public-reports/{case_report['id']}", headers=sup).get_json()
    case = client.get(f"/api/v1/permits/{stored['permit']['id']}", headers=sup).get_json()
    release_db()
    assert stored["status"] == "case_opened" and case["status"] == "unpermitted"
    assert {p["name"] for p in case["parties"] if p["role"] == "violator"} == {"Dale Digger"}
    assert page.locator("[data-test=answered] a").inner_text() == case["number"]
