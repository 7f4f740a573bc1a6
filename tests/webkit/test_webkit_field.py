"""The field app in WebKit (WebKitGTK, the engine of Safari on the inspectors' iPads):

- the inspector's offline day: sign in and sync; the office server stops; the app reloads from its
  service worker; an entry authorization with a signature, an inspection with a deficient item and
  a photo, and a sample are recorded; the server starts again; one sync; each record and photo is on
  the server exactly once;
- an applicant's completion notice with photos.

Where WebKit differs from Chromium (README, "The field app in WebKit"): `navigator.onLine` stays true
while the office server is down (the app finds out from the failed request, so the test stops the
server instead of the network); WebKitGTK offers no `navigator.storage.persist()`; files are chosen
through the input's file dialog (Selenium sets them), and `capture` is ignored off a phone."""
from __future__ import annotations

import hashlib
import time

from inspect_api.auth.models import User
from inspect_api.extensions import db
from tests.browser.conftest import camera_jpeg
from tests.browser.helpers import release_db
from tests.browser.seed import SITE, field_day

from .conftest import ARTIFACTS, PHONE
from .helpers import click_text, css, fill_label, outbox, sign_in, wait, wait_for_service_worker, wait_synced


def shot(driver, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(ARTIFACTS / f"{name}.png"))


