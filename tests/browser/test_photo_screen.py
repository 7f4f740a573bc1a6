"""The link an e-mailed finding gives for each photo opens it in the app: fetched with the reader's
sign-in (a bare API address answers a browser 401), shown large with where it was taken and how far
from the site; a reader who may not see it is told so, and nothing of it is shown."""
from __future__ import annotations

from .api_seed import inspected_field_day
from .conftest import PHONE, camera_jpeg
from .helpers import release_db, sign_in, wait_synced
from .seed import SITE


def test_a_finding_photo_opens_from_its_link_for_whoever_may_see_it(live_server, new_context, factory, client):
    people, _headers, inspection = inspected_field_day(factory, client, [camera_jpeg(SITE["lat"], SITE["lon"], seed=41)])
    [photo_id] = [pid for item in inspection["checklist"]["items"] for pid in item["photo_ids"]]
    stranger = factory.user("applicant")
    stranger_email = stranger.email
    release_db()

    page = new_context(PHONE).new_page()
    sign_in(page, live_server.url, people.supervisor_email)
    wait_synced(page)
    page.goto(f"{live_server.url}/#/photo/{photo_id}")
    figure = page.locator(f"figure.photo-large[data-photo='{photo_id}']")
    figure.wait_for()
    page.wait_for_function("() => { const i = document.querySelector('figure.photo-large img'); return i && i.naturalWidth > 0; }")
    assert page.locator("figure.photo-large img").get_attribute("src").startswith("blob:")
    assert "Camera GPS" in figure.inner_text() and "from the site" in figure.inner_text()
    page.locator("[data-test=original]:not([aria-disabled])").wait_for()
    # "Open in the viewer": the photo full screen, zoomable, with the others of its inspection.
    page.locator("[data-test=open-viewer]").click()
    page.locator(f"dialog.viewer[open][data-photo='{photo_id}'] [data-test=viewer-distance]").wait_for()
    assert page.locator("dialog.viewer #viewer-title").inner_text() == "Photo"
    page.keyboard.press("Escape")
    page.locator("dialog.viewer").wait_for(state="detached")

    other = new_context(PHONE).new_page()
    sign_in(other, live_server.url, stranger_email)
    other.goto(f"{live_server.url}/#/photo/{photo_id}")
    other.locator("main .banner.error").wait_for()
    assert other.locator("figure.photo-large").count() == 0
