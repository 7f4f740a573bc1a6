"""A supervisor closes out permits from the app: the deadlines list, accepting a completion notice,
the certificate of completion, a bond phase release and an order, each checked on the server."""
from __future__ import annotations

from playwright.sync_api import expect

from inspect_api.clock import today as local_today
from inspect_api.extensions import db
from inspect_api.permits.models import Permit
from tests.closeout.conftest import Closeout, pdf_bytes

from . import api_seed
from .conftest import TABLET_LANDSCAPE, camera_jpeg
from .helpers import assert_accessible, confirm, release_db, sign_in


def _seed(factory, client):
    closeout = Closeout(factory, client)
    supervisor, sup = factory.as_role("supervisor")
    applicant, app_headers = factory.as_role("applicant")
    admin = closeout.permit("admin", status="work_complete", applicant=applicant)
    photo = api_seed.photo(client, app_headers, admin.id, camera_jpeg(41.6376, -70.9036, seed=5))
    # A second photo whose camera was in San Francisco: the card must flag it, not just say "Uploaded".
    far = api_seed.photo(client, app_headers, admin.id, camera_jpeg(37.7749, -122.4194, seed=6))
    assert far["far_from_site"] is True, far
    notice = closeout.notice(admin, app_headers, photo_ids=[photo["id"], far["id"]])
    assert notice.status_code == 201, notice.get_json()
    ldp = closeout.permit("permit", status="issued", applicant=applicant)
    phase = closeout.phase(ldp, 1, in_compliance=True)
    body = {"permit_id": ldp.id, "form": "surety_bond", "amount": "10000.00", "reference": "SB-2026-118",
            "phases": [{"phase_id": phase.id, "amount": "3000.00"}]}
    bond = client.post("/api/v1/bonds", json=body, headers=sup)
    assert bond.status_code == 201, bond.get_json()
    ids = (supervisor.email, sup, admin.id, notice.get_json()["id"], ldp.id, ldp.number, bond.get_json()["id"])
    release_db()
    return ids