def draw_signature(driver) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    canvas = css(driver, "canvas.signature")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", canvas)
    width = canvas.size["width"]
    actions = ActionChains(driver).move_to_element_with_offset(canvas, -width // 3, 20).click_and_hold()
    for i in range(1, 16):
        actions.move_by_offset(14, -6 if i % 2 else 6)
    actions.release().perform()


def photo_file(tmp_path, name: str, data: bytes) -> str:
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


def test_inspector_offline_day_in_webkit(webkit, office_server, factory, client, tmp_path):
    people = field_day(factory)
    driver = webkit().driver
    sign_in(driver, office_server.url, people.inspector_email)
    wait_for_service_worker(driver)
    wait_synced(driver)
    css(driver, f"a.row[data-permit='{people.site_id}']")

    # The office server goes down; the app reloads from the service worker's copy.
    office_server.stop()
    driver.refresh()
    css(driver, "html[data-ready=true]")
    click_text(driver, f"a.row[data-permit='{people.site_id}']", "40 Center Street")
    css(driver, "h1")
    wait(driver, "return document.querySelector('h1').textContent.includes('40 Center Street')")

    # Entry authorization with the owner's signature.
    click_text(driver, "a.button", "Record entry authorization")
    fill_label(driver, "Granted by (name)", "Pat Owner")
    draw_signature(driver)
    click_text(driver, "button", "Save authorization")
    click_text(driver, ".chip", "Valid now")

    # Inspection: every item answered, one deficient with a photo; submitted for review.
    click_text(driver, "button", "Start inspection")
    css(driver, "[data-item]")
    keys = driver.execute_script("return Array.from(document.querySelectorAll('[data-item]')).map((e) => e.dataset.item)")
    deficient = "perimeter_controls_maintained"
    for key in keys:
        answer = "deficient" if key == deficient else ("n/a" if key.startswith("dewatering") else "ok")
        button = css(driver, f"[data-item='{key}'] button[data-answer='{answer}']")
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
        button.click()
    item = f"[data-item='{deficient}']"
    note = css(driver, f"{item} input[type=text]")
    note.send_keys("Silt fence down along the east edge.")
    jpeg = camera_jpeg(SITE["lat"] + 0.0001, SITE["lon"] + 0.0002, seed=1)
    css(driver, f"{item} input[type=file]").send_keys(photo_file(tmp_path, "east.jpg", jpeg))
    css(driver, f"{item} figure.photo img[src^='blob:']")
    shot(driver, "inspector-checklist-webkit")
    click_text(driver, "button", "Submit for review")
    wait(driver, "return document.querySelector('h1') && document.querySelector('h1').textContent.includes('40 Center Street')")

    # A sample with a reading over the action level, flagged as it is typed.
    click_text(driver, "button", "Take a sample")
    wait(driver, "return document.querySelector('h1') && document.querySelector('h1').textContent.includes('New sample')")
    fill_label(driver, "Discharge point (outfall)", "OF-1")
    fill_label(driver, "Reading", "72")
    css(driver, "[data-test=action-level]")
    click_text(driver, "button", "Save sample")
    wait(driver, "return document.querySelector('h1') && document.querySelector('h1').textContent.includes('40 Center Street')")
    waiting = outbox(driver)
    assert {i["entity"] for i in waiting} >= {"entry_authorization", "inspection", "sample", "photo"}, waiting

    # The server is back: one sync sends everything.
    office_server.start()
    click_text(driver, "#syncbar button", "Sync")
    try:
        wait_synced(driver, timeout=90)
    except TimeoutError:
        raise AssertionError(outbox(driver)) from None
    assert outbox(driver) == []

    inspector = db.session.query(User).filter_by(email=people.inspector_email).one()
    headers = factory.headers(inspector)
    site = people.site_id
    eas = client.get(f"/api/v1/entry-authorizations?permit_id={site}", headers=headers).get_json()
    inspections = client.get(f"/api/v1/inspections?permit_id={site}", headers=headers).get_json()
    samples = client.get(f"/api/v1/samples?permit_id={site}", headers=headers).get_json()
    photos = client.get(f"/api/v1/photos?permit_id={site}", headers=headers).get_json()
    release_db()
    items = lambda body: body if isinstance(body, list) else body["items"]  # noqa: E731
    eas, inspections, samples, photos = items(eas), items(inspections), items(samples), items(photos)
    assert len(eas) == 1 and eas[0]["granted_by_name"] == "Pat Owner" and eas[0]["signature_photo_id"]
    assert len(inspections) == 1 and inspections[0]["status"] == "submitted"
    answers = {i["key"]: i for i in inspections[0]["checklist"]["items"]}
    assert answers[deficient]["answer"] == "deficient" and len(answers[deficient]["photo_ids"]) == 1
    assert [f["item_key"] for f in inspections[0]["findings"]] == [deficient]
    assert len(samples) == 1 and samples[0]["parameters"][0]["name"] == "turbidity"
    assert len(photos) == 2  # the item photo and the signature, each exactly once
    by_id = {p["id"]: p for p in photos}
    item_photo = by_id[answers[deficient]["photo_ids"][0]]
    assert item_photo["sha256"] == hashlib.sha256(jpeg).hexdigest() and item_photo["location"]["source"] == "exif"
    assert by_id[eas[0]["signature_photo_id"]]["content_type"] == "image/png"


def test_applicant_completion_notice_with_photos_in_webkit(webkit, office_server, factory, client, tmp_path):
    applicant = factory.user("applicant", name="Alex Builder")
    permit = factory.permit(applicant, status="active", disturbed_area_sqft=9000,
                            site={"address": "7 Oxford Street, Fairhaven, MA 02719", "location": {"lat": 41.6402, "lon": -70.8998}})
    permit_id, email, applicant_id = permit.id, applicant.email, applicant.id
    release_db()
    driver = webkit(PHONE).driver
    sign_in(driver, office_server.url, email)
    wait_for_service_worker(driver)
    wait_synced(driver)
    driver.get(f"{office_server.url}/#/permit/{permit_id}")
    click_text(driver, "a.button", "Send completion notice")
    fill_label(driver, "Statement", "All work is complete and matches the approved plan.")
    images = [camera_jpeg(41.6402, -70.8998, seed=5 + n) for n in range(2)]
    for n, data in enumerate(images):
        css(driver, "input[type=file]").send_keys(photo_file(tmp_path, f"done-{n}.jpg", data))
        wait(driver, f"return document.querySelectorAll('figure.photo').length === {n + 1}")
    shot(driver, "applicant-completion-webkit")
    click_text(driver, "button", "Send completion notice")
    wait(driver, "return document.querySelector('h1') && document.querySelector('h1').textContent.includes('7 Oxford Street')")
    time.sleep(0.5)
    wait_synced(driver, timeout=90)

    headers = factory.headers(db.session.get(User, applicant_id))
    notices = client.get(f"/api/v1/completion-notices?permit_id={permit_id}", headers=headers).get_json()
    photos = client.get(f"/api/v1/photos?permit_id={permit_id}", headers=headers).get_json()
    release_db()
    notices = notices if isinstance(notices, list) else notices["items"]
    photos = photos if isinstance(photos, list) else photos["items"]
    assert len(notices) == 1 and len(notices[0]["photo_ids"]) == 2
    assert sorted(p["id"] for p in photos) == sorted(notices[0]["photo_ids"])
    assert {p["sha256"] for p in photos} == {hashlib.sha256(b).hexdigest() for b in images}
    assert {p["status"] for p in notices[0]["photos"]} == {"uploaded"}
