"""The office in WebKit (Safari's engine, on the supervisors' iPads): a resident's report with its photo is
read on the Public reports screen and linked to the permit near it, with the confirmation asked once;
the link, and the complaint inspection it makes due, are checked through the API."""
from __future__ import annotations

from tests.browser.api_seed import resident_report
from tests.browser.conftest import camera_jpeg
from tests.browser.helpers import release_db
from tests.browser.seed import SITE, office_and_active_site

from .helpers import click_text, css, fill_label, sign_in, wait, wait_synced

def test_supervisor_links_a_report_from_the_public_in_webkit(webkit, office_server, factory, client):
    office = office_and_active_site(factory)
    sup, site_id, number, email = office.supervisor_headers, office.site_id, office.site_number, office.supervisor_email
    reference = resident_report(client, "Brown water running into the catch basin.", lat=SITE["lat"] + 0.0003,
                                lon=SITE["lon"], photo=camera_jpeg(SITE["lat"], SITE["lon"], seed=31))
    release_db()

    driver = webkit().driver
    sign_in(driver, office_server.url, email)
    wait_synced(driver)
    click_text(driver, "#nav a", "Public reports")
    click_text(driver, "a.row[data-report]", "received")
    css(driver, "[data-test=triage]")
    assert reference in css(driver, "main h1").text
    # The photo arrives with the sign-in, as a blob the page may show (WebKit's CSP allows blob: images).
    wait(driver, "const i = document.querySelector('[data-report-photo] img'); return i && i.complete && i.naturalWidth > 0",
         what="the report's photo shown")
    fill_label(driver, "Answer to the resident", "Thank you. An inspector will visit this week.")
    click_text(driver, "[data-test=triage] button", "Triage the report")
    click_text(driver, "dialog[open] button", "Link the report")
    css(driver, "[data-test=answered]")
    assert f"linked to {number}" in css(driver, "[data-test=told]").text

    report = next(r for r in client.get("/api/v1/public-reports", headers=sup).get_json() if r["reference"] == reference)
    due = client.get(f"/api/v1/inspections/due?permit_id={site_id}", headers=sup).get_json()
    release_db()
    assert report["status"] == "linked" and report["permit"]["id"] == site_id
    assert [d["kind"] for d in due if d["kind"] == "complaint"] == ["complaint"]
