"""The office's own screens in WebKit (Safari's engine, on the supervisors' iPads): the money trail
(the Town's work and its notice of costs), the program (a storm recorded), citations, and the close-out
card a final report is accepted on. Each step is checked through the API; the Chromium suites
(tests/browser/test_office_costs.py, test_office_program.py, test_office_citations.py,
test_closeout_screens.py) walk the same screens further."""
from __future__ import annotations

from datetime import timedelta

from inspect_api import clock
from inspect_api.extensions import db
from inspect_api.permits.cases import add_party
from tests.browser.helpers import release_db
from tests.closeout.conftest import Closeout, pdf_bytes

from .helpers import click_text, css, sign_in, wait


def choose(driver, label: str, value: str, within: str = "main") -> None:
    """Picks `value` in the <select> of the <label> whose text is `label`, as a tap on the iPad's picker does."""
    from selenium.webdriver.support.ui import Select
    script = (f"const l = Array.from(document.querySelector({within!r}).querySelectorAll('label'))"
              f".find((e) => e.textContent.trim() === {label!r}); return l ? (l.control || document.getElementById(l.htmlFor)) : null")
    Select(wait(driver, script, 20, f"select {label!r}")).select_by_value(value)


def type_into(driver, label: str, value: str, within: str) -> None:
    """Types into the control of the <label> `label` inside `within` (the same words label fields of other cards)."""
    script = (f"const l = Array.from(document.querySelector({within!r}).querySelectorAll('label'))"
              f".find((e) => e.textContent.trim() === {label!r}); return l ? (l.control || document.getElementById(l.htmlFor)) : null")
    element = wait(driver, script, 20, f"field {label!r} in {within}")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    element.clear()
    element.send_keys(value)


def set_value(driver, label: str, value: str, within: str = "main") -> None:
    """Sets a date or time control's value as its picker does (typing into WebKitGTK's pickers is not
    what a user does), with the input and change events the screen listens to."""
    script = (f"const l = Array.from(document.querySelector({within!r}).querySelectorAll('label'))"
              f".find((e) => e.textContent.trim() === {label!r}); return l ? (l.control || document.getElementById(l.htmlFor)) : null")
    element = wait(driver, script, 20, f"field {label!r}")
    driver.execute_script("arguments[0].value = arguments[1];"
                          "arguments[0].dispatchEvent(new Event('input', {bubbles: true}));"
                          "arguments[0].dispatchEvent(new Event('change', {bubbles: true}));", element, value)


def open_hash(driver, path: str) -> None:
    driver.execute_script("location.hash = arguments[0]", path)


def banner(driver, text: str) -> None:
    wait(driver, f"const b = document.querySelector('main .banner.ok'); return b && b.textContent.includes({text!r})",
         what=f"banner {text!r}")


def _violator(factory, supervisor, permit) -> None:
    add_party(supervisor, permit, {"role": "violator", "name": "Acme Site Works LLC", "email": "acme@example.org",
                                   "mailing_address": "1 Mill Rd, New Bedford"})


def test_the_money_trail_in_webkit(webkit, office_server, factory, client):
    applicant = factory.user("applicant")
    supervisor, sup = factory.as_role("supervisor")
    permit = factory.permit(applicant, status="active", disturbed_area_sqft=30000)
    _violator(factory, supervisor, permit)
    db.session.commit()
    today = clock.today()
    order = client.post("/api/v1/orders", headers=sup, json={
        "permit_id": permit.id, "kinds": ["controls"], "violated": [{"provision_kind": "bylaw", "provision": "§194-21(C)"}],
        "requirements": [{"kind": "controls", "text": "Re-install the silt fence"}],
        "issued_on": (today - timedelta(days=20)).isoformat(), "deadline": (today - timedelta(days=10)).isoformat()})
    assert order.status_code == 201, order.get_json()
    email, permit_id, order_id = supervisor.email, permit.id, order.get_json()["id"]
    release_db()

    driver = webkit().driver
    sign_in(driver, office_server.url, email)
    open_hash(driver, f"#/closeout/{permit_id}")
    click_text(driver, f"details[data-record-work='{order_id}'] summary", "")
    within = f"details[data-record-work='{order_id}']"
    choose(driver, "Category", "labor", within)
    type_into(driver, "What was done", "DPW crew, 6 hours", within)
    type_into(driver, "Amount", "720.00", within)
    click_text(driver, f"{within} button", "Record the work")
    click_text(driver, "dialog[open] [data-confirm=yes]", "")
    css(driver, "a.row[data-cost-recovery]")
    [recovery] = client.get(f"/api/v1/cost-recoveries?permit_id={permit_id}", headers=sup).get_json()
    release_db()
    assert recovery["costs_total"] == "720.00" and [i["category"] for i in recovery["items"]] == ["labor"]

    # The notice of costs to the violator, delivered by hand today.
    click_text(driver, f"a.row[data-cost-recovery='{recovery['id']}']", "")
    css(driver, "[data-test=cost-recipients]")
    wait(driver, "const f = Array.from(document.querySelectorAll('[data-test=cost-recipients] fieldset'))"
                 ".find((e) => e.textContent.includes('Acme Site Works LLC')); if (f) f.id = 'violator-box'; return f",
         what="the violator's box")
    within = "#violator-box"
    choose(driver, "Sent", "hand", within)
    set_value(driver, "Sent on", today.isoformat(), within)
    set_value(driver, "Received on", today.isoformat(), within)
    click_text(driver, "[data-test=cost-recipients] button", "Save notices")
    banner(driver, "Notices of costs saved")
    record = client.get(f"/api/v1/cost-recoveries/{recovery['id']}", headers=sup).get_json()
    release_db()
    violator = next(n for n in record["recipients"] if n["role"] == "violator")
    assert (violator["method"], violator["sent_on"], violator["received_on"]) == ("hand", today.isoformat(), today.isoformat())


