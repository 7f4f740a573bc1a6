"""A routine visit started from the last inspection, and a lab sample handed over with a signature, in
WebKit (the engine of Safari on the inspectors' iPads), with the office server down the whole time;
once it is back, one sync sends both and the API holds what the Chromium suites check further
(tests/browser/test_carry_over.py, test_custody.py)."""
from __future__ import annotations

from inspect_api.auth.models import User
from inspect_api.extensions import db
from tests.browser.api_seed import inspected_field_day
from tests.browser.conftest import camera_jpeg
from tests.browser.helpers import release_db
from tests.browser.seed import SITE

from .helpers import click_text, css, fill_label, outbox, sign_in, wait, wait_for_service_worker, wait_synced
from .test_webkit_field import draw_signature


def heading(driver, text: str, timeout: float = 30.0) -> None:
    wait(driver, f"const h = document.querySelector('h1'); return h && h.textContent.includes({text!r})", timeout,
         what=f"h1 {text!r}")


def type_into(driver, selector: str, text: str) -> None:
    """Types into `selector`, finding it again if the screen redrew it meanwhile (a sync landing)."""
    from selenium.common.exceptions import StaleElementReferenceException
    for _ in range(5):
        try:
            element = css(driver, selector)
            element.clear()
            element.send_keys(text)
            return
        except StaleElementReferenceException:
            continue
    raise AssertionError(f"{selector} kept being redrawn")


def test_a_visit_from_the_last_inspection_and_a_signed_hand_over_offline_in_webkit(webkit, office_server, factory, client):
    people, headers, last = inspected_field_day(factory, client, [camera_jpeg(SITE["lat"], SITE["lon"], seed=7)])
    release_db()
    driver = webkit().driver
    sign_in(driver, office_server.url, people.inspector_email)
    wait_for_service_worker(driver)
    wait_synced(driver)
    css(driver, f"a.row[data-permit='{people.site_id}']")

    office_server.stop()
    driver.refresh()
    css(driver, "html[data-ready=true]")
    click_text(driver, f"a.row[data-permit='{people.site_id}']", "40 Center Street")
    heading(driver, "40 Center Street")

    # Every answer comes filled in and marked; submitting is refused until each is confirmed.
    click_text(driver, "[data-test=start-from-last]", "Start from the last inspection")
    css(driver, "[data-test=carried-from]")
    count = driver.execute_script("return document.querySelectorAll('[data-item]').length")
    assert count == len(last["checklist"]["items"])
    assert driver.execute_script("return document.querySelectorAll('[data-test=carried]').length") == count
    click_text(driver, "button", "Submit for review")
    css(driver, "[data-test=carried-problem]")
    click_text(driver, "button", "Confirm all unchanged")
    click_text(driver, "dialog[open] [data-confirm=yes]", "")
    wait(driver, "return document.querySelectorAll('[data-test=carried]').length === 0", what="every answer confirmed")
    click_text(driver, "button", "Submit for review")
    heading(driver, "40 Center Street")

    # A lab sample handed to the courier, signed on the screen.
    # The site screen redraws as the submitted inspection lands in its list: a tap on a button being
    # replaced goes nowhere, as it would on an iPad, so it is tapped again.
    for _ in range(3):
        click_text(driver, "button", "Take a sample")
        try:
            heading(driver, "New sample", timeout=10)
            break
        except TimeoutError:
            continue
    heading(driver, "New sample")
    from selenium.webdriver.support.ui import Select
    Select(wait(driver, "const l = Array.from(document.querySelectorAll('label')).find((e) => e.textContent.trim() === 'Analysis');"
                        "return l ? (l.control || document.getElementById(l.htmlFor)) : null", what="Analysis")).select_by_value("lab")
    fill_label(driver, "Lab name", "Bay Labs")
    fill_label(driver, "Discharge point (outfall)", "OF-1")
    type_into(driver, "[data-test=received-by]", "Casey Courier")
    draw_signature(driver)
    click_text(driver, "button", "Record hand-over")
    css(driver, "[data-test=hand-over-recorded]")
    wait(driver, "const t = document.querySelector('[data-test=transfers]'); return t && t.textContent.includes('Casey Courier')",
         what="the hand-over listed")
    click_text(driver, "button", "Save sample")
    heading(driver, "40 Center Street")
    assert {i["entity"] for i in outbox(driver)} >= {"inspection", "sample", "photo"}

    office_server.start()
    click_text(driver, "#syncbar button", "Sync")
    try:
        wait_synced(driver, timeout=90)
    except TimeoutError:
        raise AssertionError(outbox(driver)) from None

    inspector = db.session.query(User).filter_by(email=people.inspector_email).one()
    headers = factory.headers(inspector)
    inspections = client.get(f"/api/v1/inspections?permit_id={people.site_id}", headers=headers).get_json()
    samples = client.get(f"/api/v1/samples?permit_id={people.site_id}", headers=headers).get_json()
    release_db()
    [new] = [i for i in inspections if i["id"] != last["id"]]
    assert new["status"] == "submitted" and new["checklist"]["carried_from_id"] == last["id"]
    assert {a["carried_over"] for a in new["checklist"]["items"]} == {False}
    assert {a["key"]: a["answer"] for a in new["checklist"]["items"]} == {a["key"]: a["answer"] for a in last["checklist"]["items"]}
    [sample] = [s for s in samples if s["analysis"] == "lab" and s["lab_name"] == "Bay Labs"]
    [transfer] = sample["chain_of_custody"]
    assert transfer["to_name"] == "Casey Courier" and transfer["signature_photo_id"]
