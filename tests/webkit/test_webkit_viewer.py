"""The photo viewer in WebKit (Safari's engine on the inspectors' iPads): a thumbnail opens it, Next and
Previous (buttons and keys) go through the inspection's photos, and an arrow drawn with the pointer is
saved and reaches the server as the inspector's markup of that photo, its bytes unchanged."""
from __future__ import annotations

import hashlib

from tests.browser.api_seed import inspected_field_day
from tests.browser.conftest import camera_jpeg
from tests.browser.helpers import release_db
from tests.browser.seed import SITE

from .helpers import click_text, css, sign_in, wait, wait_synced

VIEWER = "dialog.viewer[open]"


def showing(driver, photo_id: str) -> None:
    wait(driver, f"const d = document.querySelector({VIEWER!r}); const i = d && d.querySelector('svg.viewer-image image');"
                 f" return d && d.dataset.photo === {photo_id!r} && i && (i.getAttribute('href') || '').startsWith('blob:')"
                 " && d.querySelector('[data-test=viewer-distance]') !== null", 30, f"the viewer on {photo_id}")


def test_the_viewer_and_an_arrow_in_webkit(webkit, office_server, factory, client):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    jpegs = [camera_jpeg(SITE["lat"], SITE["lon"] + 0.0002, seed=n) for n in (6, 7)]
    people, headers, inspection = inspected_field_day(factory, client, jpegs)
    first, second = [pid for item in inspection["checklist"]["items"] for pid in item["photo_ids"]]
    inspector_id = people.inspector_id
    release_db()

    driver = webkit().driver
    sign_in(driver, office_server.url, people.inspector_email)
    wait_synced(driver)
    driver.get(f"{office_server.url}/#/site/{people.site_id}/inspection/{inspection['id']}")
    opener = css(driver, f"figure.photo[data-photo='{first}'] button.photo-open")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", opener)
    opener.click()
    showing(driver, first)
    assert driver.execute_script(f"return document.querySelector('{VIEWER} #viewer-title').textContent") == "Photo 1 of 2"

    click_text(driver, f"{VIEWER} button", "Next")
    showing(driver, second)
    click_text(driver, f"{VIEWER} button", "Previous")
    showing(driver, first)
    ActionChains(driver).send_keys(Keys.ARROW_RIGHT).perform()
    showing(driver, second)
    ActionChains(driver).send_keys(Keys.ARROW_LEFT).perform()
    showing(driver, first)

    # An arrow dragged across the photo, saved.
    click_text(driver, f"{VIEWER} button", "Mark up")
    css(driver, f"{VIEWER} .markup-tools")
    image = css(driver, f"{VIEWER} svg.viewer-image image")
    width, height = image.size["width"], image.size["height"]
    (ActionChains(driver).move_to_element_with_offset(image, -width // 4, -height // 4).click_and_hold()
     .move_by_offset(width // 8, height // 8).move_by_offset(width // 8, height // 8).release().perform())
    wait(driver, f"return document.querySelectorAll('{VIEWER} svg g.marks-draft g.mark').length === 1", 10, "the arrow drawn")
    click_text(driver, f"{VIEWER} .markup-tools button", "Save markup")
    wait(driver, f"return document.querySelectorAll('{VIEWER} svg g.marks-own g.mark[data-kind=arrow]').length === 1", 10, "saved")
    wait_synced(driver, timeout=90)

    stored = client.get(f"/api/v1/photos/{first}/annotations", headers=headers)
    assert stored.status_code == 200, stored.get_json()
    [markup] = stored.get_json()
    assert markup["created_by"] == inspector_id
    [arrow] = markup["shapes"]
    assert arrow["kind"] == "arrow" and len(arrow["points"]) == 2
    (x1, y1), (x2, y2) = arrow["points"]
    assert abs(x1 - 0.25) < 0.05 and abs(y1 - 0.25) < 0.05 and abs(x2 - 0.5) < 0.05 and abs(y2 - 0.5) < 0.05
    photo = client.get(f"/api/v1/photos/{first}", headers=headers).get_json()
    assert photo["sha256"] == hashlib.sha256(jpegs[0]).hexdigest()
    assert client.get(f"/api/v1/photos/{second}/annotations", headers=headers).get_json() == []
    release_db()