def test_supervisor_closes_out_permits(live_server, new_context, factory, client, screenshot):
    email, sup, admin_id, notice_id, ldp_id, ldp_number, bond_id = _seed(factory, client)
    page = new_context(TABLET_LANDSCAPE).new_page()
    sign_in(page, live_server.url, email)
    page.click("#nav a[href='#/deadlines']")
    page.locator("h1:has-text('Deadlines')").wait_for()
    row = page.locator(f"a.row[data-deadline='{bond_id}']")
    row.wait_for()
    assert "Bond phase to release" in row.inner_text() and ldp_number in row.inner_text()
    address = client.get(f"/api/v1/permits/{ldp_id}", headers=sup).get_json()["site"]["address"]
    release_db()
    assert address in row.inner_text(), row.inner_text()
    page.locator(f"a.row[data-submission='{notice_id}']").wait_for()
    screenshot(page, "supervisor-deadlines")

    # The completion notice: returning needs reasons; accepting it lets the certificate close the permit.
    page.click(f"a.row[data-submission='{notice_id}']")
    card = page.locator(f"[data-closeout='{notice_id}']")
    card.get_by_role("button", name="Return with reasons").click()
    assert "Give the reasons" in card.inner_text()
    # The evidence as the decider weighs it: the far photo is flagged with its distance, the near one is not.
    flags = card.locator("[data-test=far-from-site]")
    flags.first.wait_for()
    assert flags.count() == 1 and " km away" in flags.inner_text()
    assert card.locator("[data-test=photo-where]").count() == 2
    card.get_by_role("button", name="Accept").click()
    confirm(page, "certificate of completion can then be issued")
    page.locator(f"[data-closeout='{notice_id}'] .chip.good:has-text('Accepted')").wait_for()
    assert "Completion notice accepted." in page.locator("main .banner.ok").inner_text()
    # The notice's photo is on the card that accepted it.
    page.locator(f"[data-closeout='{notice_id}'] figure.photo img[src^='blob:']").first.wait_for()
    # Accepted with no certificate: the permit is listed under Deadlines until the certificate is issued.
    page.goto(f"{live_server.url}/#/deadlines")
    page.click(f"a.row[data-certificate-due='{admin_id}']")
    page.locator(f"[data-closeout='{notice_id}'] .chip.good:has-text('Accepted')").wait_for()
    page.get_by_role("button", name="Issue certificate of completion").click()
    confirm(page, "closes the permit")
    page.locator("a.button[data-certificate][href^='blob:']").wait_for()
    assert page.locator("[data-test=told]").inner_text() == \
        "Certificate of completion issued: the permit is closed, and the applicant is told."
    screenshot(page, "supervisor-closeout-certificate")
    certificate = client.get(f"/api/v1/permits/{admin_id}/certificate", headers=sup)
    assert certificate.status_code == 200, certificate.get_json()
    assert certificate.get_json()["number"].startswith("COC-")
    assert db.session.get(Permit, admin_id).status == "closed"
    release_db()

    parties = [p for p in client.get(f"/api/v1/permits/{ldp_id}", headers=sup).get_json()["parties"]
               if p["role"] in ("owner", "violator")]
    release_db()
    assert parties, "the permit names its owner"
    # The bond phase complete in compliance is released from the permit's panel.
    page.goto(f"{live_server.url}/#/deadlines")
    page.click(f"a.row[data-deadline='{bond_id}']")
    bond = page.locator(f"[data-bond='{bond_id}']")
    assert "$10,000.00" in bond.inner_text() and "$3,000.00" in bond.inner_text()
    bond.get_by_role("button", name="Release phase 1").click()
    confirm(page, "$3,000.00")
    page.locator(f"[data-bond='{bond_id}'] .chip.good:has-text('Released')").wait_for()
    after = client.get(f"/api/v1/bonds/{bond_id}", headers=sup).get_json()
    release_db()
    assert after["released_amount"] == "3000.00" and after["status"] == "partially_released"

    # Full release before the final report and certificate (R-D3): the app says why before anyone tries.
    full = page.locator(f"[data-bond='{bond_id}']").get_by_role("button", name="Full release")
    assert full.is_disabled()
    why = page.locator(f"#why-full-{bond_id}").inner_text()
    assert "released with the certificate of completion" in why and "the final report is accepted" in why

    # An order: the form says what is missing, then the server numbers the order.
    page.get_by_role("button", name="Issue order").click()
    assert "Choose at least one kind" in page.inner_text("main")
    assert "Name what was violated" in page.inner_text("main")
    page.get_by_label("Install or maintain controls").check()
    page.get_by_label("Requirement").fill("Replace the silt fence along the north property line.")
    page.locator("form:has(h3:has-text('Issue order'))").get_by_label("Section or plan item").fill("§194-21(C)")
    page.get_by_role("button", name="Issue order").click()
    # The confirmation names every party the order goes to (R-O0, §B(3)).
    dialog = page.locator("dialog.confirm[open]")
    dialog.wait_for()
    for party in parties:
        assert f"{party['name']} ({party['role']})" in dialog.inner_text(), (party, dialog.inner_text())
    confirm(page, "cannot be withdrawn")
    page.locator("[data-order]").wait_for()
    orders = client.get(f"/api/v1/orders?permit_id={ldp_id}", headers=sup).get_json()
    release_db()
    assert len(orders) == 1 and orders[0]["kinds"] == ["controls"]
    assert orders[0]["violated"] == [{"provision_kind": "bylaw", "provision": "§194-21(C)"}]
    assert orders[0]["requirements"][0]["text"] == "Replace the silt fence along the north property line."
    assert orders[0]["number"] and orders[0]["number"] in page.inner_text("main")
    # The order as served opens from its record: its PDF, fetched with the sign-in.
    pdf = page.locator(f"[data-order-pdf='{orders[0]['id']}']:not([aria-disabled])")
    pdf.wait_for()
    assert pdf.get_attribute("target") == "_blank"
    with page.expect_download() as download:
        page.locator(f"[data-save='{orders[0]['number']}.pdf']").click()
    assert download.value.suggested_filename == f"{orders[0]['number']}.pdf"
    with open(download.value.path(), "rb") as saved:
        assert saved.read(5) == b"%PDF-"
    assert_accessible(page, "close-out with bond and order")
    screenshot(page, "supervisor-closeout-bond-order")


def test_closeout_needs_a_connection(live_server, new_context, factory, client):
    email, _sup, admin_id, *_ = _seed(factory, client)
    context = new_context(TABLET_LANDSCAPE)
    page = context.new_page()
    sign_in(page, live_server.url, email)
    context.set_offline(True)
    page.evaluate(f"() => {{ location.hash = '#/closeout/{admin_id}'; }}")
    page.locator("main .banner.warn:has-text('need a connection')").wait_for()
    context.set_offline(False)


