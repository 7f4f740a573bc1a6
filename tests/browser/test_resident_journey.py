"""A resident's whole journey, as the MS4 permit asks ("procedures for receipt and consideration of
information submitted by the public"): with no account and no JavaScript, on a phone, in Portuguese,
they find the permit of the site they see, report runoff with a photo from its page, and are e-mailed
that it was received; a supervisor triages it in the office's app into a complaint inspection at that
site; the resident is e-mailed what the Town did and reads the answer by the reference. Nothing of the
permit's parties ever shows on the public pages."""
from __future__ import annotations

from ..notifications.conftest import smtp_factory, smtp_server  # noqa: F401  (fixtures)
from .conftest import PHONE, TABLET_LANDSCAPE, camera_jpeg
from .helpers import confirm, release_db, sign_in, wait_synced
from .seed import SITE, office_and_active_site

ANSWER = "Obrigado. Um fiscal vai visitar a obra esta semana."


def _worker(app) -> str:
    from inspect_api.cli import main
    release_db()
    result = app.test_cli_runner().invoke(main, ["worker", "--once"])
    assert result.exit_code == 0, result.output
    return result.output.strip()


def test_a_resident_reports_in_portuguese_and_is_told_what_the_town_did(app, live_server, new_context, factory,
                                                                       client, smtp_server):
    app.config.update(SMTP_URL=smtp_server.url, PUBLIC_BASE_URL=live_server.url)
    office = office_and_active_site(factory)
    sup, site_id, number = office.supervisor_headers, office.site_id, office.site_number
    email, applicant_email = office.supervisor_email, office.applicant_email
    release_db()

    # The resident: a phone, Portuguese, no script.
    phone = new_context(PHONE, java_script_enabled=False).new_page()
    phone.goto(f"{live_server.url}/public/?lang=pt")  # the switch; the pages after it stay in Portuguese
    phone.get_by_label("Rua").fill("Center Street")
    phone.get_by_role("button", name="Procurar").click()
    phone.get_by_role("link", name=number).click()
    assert "Alex Builder" not in phone.inner_text("body") and applicant_email not in phone.inner_text("body")
    phone.get_by_role("link", name="Comunicar um problema nesta obra").click()
    phone.get_by_label("O que viu? (obrigatório)").fill("Água barrenta a escorrer da obra para a sarjeta.")
    phone.get_by_label("Fotografias (até 3, opcional)").set_input_files(files=[{
        "name": "sarjeta.jpg", "mimeType": "image/jpeg", "buffer": camera_jpeg(SITE["lat"] + 0.0002, SITE["lon"], seed=21)}])
    phone.get_by_label("E-mail").fill("morador@example.org")
    phone.get_by_role("button", name="Enviar a comunicação").click()
    phone.wait_for_url("**/public/reports/**")
    reference = phone.locator("p.reference").inner_text()
    assert _worker(app) == "sent 1, failed 0, to retry 0"
    [(envelope, received)] = smtp_server.received()
    assert envelope["rcpt_tos"] == ["morador@example.org"] and reference in received["Subject"]
    assert received["Subject"] == f"Recebemos a sua comunicação {reference}"  # the pages' own words

    # The office: the report waits in the queue, near the site; the supervisor links it there.
    office = new_context(TABLET_LANDSCAPE).new_page()
    sign_in(office, live_server.url, email)
    wait_synced(office)
    office.goto(f"{live_server.url}/#/public-reports")
    office.locator("a.row[data-report]").first.click()
    office.locator(f"h1:has-text('Report {reference}')").wait_for()
    office.wait_for_function("() => { const i = document.querySelector('[data-report-photo] img'); return i && i.naturalWidth > 0; }")
    assert "Portuguese" in office.inner_text("main")
    triage = office.locator("[data-test=triage]")
    assert number in triage.get_by_label("Permit or case").locator("option:checked").inner_text()
    triage.get_by_label("Answer to the resident").fill(ANSWER)
    triage.get_by_role("button", name="Triage the report").click()
    confirm(office, "a complaint inspection becomes due there")
    office.locator("[data-test=answered]").wait_for()
    due = client.get(f"/api/v1/inspections/due?permit_id={site_id}", headers=sup).get_json()
    release_db()
    assert [d["kind"] for d in due if d["kind"] == "complaint"] == ["complaint"]

    # The resident is told, in Portuguese, and reads the same answer on the report's page.
    assert _worker(app) == "sent 1, failed 0, to retry 0"
    told = smtp_server.received()[-1][1]
    assert reference in told["Subject"] and ANSWER in told.get_body(("plain",)).get_content()
    phone.reload()
    assert ANSWER in phone.inner_text("main")
