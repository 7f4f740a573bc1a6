"""An applicant does the whole job in the app: signs up, attaches the plans the review level needs
(submitting waits for them), claims an exemption with its evidence, sees what the Town asks, files a
final report with its documents, and cancels a completion notice without its photos reaching the
server. Each step is checked through the API."""
from __future__ import annotations

import hashlib
from datetime import date, timedelta
from pathlib import Path

from inspect_api.auth.models import User
from inspect_api.clock import today as town_today
from inspect_api.extensions import db
from tests.closeout.conftest import pdf_bytes

from .conftest import PHONE, TABLET_LANDSCAPE, camera_jpeg
from .helpers import (assert_accessible, confirm, outbox_items, release_db, sideways_scroll, sign_in,
                      wait_for_service_worker, wait_synced)

ESC_PDF = pdf_bytes("ESC plan, sheets C-1 to C-4")


def test_sign_up_then_documents_before_submitting(live_server, new_context, factory, client, screenshot):
    page = new_context(PHONE, has_touch=True, is_mobile=True).new_page()
    page.goto(live_server.url + "/")
    page.wait_for_selector("html[data-ready=true]")
    page.get_by_role("link", name="Create an account").click()
    page.get_by_label("Your name").fill("Robin Mendes")
    page.get_by_label("E-mail").fill("robin.mendes@example.org")
    page.get_by_label("Password", exact=True).fill("short")
    page.get_by_role("button", name="Create account").click()
    assert "at least 12 characters" in page.inner_text("main")
    assert_accessible(page, "sign-up with an error")
    screenshot(page, "applicant-sign-up", sizes=("phone", "tablet"))
    page.get_by_label("Password", exact=True).fill("a long passphrase 7")
    page.get_by_label("Password again").fill("a long passphrase 7")
    page.get_by_role("button", name="Create account").click()
    page.locator("h1:has-text('My permits')").wait_for()
    user = db.session.query(User).filter_by(email="robin.mendes@example.org").one()
    assert user.role == "applicant" and user.name == "Robin Mendes"
    applicant_id = user.id
    release_db()

    # A land disturbance permit application needs an ESC plan and an O&M plan before it is submitted.
    permit = factory.permit(db.session.get(User, applicant_id), status="draft", disturbed_area_sqft=26000,
                            site={"address": "88 Alden Road, Fairhaven, MA 02719", "location": {"lat": 41.6511, "lon": -70.879}})
    permit_id = permit.id
    release_db()
    wait_for_service_worker(page)
    page.get_by_role("button", name="Sync now").click()
    wait_synced(page)
    page.goto(f"{live_server.url}/#/permit/{permit_id}")
    needs = page.locator("[data-test=submit-needs]")
    needs.wait_for()
    assert "ESC plan" in needs.inner_text() and "O&M plan" in needs.inner_text()
    assert page.get_by_role("button", name="Submit for review").is_disabled()
    assert sideways_scroll(page) == []
    assert_accessible(page, "draft permit application at phone size")

    docs = page.locator("[data-test=documents]")
    docs.get_by_label("Kind").select_option("esc_plan")
    docs.get_by_label("Title").fill("ESC plan, sheets C-1 to C-4")
    docs.locator("input[type=file]").set_input_files(files=[{"name": "esc-plan.pdf", "mimeType": "application/pdf", "buffer": ESC_PDF}])
    docs.get_by_role("button", name="Add document").click()
    page.locator("[data-need=esc_plan] .chip.good").wait_for()
    # The applicant opens what they sent: the server's copy, byte for byte.
    with page.expect_download() as sent:
        page.locator("[data-test=documents]").get_by_role("button", name="Save a copy of esc-plan.pdf").click()
    assert Path(sent.value.path()).read_bytes() == ESC_PDF
    docs = page.locator("[data-test=documents]")
    docs.get_by_label("Kind").select_option("om_plan")
    docs.get_by_label("Title").fill("O&M plan, basin and swale")
    docs.locator("input[type=file]").set_input_files(files=[{"name": "om-page1.jpg", "mimeType": "image/jpeg", "buffer": camera_jpeg(41.65, -70.88, seed=2)}])
    docs.get_by_role("button", name="Add document").click()
    page.locator("[data-need=om_plan] .chip.good").wait_for()
    assert page.locator("[data-test=submit-needs]").count() == 0
    screenshot(page, "applicant-documents", sizes=("phone", "tablet"), locator="[data-test=documents]")
    page.get_by_role("button", name="Submit for review").click()
    page.locator("[data-test=status]:has-text('Submitted')").first.wait_for()
    wait_synced(page)

    sup = factory.headers(factory.user("supervisor"))
    for _ in range(100):  # the move travels through the outbox: wait until the server has it
        record = client.get(f"/api/v1/permits/{permit_id}", headers=sup).get_json()
        release_db()
        if record["status"] != "draft" or not outbox_items(page):
            break
        page.wait_for_timeout(200)
    assert record["status"] == "submitted", outbox_items(page)
    kinds = {d["kind"]: d for d in record["documents"]}
    assert set(kinds) == {"esc_plan", "om_plan"}
    # The PDF itself is stored (R-C1), byte for byte, with its SHA-256; so is the photographed sheet.
    esc = kinds["esc_plan"]
    assert esc["filename"] == "esc-plan.pdf" and esc["content_type"] == "application/pdf"
    assert esc["sha256"] == hashlib.sha256(ESC_PDF).hexdigest() and esc["title"] == "ESC plan, sheets C-1 to C-4"
    assert kinds["om_plan"]["content_type"] == "image/jpeg" and kinds["om_plan"]["url"]
    stored = client.get(esc["url"], headers=sup)
    release_db()
    assert stored.status_code == 200 and stored.data == ESC_PDF

    # The supervisor deciding the application sees the plan on the review card and opens it.
    supervisor = factory.user("supervisor", name="Sam Reviewer")
    supervisor_email = supervisor.email
    release_db()
    office = new_context(TABLET_LANDSCAPE).new_page()
    sign_in(office, live_server.url, supervisor_email)
    office.goto(f"{live_server.url}/#/application/{permit_id}")
    card = office.locator(f"[data-document='{esc['id']}']")
    card.wait_for()
    assert "ESC plan, sheets C-1 to C-4" in card.inner_text() and "PDF" in card.inner_text()
    assert "bring or send" not in office.inner_text("main")
    # A PDF opens in a tab of its own, to be read there; "Save a copy" keeps it.
    with office.context.expect_page() as tab:
        card.get_by_role("button", name="Open esc-plan.pdf").click()
    tab.value.wait_for_url(lambda url: url.startswith("blob:"))
    assert tab.value.evaluate("document.contentType") == "application/pdf"
    tab.value.close()
    with office.expect_download() as download:
        card.get_by_role("button", name="Save a copy of esc-plan.pdf").click()
    assert download.value.suggested_filename == "esc-plan.pdf"
    assert Path(download.value.path()).read_bytes() == ESC_PDF
    assert_accessible(office, "review card with the documents")
    screenshot(office, "supervisor-application-documents", sizes=("phone", "tablet"), locator="[data-test=review-documents]")