def test_bond_phase_recorded_complete_then_released(live_server, new_context, factory, client, screenshot):
    """R-D2 from the app alone: a pending phase is recorded complete in compliance, then released."""
    closeout = Closeout(factory, client)
    supervisor, sup = factory.as_role("supervisor")
    ldp = closeout.permit("permit", status="active")
    phase = closeout.phase(ldp, 1)  # pending: only recording it complete makes "Release phase 1" appear
    bond = client.post("/api/v1/bonds", headers=sup, json={"permit_id": ldp.id, "form": "cash", "amount": "30000.00",
                                                           "reference": "CASH-77", "phases": [{"phase_id": phase.id, "amount": "12500.00"}]})
    assert bond.status_code == 201, bond.get_json()
    bond_id, permit_id, email, phase_id = bond.get_json()["id"], ldp.id, supervisor.email, phase.id
    release_db()
    page = new_context(TABLET_LANDSCAPE).new_page()
    sign_in(page, live_server.url, email)
    page.goto(f"{live_server.url}/#/site/{permit_id}")
    page.locator("[data-test=office-links] a:has-text('Close-out')").click()
    card = page.locator(f"[data-bond='{bond_id}']")
    card.wait_for()
    assert "$30,000.00" in card.inner_text() and "Not complete" in card.inner_text()
    assert card.get_by_role("button", name="Release phase 1").count() == 0
    card.get_by_role("button", name="Record phase 1 complete").click()
    card = page.locator(f"[data-bond='{bond_id}']")
    card.get_by_role("button", name="Release phase 1").wait_for()
    assert page.locator("[data-test=told]").inner_text() == \
        "Phase 1 recorded complete in compliance: its share of the bond may now be released."
    stored = client.get(f"/api/v1/permits/{permit_id}/phases/{phase_id}", headers=sup).get_json()
    release_db()
    assert stored["status"] == "complete" and stored["completed_in_compliance"] is True
    # Cancelling the confirmation releases nothing.
    card.get_by_role("button", name="Release phase 1").click()
    page.locator("dialog.confirm[open] [data-confirm=no]").click()
    assert client.get(f"/api/v1/bonds/{bond_id}", headers=sup).get_json()["released_amount"] == "0.00"
    release_db()
    card.get_by_role("button", name="Release phase 1").click()
    confirm(page, "$12,500.00")
    page.locator(f"[data-bond='{bond_id}'] .chip.good:has-text('Released')").wait_for()
    after = client.get(f"/api/v1/bonds/{bond_id}", headers=sup).get_json()
    release_db()
    assert after["released_amount"] == "12500.00" and after["remaining_amount"] == "17500.00"
    assert page.locator("[data-test=told]").inner_text().startswith("$12,500.00 of bond ")
    assert_accessible(page, "bond after phase release")
    screenshot(page, "supervisor-bond-phase", sizes=("phone", "tablet"))


def test_supervisor_records_a_paper_document_the_report_still_needs(live_server, new_context, factory, client):
    """R-F2: the O&M log delivered on paper counts once the supervisor records it by name on the
    close-out screen; the card says what the draft still needs, and after the record nothing is missing."""
    closeout = Closeout(factory, client)
    supervisor, sup = factory.as_role("supervisor")
    applicant, app_headers = factory.as_role("applicant")
    permit = closeout.permit("permit", status="work_complete", applicant=applicant)
    draft = client.post("/api/v1/final-reports", json=closeout.report_body(permit.id), headers=app_headers)
    assert draft.status_code == 201, draft.get_json()
    report_id = draft.get_json()["id"]
    assert closeout.upload(report_id, pdf_bytes(), app_headers).status_code == 201
    assert "documents" in client.get(f"/api/v1/final-reports/{report_id}", headers=sup).get_json()["missing"]
    email, permit_id = supervisor.email, permit.id
    release_db()

    page = new_context(TABLET_LANDSCAPE).new_page()
    sign_in(page, live_server.url, email)
    page.evaluate(f"() => {{ location.hash = '#/closeout/{permit_id}'; }}")
    card = page.locator(f"[data-closeout='{report_id}']")
    card.locator("[data-test='report-missing']").wait_for()
    # What the report says is on the card the supervisor decides on (R-F2), in words.
    content = card.locator("[data-test='report-content']").inner_text()
    assert "Lee Surveyor, licence PLS-41234" in content and "Robin Engineer, licence PE-50321" in content
    assert "Swale moved 3 ft east — at Lot 2 — resolved: Approved field change" in content
    assert "Street sweeping schedule (non-structural practice)" in content
    assert "Basin inspected quarterly per the O&M plan" in content and "Certified by Robin Engineer, PE" in content
    assert card.locator("[data-certifies] .chip.good").count() == 3
    assert "Documents" in card.locator("[data-test='report-missing']").inner_text()
    form = card.locator(f"form[data-paper-document='{report_id}']")
    form.get_by_role("button", name="Record paper document").click()
    assert "Write what the paper is" in form.inner_text()
    form.get_by_label("Kind").select_option("om_documentation")
    form.get_by_label("What it is").fill("O&M log 2025-2026, delivered 3 March")
    form.get_by_role("button", name="Record paper document").click()
    page.locator(f"[data-closeout='{report_id}'] li:has-text('O&M log 2025-2026, delivered 3 March (on paper, at the Town)')").wait_for()
    assert page.locator(f"[data-closeout='{report_id}'] [data-test='report-missing']").count() == 0
    assert_accessible(page, "close-out with a paper document recorded")

    report = client.get(f"/api/v1/final-reports/{report_id}", headers=sup).get_json()
    release_db()
    paper = [d for d in report["documents"] if d.get("on_paper")]
    assert [(d["kind"], d["filename"]) for d in paper] == [("om_documentation", "O&M log 2025-2026, delivered 3 March")]
    assert report["missing"] == {}
    submitted = client.post(f"/api/v1/final-reports/{report_id}/submit", headers=app_headers)
    release_db()
    assert submitted.status_code == 200, submitted.get_json()
    assert submitted.get_json()["status"] == "submitted"

    # Accepting asks once, saying what follows, then says it was done.
    page.reload()
    card = page.locator(f"[data-closeout='{report_id}']")
    card.get_by_role("button", name="Accept").click()
    dialog = page.locator("dialog.confirm[open]")
    dialog.locator("[data-confirm=no]").click()
    assert client.get(f"/api/v1/final-reports/{report_id}", headers=sup).get_json()["status"] == "submitted"
    release_db()
    card.get_by_role("button", name="Accept").click()
    confirm(page, "certificate of completion can then be issued")
    page.locator(f"[data-closeout='{report_id}'] .chip.good:has-text('Accepted')").wait_for()
    assert "Final report accepted." in page.locator("main .banner.ok").inner_text()
    assert client.get(f"/api/v1/final-reports/{report_id}", headers=sup).get_json()["status"] == "accepted"
    release_db()


