"""A supervisor reviews a submitted inspection: photos on the SVG site map, then returns it with
comments; the inspector's device shows the comment."""
from __future__ import annotations

from .api_seed import inspected_field_day
from .conftest import TABLET_LANDSCAPE, camera_jpeg
from .helpers import confirm, release_db, sign_in, wait_for_service_worker, wait_synced
from .seed import SITE


def test_review_with_site_map_and_return(live_server, new_context, factory, client, screenshot):
    photos = [camera_jpeg(SITE["lat"] + 0.0003, SITE["lon"] - 0.0004, seed=3), camera_jpeg(SITE["lat"] - 0.0002, SITE["lon"] + 0.0005, seed=4)]
    people, headers, inspection = inspected_field_day(factory, client, photos)
    release_db()

    context = new_context(TABLET_LANDSCAPE)
    page = context.new_page()
    sign_in(page, live_server.url, people.supervisor_email)
    wait_for_service_worker(page)
    wait_synced(page)
    page.locator(f"a.row[data-inspection='{inspection['id']}']").wait_for()
    screenshot(page, "supervisor-queue")
    page.click(f"a.row[data-inspection='{inspection['id']}']")
    page.locator("svg.sitemap").wait_for()
    assert page.locator("svg.sitemap polygon.low").count() == 1
    assert page.locator("svg.sitemap circle.photopt").count() == 2
    assert page.locator("svg.sitemap rect.sitept").count() == 1
    page.locator("figure.photo img[src^='blob:']").nth(1).wait_for()
    assert page.locator("figure.photo img[src^='blob:']").count() == 2
    uploaded = page.locator("[data-test=uploaded-by]").all_inner_texts()
    assert len(uploaded) == 2 and all(t.startswith("Taken ") and "uploaded by Ines Ortiz · received " in t for t in uploaded), uploaded
    where = page.locator("[data-test=photo-where]").all_inner_texts()
    assert len(where) == 2 and all(t.startswith("Camera GPS · ") and " m from the site" in t for t in where), where
    assert page.locator("[data-test=far-from-site], [data-test=no-location]").count() == 0
    screenshot(page, "supervisor-review")
    screenshot(page, "supervisor-review-map", locator="svg.sitemap")

    page.get_by_role("button", name="Return with comments").click()
    assert "Say what to change" in page.inner_text("main")
    page.get_by_label("Comments for the inspector").fill("Add a photo of the repaired wattle before resubmitting.")
    page.get_by_role("button", name="Return with comments").click()
    page.locator("h1:has-text('Inspections to review')").wait_for()
    wait_synced(page)
    after = client.get(f"/api/v1/inspections/{inspection['id']}", headers=headers).get_json()
    release_db()
    assert after["status"] == "returned"
    assert after["review_comment"] == "Add a photo of the repaired wattle before resubmitting."

    # The inspector's tablet gets the return and its comment at the next sync.
    tablet = new_context(TABLET_LANDSCAPE).new_page()
    sign_in(tablet, live_server.url, people.inspector_email)
    wait_synced(tablet)
    tablet.goto(f"{live_server.url}/#/site/{people.site_id}/inspection/{inspection['id']}")
    tablet.locator("text=Returned by the supervisor").wait_for()
    assert "repaired wattle" in tablet.inner_text("main")


def test_approving_an_inspection_asks_once_and_says_what_follows(live_server, new_context, factory, client):
    people, headers, inspection = inspected_field_day(
        factory, client, [camera_jpeg(SITE["lat"] + 0.0003, SITE["lon"] - 0.0004, seed=7)])
    release_db()

    page = new_context(TABLET_LANDSCAPE).new_page()
    sign_in(page, live_server.url, people.supervisor_email)
    wait_synced(page)
    page.click(f"a.row[data-inspection='{inspection['id']}']")
    # The inspection report the decision rests on opens from the screen, fetched with the sign-in.
    # It opens in a tab of its own to be read, and "Save a copy" keeps it on the device.
    report = page.locator("[data-test=report-pdf]:not([aria-disabled])")
    report.wait_for()
    assert report.get_attribute("target") == "_blank" and report.get_attribute("download") is None
    with page.context.expect_page() as tab:
        report.click()
    assert tab.value.url == report.get_attribute("href") and tab.value.url.startswith("blob:")
    assert tab.value.evaluate("document.contentType") == "application/pdf"
    tab.value.close()
    name = f"inspection-{inspection_number(client, headers, inspection)}.pdf"
    save = page.locator(f"[data-save='{name}']:not([aria-disabled])")
    with page.expect_download() as download:
        save.click()
    assert download.value.suggested_filename == name
    with open(download.value.path(), "rb") as saved:
        assert saved.read(5) == b"%PDF-"
    page.get_by_role("button", name="Approve").click()
    page.locator("dialog.confirm[open] [data-confirm=no]").click()
    assert client.get(f"/api/v1/inspections/{inspection['id']}", headers=headers).get_json()["status"] == "submitted"
    release_db()
    page.get_by_role("button", name="Approve").click()
    confirm(page, "not edited afterwards")
    page.locator("h1:has-text('Inspections to review')").wait_for()
    # ... and says what happened, once.
    assert page.locator("[data-test=told]").inner_text() == f"Inspection approved ({people.site_address})."
    wait_synced(page)
    after = client.get(f"/api/v1/inspections/{inspection['id']}", headers=headers).get_json()
    release_db()
    assert after["status"] == "approved"
    page.goto(f"{page.url.split('#')[0]}#/sites")
    page.goto(f"{page.url.split('#')[0]}#/review")
    page.locator("h1:has-text('Inspections to review')").wait_for()
    assert page.locator("[data-test=told]").count() == 0


def inspection_number(client, headers, inspection) -> str:
    permit = client.get(f"/api/v1/permits/{inspection['permit_id']}", headers=headers).get_json()
    return permit["number"]