def test_a_storm_recorded_on_the_program_screen_in_webkit(webkit, office_server, factory, client):
    supervisor, sup = factory.as_role("supervisor")
    applicant = factory.user("applicant")
    site = factory.permit(applicant, status="active", disturbed_area_sqft=30000)
    site.work_commenced_on = clock.today() - timedelta(days=10)
    db.session.commit()
    email, address = supervisor.email, site.site_address
    release_db()

    driver = webkit().driver
    sign_in(driver, office_server.url, email)
    click_text(driver, "#nav a", "Program")
    css(driver, "[data-test=storms]")
    ended = driver.execute_script("""const d = new Date(Date.now() - 2 * 3600e3); const p = (n) => String(n).padStart(2, "0");
        return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;""")
    set_value(driver, "Ended at", ended, "[data-test=storms]")
    type_into(driver, "Rain (inches)", "1.25", "[data-test=storms]")
    click_text(driver, "[data-test=storms] button", "Record storm")
    click_text(driver, "dialog[open] [data-confirm=yes]", "")
    banner(driver, "Storm recorded")
    wait(driver, f"const d = document.querySelector('[data-test=storm-due]'); return d && d.textContent.includes({address!r})",
         what="the active site owing a storm-event inspection")
    recorded = client.get("/api/v1/storm-events", headers=sup).get_json()
    release_db()
    assert [(e["inches"], e["source"]) for e in recorded] == [("1.25", "Town rain gauge")]


def test_a_citation_written_in_webkit(webkit, office_server, factory, client):
    applicant = factory.user("applicant")
    supervisor, sup = factory.as_role("supervisor")
    permit = factory.permit(applicant, status="active", disturbed_area_sqft=30000)
    _violator(factory, supervisor, permit)
    db.session.commit()
    email, permit_id = supervisor.email, permit.id
    release_db()
    today = clock.today().isoformat()

    driver = webkit().driver
    sign_in(driver, office_server.url, email)
    open_hash(driver, f"#/closeout/{permit_id}")
    click_text(driver, "[data-test=new-violation] summary", "")
    choose(driver, "What was violated", "bylaw", "[data-test=new-violation]")
    type_into(driver, "Section or plan item", "§194-21(C)", "[data-test=new-violation]")
    type_into(driver, "What was seen", "Sediment leaving the site into the catch basin on Main St", "[data-test=new-violation]")
    set_value(driver, "First seen on", today, "[data-test=new-violation]")
    click_text(driver, "[data-test=new-violation] button", "Record violation")
    banner(driver, "Violation recorded")
    [violation] = client.get(f"/api/v1/violations?permit_id={permit_id}", headers=sup).get_json()
    release_db()
    assert (violation["provision"], violation["first_observed_on"]) == ("§194-21(C)", today)

    click_text(driver, f"[data-write-citation='{violation['id']}'] summary", "")
    type_into(driver, "Bylaw section", "194-21(C)", f"[data-write-citation='{violation['id']}']")
    click_text(driver, f"[data-write-citation='{violation['id']}'] button", "Write citation")
    click_text(driver, "dialog[open] [data-confirm=yes]", "")
    banner(driver, "Citation written")
    [citation] = client.get(f"/api/v1/citations?permit_id={permit_id}", headers=sup).get_json()
    release_db()
    assert citation["violator"]["name"] == "Acme Site Works LLC" and citation["offense_number"] == 1
    # Its PDF, fetched with the sign-in, is ready to open in a tab of its own.
    css(driver, f"a.button[data-citation-pdf='{citation['id']}'][href^='blob:'][target=_blank]")


def test_a_final_report_read_and_accepted_in_webkit(webkit, office_server, factory, client):
    closeout = Closeout(factory, client)
    supervisor, sup = factory.as_role("supervisor")
    applicant, app_headers = factory.as_role("applicant")
    permit = closeout.permit("permit", status="work_complete", applicant=applicant)
    draft = client.post("/api/v1/final-reports", json=closeout.report_body(permit.id), headers=app_headers)
    assert draft.status_code == 201, draft.get_json()
    report_id = draft.get_json()["id"]
    assert closeout.upload(report_id, pdf_bytes(), app_headers).status_code == 201
    paper = client.post(f"/api/v1/final-reports/{report_id}/paper-documents", headers=sup,
                        json={"kind": "om_documentation", "name": "O&M log, delivered on paper"})
    assert paper.status_code in (200, 201), paper.get_json()
    submitted = client.post(f"/api/v1/final-reports/{report_id}/submit", headers=app_headers)
    assert submitted.status_code == 200, submitted.get_json()
    email, permit_id = supervisor.email, permit.id
    release_db()

    driver = webkit().driver
    sign_in(driver, office_server.url, email)
    open_hash(driver, f"#/closeout/{permit_id}")
    # The stamps, the certification and the practices are on the card the decision is made on.
    content = css(driver, f"[data-closeout='{report_id}'] [data-test='report-content']").text
    assert "Lee Surveyor, licence PLS-41234" in content and "Robin Engineer, licence PE-50321" in content
    assert "Certified by Robin Engineer, PE" in content
    click_text(driver, f"[data-closeout='{report_id}'] button", "Accept")
    click_text(driver, "dialog[open] [data-confirm=yes]", "")
    css(driver, f"[data-closeout='{report_id}'] .chip.good")
    banner(driver, "Final report accepted.")
    assert client.get(f"/api/v1/final-reports/{report_id}", headers=sup).get_json()["status"] == "accepted"
    release_db()
