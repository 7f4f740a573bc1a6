"""Field-ready details: the first review queue names its sites on a fresh device, the whole photo
button opens the picker, required fields are not red before they are touched, "storage not
guaranteed" is explained, read-only screens say why, and records read in words, not codes."""
from __future__ import annotations

from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from inspect_api.auth.models import User
from inspect_api.extensions import db

from .api_seed import entry_authorization, sample, submitted_inspection
from .conftest import PHONE, TABLET_LANDSCAPE, camera_jpeg
from .helpers import release_db, sign_in, wait_synced
from .seed import SITE, field_day


def test_first_review_queue_shows_addresses_on_a_fresh_device(live_server, new_context, factory, client):
    people = field_day(factory)
    inspector = db.session.get(User, people.inspector_id)
    headers = factory.headers(inspector)
    template = client.get("/api/v1/checklist-templates/esc", headers=headers).get_json()
    ea = entry_authorization(client, headers, people.site_id)
    inspection = submitted_inspection(client, headers, people.site_id, ea["id"], template, [camera_jpeg(SITE["lat"], SITE["lon"])])
    release_db()
    # A fresh device: the queue is the first screen after sign-in, drawn before the first pull ends.
    page = new_context(TABLET_LANDSCAPE).new_page()
    sign_in(page, live_server.url, people.supervisor_email)
    row = page.locator(f"a.row[data-inspection='{inspection['id']}']")
    row.wait_for()
    assert row.locator(".title").inner_text().startswith("40 Center Street"), row.inner_text()
    wait_synced(page)
    assert row.locator(".title").inner_text().startswith("40 Center Street")


def test_photo_button_required_fields_storage_and_words(live_server, new_context, factory, client):
    people = field_day(factory)
    inspector = db.session.get(User, people.inspector_id)
    headers = factory.headers(inspector)
    ea = entry_authorization(client, headers, people.site_id)
    sample(client, headers, people.site_id, ea["id"], parameters=[{"name": "turbidity", "value": "120", "unit": "NTU"}])
    release_db()
    page = new_context(PHONE, has_touch=True, is_mobile=True).new_page()
    sign_in(page, live_server.url, people.inspector_email)
    wait_synced(page)

    # Words, not codes: the sample reads "Turbidity 120 NTU"; the authorization its basis and grantor.
    page.goto(f"{live_server.url}/#/site/{people.site_id}")
    main = page.locator("main")
    row = main.locator("a.row[href*='/sample/'] .title")
    row.wait_for()
    assert row.inner_text().startswith("Turbidity 120 NTU"), row.inner_text()
    assert "Examination, Survey, Sampling" in main.inner_text()

    # Read-only: a site not assigned to the inspector says why nothing can be recorded.
    page.goto(f"{live_server.url}/#/site/{people.far_site_id}")
    page.locator("text=You are not assigned to this site").wait_for()

    # A submitted inspection says why it cannot be changed.
    template = client.get("/api/v1/checklist-templates/esc", headers=headers).get_json()
    done = submitted_inspection(client, headers, people.site_id, ea["id"], template, [camera_jpeg(SITE["lat"], SITE["lon"])])
    release_db()
    page.get_by_role("button", name="Sync now").click()
    wait_synced(page)
    page.goto(f"{live_server.url}/#/site/{people.site_id}/inspection/{done['id']}")
    assert "Submitted for review" in page.locator("[data-test=read-only]").inner_text()

    # The whole photo button opens the picker, corners included.
    page.goto(f"{live_server.url}/#/site/{people.site_id}")
    page.get_by_role("button", name="Start inspection").click()
    page.locator("[data-item] button[data-answer=deficient]").first.click()
    button = page.locator("[data-item] .file-button").first
    box = button.bounding_box()
    assert box["height"] >= 44 and box["width"] >= 44
    # What a tap at a point reaches is the topmost element there: at every corner of the button that
    # is the file input. Each point is read again just before it is checked, since the screen may still
    # move under the button (the draft saved, the location found, the sync bar's message).
    corner_point = """([dx, dy]) => {
        const button = document.querySelector('[data-item] .file-button');
        button.scrollIntoView({block: 'center'});  // clear of the sticky sync bar
        const r = button.getBoundingClientRect();
        const x = r.left + (dx < 0 ? r.width + dx : dx), y = r.top + (dy < 0 ? r.height + dy : dy);
        const hit = document.elementFromPoint(x, y);
        return hit && hit.matches('input[type=file]') && button.contains(hit) ? [x, y] : null;
    }"""
    corners = [(3, 3), (-3, 3), (3, -3), (-3, -3), (box["width"] / 2, -2)]
    for c in corners:  # times out, naming the corner, where the input does not reach
        page.wait_for_function(corner_point, arg=list(c), timeout=10000)
    # And a real tap there opens the picker, for several photos. Chromium now and then drops the
    # chooser a synthetic click asks for while the page is still painting (the event never comes), so
    # a lost one is asked for again, a bounded number of times.
    for attempt in range(3):
        x, y = page.wait_for_function(corner_point, arg=list(corners[-2]), timeout=10000).json_value()
        try:
            with page.expect_file_chooser(timeout=5000) as chooser:
                page.mouse.click(x, y)
            break
        except PlaywrightTimeoutError:
            if attempt == 2:
                raise
    assert chooser.value.is_multiple()
    assert "Entry by permit condition from Permit condition 4" in page.inner_text("main")

    # "Storage not guaranteed" leads to what it means and what to do.
    note = page.locator("[data-test=storage-note]")
    if note.count() and "not guaranteed" in note.inner_text():
        note.click()
        explained = page.locator("[data-test=storage-explained]")
        assert "may delete work that has not been sent" in explained.inner_text()
        assert "sync whenever you have a connection" in explained.inner_text()


def test_required_fields_not_red_before_touched(live_server, new_context, factory):
    applicant = factory.user("applicant")
    email = applicant.email
    release_db()
    page = new_context(PHONE).new_page()
    sign_in(page, live_server.url, email)
    page.goto(f"{live_server.url}/#/apply")
    address = page.get_by_label("Address")
    address.wait_for()
    bad = "rgb(176, 33, 26)"
    assert address.evaluate("e => getComputedStyle(e).borderTopColor") != bad
    # Once the user has been in the field and left it empty, it is red.
    assert address.evaluate("e => e.required && e.value === ''")
    address.fill("x")
    address.fill("")
    address.blur()
    assert address.evaluate("e => getComputedStyle(e).borderTopColor") == bad