def test_exemption_claim_with_evidence(live_server, new_context, factory, client):
    applicant, headers = factory.as_role("applicant")
    permit = factory.permit(applicant, status="draft", disturbed_area_sqft=9000,
                            site={"address": "3 Cottage Street, Fairhaven, MA 02719", "location": {"lat": 41.64, "lon": -70.9}})
    permit_id, email = permit.id, applicant.email
    release_db()
    page = new_context(TABLET_LANDSCAPE).new_page()
    sign_in(page, live_server.url, email)
    wait_synced(page)
    page.goto(f"{live_server.url}/#/permit/{permit_id}")
    claims = page.locator("[data-test=exemptions]")
    claims.get_by_label("Exemption").select_option("B5")
    claims.get_by_label("Order of conditions number").fill("SE 023-1234")
    claims.get_by_label("Issued on").fill((date.today() - timedelta(days=30)).isoformat())
    claims.get_by_role("button", name="Claim exemption").click()
    # The server says what the B5 claim lacks, in words.
    claims.locator(".banner.error").wait_for()
    assert "Expires" in claims.inner_text() or "expir" in claims.inner_text().lower()
    claims.get_by_label("Exemption").select_option("B2")
    claims.get_by_label("Statement").fill("Split-rail fence on the east line; posts only, no grading.")
    claims.get_by_role("button", name="Claim exemption").click()
    page.locator("[data-exemption] :text('Waiting for the office')").wait_for()
    assert_accessible(page, "exemption claims")
    stored = client.get(f"/api/v1/permits/{permit_id}/exemptions", headers=headers).get_json()
    release_db()
    assert [(c["kind"], c["status"], c["statement"]) for c in stored] == [
        ("B2", "claimed", "Split-rail fence on the east line; posts only, no grading.")]