def test_no_phase_completion_is_offered_once_the_certificate_closed_the_permit(live_server, new_context, factory, client):
    """The server refuses a phase completion on a closed permit, so the app does not offer it."""
    closeout = Closeout(factory, client)
    supervisor, sup = factory.as_role("supervisor")
    ldp = closeout.permit("permit", status="closed")
    phase = closeout.phase(ldp, 1)
    bond = client.post("/api/v1/bonds", headers=sup, json={"permit_id": ldp.id, "form": "cash", "amount": "30000.00",
                                                           "phases": [{"phase_id": phase.id, "amount": "12500.00"}]})
    assert bond.status_code == 201, bond.get_json()
    refused = client.post(f"/api/v1/permits/{ldp.id}/phases/{phase.id}/completion", headers=sup,
                          json={"completed_on": local_today().isoformat(), "in_compliance": True})
    assert refused.status_code == 409, refused.get_json()
    bond_id, permit_id, email = bond.get_json()["id"], ldp.id, supervisor.email
    release_db()
    page = new_context(TABLET_LANDSCAPE).new_page()
    sign_in(page, live_server.url, email)
    page.evaluate(f"() => {{ location.hash = '#/closeout/{permit_id}'; }}")
    card = page.locator(f"[data-bond='{bond_id}']")
    card.wait_for()
    assert "Not complete" in card.inner_text()
    assert card.get_by_role("button", name="Record phase 1 complete").count() == 0


def test_the_certificate_is_offered_only_when_it_can_be_issued(live_server, new_context, factory, client):
    """R-F3: the server refuses a certificate for an active permit, or one whose report is not accepted, so
    the app says so instead of offering one that is refused after its confirmation."""
    closeout = Closeout(factory, client)
    supervisor, sup = factory.as_role("supervisor")
    applicant, app_headers = factory.as_role("applicant")
    active = closeout.permit("permit", status="active", applicant=applicant)
    refused = client.post(f"/api/v1/permits/{active.id}/certificate", headers=sup, json={})
    assert refused.status_code == 409 and refused.get_json()["error"] == "permit_not_work_complete", refused.get_json()
    admin = closeout.permit("admin", status="work_complete", applicant=applicant)
    photo = api_seed.photo(client, app_headers, admin.id, camera_jpeg(41.6376, -70.9036, seed=7))
    notice = closeout.notice(admin, app_headers, photo_ids=[photo["id"]])
    assert notice.status_code == 201, notice.get_json()
    refused = client.post(f"/api/v1/permits/{admin.id}/certificate", headers=sup, json={})
    assert refused.status_code == 409 and refused.get_json()["error"] == "completion_not_accepted", refused.get_json()
    active_id, admin_id, email = active.id, admin.id, supervisor.email
    release_db()
    page = new_context(TABLET_LANDSCAPE).new_page()
    sign_in(page, live_server.url, email)
    for permit_id, words in ((active_id, "The permit is active: a certificate is issued once the work is reported complete."),
                             (admin_id, "The completion notice has not been accepted yet.")):
        page.evaluate(f"() => {{ location.hash = '#/closeout/{permit_id}'; }}")
        expect(page.locator("[data-test=certificate-waits]")).to_have_text(words)
        expect(page.get_by_role("button", name="Issue certificate of completion")).to_be_disabled()
