"""Screens say what the navigation says and list records in the order people read them: a supervisor's
"Conflicts" screen is headed "Conflicts", their Sites screen lists permits without an "assigned to you"
split they never have, and a site's samples come newest first, like its inspections."""
from __future__ import annotations

import uuid
from datetime import timedelta

from playwright.sync_api import expect

from inspect_api.auth.models import User
from inspect_api.extensions import db

from .api_seed import entry_authorization, now, sample
from .conftest import PHONE, TABLET_LANDSCAPE

SMALL_PHONE = {"width": 320, "height": 640}
from .helpers import release_db, sign_in, wait_synced
from .seed import field_day


def test_a_supervisor_reads_the_headings_the_navigation_names(live_server, new_context, factory):
    people = field_day(factory)
    release_db()
    page = new_context(TABLET_LANDSCAPE).new_page()
    sign_in(page, live_server.url, people.supervisor_email)
    wait_synced(page)
    nav = page.locator("#nav a[href='#/issues']")
    assert nav.inner_text().strip() == "Conflicts"
    nav.click()
    # The screen renders after the hash changes and its records are read: wait for it, not for the old one.
    expect(page.locator("main h1")).to_have_text("Conflicts")

    page.goto(f"{live_server.url}/#/sites")
    heading = page.locator("main h2.section-title").first
    heading.wait_for()
    assert heading.text_content() == "Permits (3)"
    assert "Assigned to you" not in page.inner_text("main")
    assert page.locator("main [aria-label=Permits] a.row").count() == 3


def test_an_inspector_reads_a_sites_samples_newest_first(live_server, new_context, factory, client):
    people = field_day(factory)
    headers = factory.headers(db.session.get(User, people.inspector_id))
    ea = entry_authorization(client, headers, people.site_id)
    # The device keeps records in id order: ids rising with age, so only a sort by the time sampled reads
    # newest first.
    ids = sorted(str(uuid.uuid4()) for _ in range(3))
    for record_id, hours, value in zip(ids, (20, 10, 2), ("11", "22", "33")):
        sample(client, headers, people.site_id, ea["id"], id=record_id,
               sampled_at=(now() - timedelta(hours=hours)).isoformat(),
               parameters=[{"name": "turbidity", "value": value, "unit": "NTU"}])
    release_db()
    page = new_context(PHONE).new_page()
    sign_in(page, live_server.url, people.inspector_email)
    wait_synced(page)
    assert page.locator("#nav a[href='#/issues']").inner_text().strip() == "Sync issues"
    page.goto(f"{live_server.url}/#/site/{people.site_id}")
    rows = page.locator("main a.row[href*='/sample/'] .title")
    rows.first.wait_for()
    titles = [rows.nth(i).inner_text() for i in range(rows.count())]
    assert [t.split(" NTU")[0] for t in titles] == ["Turbidity 33", "Turbidity 22", "Turbidity 11"], titles
    page.goto(f"{live_server.url}/#/sites")
    assert page.locator("main h2.section-title").first.text_content() == "Assigned to you (2)"


def test_the_sync_bar_leaves_a_small_phone_its_screen(live_server, new_context, factory):
    """The bar stays on screen while the page scrolls; on a 320 x 640 phone its words wrap beside the
    Sync button, so it keeps under a seventh of the screen, storage note included."""
    people = field_day(factory)
    release_db()
    page = new_context(SMALL_PHONE, has_touch=True, is_mobile=True).new_page()
    sign_in(page, live_server.url, people.inspector_email)
    wait_synced(page)
    page.goto(f"{live_server.url}/#/site/{people.site_id}")
    page.locator("main h1").wait_for()
    page.evaluate("() => window.scrollTo(0, 400)")
    bar = page.locator("#syncbar")
    assert "Synced" in bar.inner_text()
    box = bar.bounding_box()
    assert box["y"] == 0 and box["height"] <= SMALL_PHONE["height"] / 7, box
    button = bar.get_by_role("button", name="Sync now").bounding_box()
    assert button["y"] < box["height"] / 2 and button["height"] >= 44, button  # beside the words, not below them
    assert page.evaluate("() => document.documentElement.scrollWidth") <= SMALL_PHONE["width"]


def test_a_table_reads_on_a_small_phone_one_row_at_a_time(live_server, new_context, factory, client):
    """At 320 px four columns split every word ("Basi s", "Perm it"); there each row is a block, each cell
    under its column's name. A tablet keeps the table."""
    people = field_day(factory)
    headers = factory.headers(db.session.get(User, people.inspector_id))
    entry_authorization(client, headers, people.site_id)
    release_db()
    for viewport, stacked in ((SMALL_PHONE, True), (TABLET_LANDSCAPE, False)):
        page = new_context(viewport).new_page()
        sign_in(page, live_server.url, people.inspector_email)
        wait_synced(page)
        page.goto(f"{live_server.url}/#/site/{people.site_id}")
        table = page.locator("section:has(h2:text-is('Entry authorizations')) table")
        table.wait_for()
        cells = table.locator("tbody td")
        assert [cells.nth(i).get_attribute("data-label") for i in range(4)] == ["Basis", "Scope", "Valid", "State"]
        assert table.get_attribute("role") == "table" and cells.first.get_attribute("role") == "cell"
        display = cells.first.evaluate("e => getComputedStyle(e).display")
        assert display == ("block" if stacked else "table-cell"), (viewport, display)
        if stacked:
            # Each cell holds its words whole: no line of it is narrower than its longest word.
            assert cells.nth(1).evaluate("e => e.scrollWidth <= e.clientWidth")
            assert cells.nth(1).inner_text().startswith("Examination, Survey")
        page.context.close()