def test_final_report_with_documents_and_what_the_town_asks(live_server, new_context, factory, client, screenshot):
    from tests.closeout.conftest import Closeout
    closeout = Closeout(factory, client)
    applicant, headers = factory.as_role("applicant")
    supervisor, sup = factory.as_role("supervisor")
    permit = closeout.permit("permit", status="work_complete", applicant=applicant,
                             site={"address": "120 Main Street, Fairhaven, MA 02719", "location": {"lat": 41.63, "lon": -70.9}})
    permit_id, email, supervisor_email = permit.id, applicant.email, supervisor.email
    order = client.post("/api/v1/orders", headers=sup, json={"permit_id": permit_id, "kinds": ["controls"],
                        "requirements": [{"kind": "controls", "text": "Reseed the swale banks."}],
                        "deadline": (date.today() + timedelta(days=10)).isoformat()})
    assert order.status_code == 201, order.get_json()
    release_db()
    page = new_context(TABLET_LANDSCAPE).new_page()
    sign_in(page, live_server.url, email)
    wait_synced(page)
    page.goto(f"{live_server.url}/#/permit/{permit_id}")
    asks = page.locator("[data-test=town-asks]")
    asks.locator("[data-order]").wait_for()
    assert "Reseed the swale banks." in asks.inner_text() and "Install or maintain controls" in asks.inner_text()
    assert "controls (" not in asks.inner_text()

    page.get_by_role("link", name="Final report").click()
    page.locator("[data-test=report-missing]").wait_for()
    assert "as-built" in page.inner_text("[data-test=report-missing]").lower()
    page.get_by_label("Kind of document").select_option("as_built_plan")
    page.locator("[data-test=report-documents] input[type=file]").set_input_files(
        files=[{"name": "as-built.pdf", "mimeType": "application/pdf", "buffer": pdf_bytes("As-built")}])
    page.get_by_role("button", name="Upload document").click()
    page.locator("[data-test=report-documents] li:has-text('as-built.pdf')").wait_for()
    # R-F2: the O&M documentation is a document too, and the list of what is missing says so before submitting.
    assert "per the o&m plan" in page.inner_text("[data-test=report-missing]").lower()
    page.get_by_label("Kind of document").select_option("om_documentation")
    page.locator("[data-test=report-documents] input[type=file]").set_input_files(
        files=[{"name": "om-log.pdf", "mimeType": "application/pdf", "buffer": pdf_bytes("O&M log")}])
    page.get_by_role("button", name="Upload document").click()
    page.locator("[data-test=report-documents] li:has-text('om-log.pdf')").wait_for()
    pls = page.locator("fieldset:has(legend:text('Professional land surveyor'))")
    pls.get_by_label("Name").fill("Dana Whitcomb")
    pls.get_by_label("License number").fill("PLS 41822")
    pls.get_by_label("Stamp date").fill(town_today().isoformat())  # the Town's day, not the machine's (UTC)
    page.get_by_label("A professional engineer's stamp applies to this project").uncheck()
    for text in ("substantially complies", "Permanent erosion controls", "Stormwater facilities"):
        page.get_by_label(text).check()
    page.get_by_label("Controls on the site").fill("Infiltration basin\nStreet sweeping (non-structural)")
    page.get_by_label("Operation and maintenance").fill("Basin inspected monthly; log attached.")
    assert_accessible(page, "final report form")
    screenshot(page, "applicant-final-report", sizes=("phone", "tablet"))
    page.get_by_role("button", name="Submit final report").click()
    page.locator("h1:has-text('120 Main Street')").wait_for()
    reports = client.get(f"/api/v1/final-reports?permit_id={permit_id}", headers=headers).get_json()
    release_db()
    reports = reports if isinstance(reports, list) else reports["items"]
    assert len(reports) == 1 and reports[0]["status"] == "submitted"
    assert [d["kind"] for d in reports[0]["documents"]] == ["as_built_plan", "om_documentation"]
    assert {c["kind"] for c in reports[0]["controls"]} == {"structural", "non_structural"}

    # The supervisor sees the report's documents on the card that accepts or returns it.
    office = new_context(TABLET_LANDSCAPE).new_page()
    sign_in(office, live_server.url, supervisor_email)
    office.goto(f"{live_server.url}/#/closeout/{permit_id}")
    link = office.locator(f"[data-closeout='{reports[0]['id']}'] a[data-report-document][href^='blob:']")
    link.first.wait_for()
    link.nth(1).wait_for()
    assert "as-built.pdf" in link.first.inner_text() and "om-log.pdf" in link.nth(1).inner_text()
    assert office.locator(f"[data-closeout='{reports[0]['id']}']").get_by_role("button", name="Accept").count() == 1


