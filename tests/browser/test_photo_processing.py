"""A photo whose thumbnails the server has not made yet (the upload is answered first, the worker
makes them after): the thumbnail answers 202 with Retry-After, the app shows the original meanwhile
and says so, and once a worker pass made the display image the app shows it in the original's place,
by itself."""
from __future__ import annotations

from inspect_api.extensions import db
from inspect_api.photos import derivation

from .api_seed import inspected_field_day
from .conftest import PHONE, camera_jpeg
from .helpers import release_db, sign_in, wait_synced
from .seed import SITE

NATURAL_WIDTH = "() => { const i = document.querySelector('figure.photo-large img'); return i && i.naturalWidth; }"


def test_the_app_shows_the_original_until_the_worker_made_the_thumbnail(app, live_server, new_context, factory,
                                                                          client):
    app.config["PHOTO_DERIVE_INLINE"] = False  # as in production: the upload does not wait for thumbnails
    people, headers, inspection = inspected_field_day(factory, client, [camera_jpeg(SITE["lat"], SITE["lon"], seed=7)])
    [photo_id] = [pid for item in inspection["checklist"]["items"] for pid in item["photo_ids"]]
    waiting = client.get(f"/api/v1/photos/{photo_id}/thumbnail?size=display", headers=headers)
    assert waiting.status_code == 202 and waiting.get_json()["error"] == "processing"
    assert int(waiting.headers["Retry-After"]) >= 1
    release_db()

    page = new_context(PHONE).new_page()
    sign_in(page, live_server.url, people.supervisor_email)
    wait_synced(page)
    page.goto(f"{live_server.url}/#/photo/{photo_id}")
    page.locator(f"figure.photo-large[data-photo='{photo_id}']").wait_for()
    # The original (1600 wide) stands in, with a word that the display image is on its way.
    page.wait_for_function(f"() => ({NATURAL_WIDTH})() === 1600")
    hint = page.locator("[data-test=photo-processing]")
    hint.wait_for()
    assert "original" in hint.inner_text()

    tally = derivation.drain("test-worker")
    assert tally.done == 1
    release_db()
    # The app asks again after Retry-After and swaps in the display image (longest side 1280).
    page.wait_for_function(f"() => ({NATURAL_WIDTH})() === 1280", timeout=20000)
    hint.wait_for(state="hidden")
    assert page.locator("figure.photo-large img").get_attribute("src").startswith("blob:")
    db.session.rollback()