def test_cancelled_completion_notice_drops_its_photos(live_server, new_context, factory, client):
    applicant = factory.user("applicant")
    active = factory.permit(applicant, status="active", disturbed_area_sqft=9000,
                            site={"address": "7 Oxford Street, Fairhaven, MA 02719", "location": {"lat": 41.6402, "lon": -70.8998}})
    permit_id, email, applicant_id = active.id, applicant.email, applicant.id
    release_db()
    page = new_context(PHONE).new_page()
    sign_in(page, live_server.url, email)
    wait_synced(page)
    page.goto(f"{live_server.url}/#/permit/{permit_id}/completion")
    page.set_input_files("input[type=file]", files=[{"name": "a.jpg", "mimeType": "image/jpeg", "buffer": camera_jpeg(41.64, -70.9, seed=1)}])
    page.locator("figure.photo").wait_for()
    # Held: not sent while the notice is unsaved, even when a sync runs.
    page.get_by_role("button", name="Sync now").click()
    wait_synced(page)
    assert [i["state"] for i in outbox_items(page) if i["kind"] == "photo"] == ["held"]
    page.get_by_role("button", name="Cancel").click()
    page.locator("h1:has-text('7 Oxford Street')").wait_for()
    assert [i for i in outbox_items(page) if i["kind"] == "photo"] == []
    page.get_by_role("button", name="Sync now").click()
    wait_synced(page)
    headers = factory.headers(db.session.get(User, applicant_id))
    photos = client.get(f"/api/v1/photos?permit_id={permit_id}", headers=headers).get_json()
    release_db()
    assert (photos if isinstance(photos, list) else photos["items"]) == []

    # Work complete is asked once, saying what follows; cancelling changes nothing.
    page.get_by_role("button", name="Work is complete").click()
    page.locator("dialog.confirm[open] [data-confirm=no]").click()
    assert page.locator("[data-test=status]").first.inner_text() == "Active"
    page.get_by_role("button", name="Work is complete").click()
    confirm(page, "completion date is set to today")
    page.locator("[data-test=status]:has-text('Work complete')").first.wait_for()
    wait_synced(page)
    for _ in range(100):  # the move travels through the outbox: wait until the server has it
        stored = client.get(f"/api/v1/permits/{permit_id}", headers=headers).get_json()
        release_db()
        if stored["status"] != "active" or not outbox_items(page):
            break
        page.wait_for_timeout(200)
    assert stored["status"] == "work_complete", outbox_items(page)
