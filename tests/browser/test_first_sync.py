"""A supervisor's first sync of many records: the sync bar counts the records
received while pages still arrive, and the app is usable meanwhile: the Sites screen lists what has
landed and a listed site opens; a site whose page has not landed says so and shows itself when it
does. Pages are made small (SYNC_PULL_MAX_LIMIT) and held back by the test after the first few, so
"while pages are still arriving" is a state the test controls, not a race."""
from __future__ import annotations

import re

import pytest

from benchmarks.county import seed_county
from inspect_api.config import TestConfig

from .conftest import TABLET_LANDSCAPE
from .helpers import BLOCKING, axe_violations, poll, release_db, sign_in, small_text, undersized_controls, wait_synced

PAGE = 25       # records per pull page
LET_THROUGH = 3  # pull pages answered before the test holds the rest
PERMITS, RECORDS = 120, 480


@pytest.fixture
def config(_schema, tmp_path):
    return TestConfig(SQLALCHEMY_DATABASE_URI=_schema, STORAGE_URL=(tmp_path / "blobs").as_uri(),
                      SYNC_PULL_MAX_LIMIT=PAGE)


class HeldPulls:
    """Answers the first LET_THROUGH pull requests, then holds every later one until release()."""

    def __init__(self, context) -> None:
        self.context, self.answered, self.held, self.holding = context, 0, [], True
        self.pattern = re.compile(r"/api/v1/sync/pull(\?|$)")
        context.route(self.pattern, self._route)

    def _route(self, route) -> None:
        if self.holding and self.answered >= LET_THROUGH:
            self.held.append(route)
            return
        self.answered += 1
        route.continue_()

    def release(self) -> None:
        self.holding = False
        for route in self.held:
            route.continue_()
        self.held.clear()
        self.context.unroute(self.pattern, self._route)


def test_first_sync_shows_progress_and_the_app_is_usable_before_it_ends(app, live_server, new_context):
    county = seed_county(permits=PERMITS, records=RECORDS, batch=200)
    last_permit = county.permit_ids[-1]  # numbered in the feed after the first pages: not on the device yet
    release_db()

    context = new_context(TABLET_LANDSCAPE)
    pulls = HeldPulls(context)
    page = context.new_page()
    sign_in(page, live_server.url, county.supervisor_email)
    poll(page, f"() => {{ const p = document.querySelector('[data-test=progress]');"
               f" return Boolean(p && p.textContent.includes('{LET_THROUGH * PAGE} records received')); }}")
    progress = page.inner_text("[data-test=progress]")
    assert progress == f"First sync: {LET_THROUGH * PAGE} records received, more coming…"
    assert pulls.held, "the next page was asked for and is being held: the sync has not ended"
    assert page.locator("#syncbar button[aria-label='Syncing']").is_disabled()

    # Usable now: the Sites screen lists the permits that landed, says the list is still filling in,
    # and a listed site opens.
    page.evaluate("() => { location.hash = '#/sites'; }")
    page.locator("[data-test=first-sync-note]").wait_for()
    rows = page.locator("main a.row[data-permit]")
    rows.first.wait_for()
    listed = rows.count()
    assert 0 < listed < PERMITS
    heading = page.locator("main h2.section-title").first.text_content()
    assert heading == f"Permits ({listed})"  # the office's one list: a supervisor is assigned no site
    check_accessible(page, "/sites during the first sync")
    address = rows.first.locator(".title").evaluate("(e) => e.firstChild.textContent")
    rows.first.click()
    page.locator(f"main h1:has-text('{address}')").wait_for()
    assert page.locator("[data-test=office-links]").is_visible()

    # A site not yet on the device says it is on its way, not that it does not exist.
    page.evaluate(f"() => {{ location.hash = '#/site/{last_permit}'; }}")
    page.locator("[data-test=site-waiting]").wait_for()
    assert page.inner_text("main h1") == "Site not on this device yet"
    check_accessible(page, "/site/<not yet arrived> during the first sync")
    assert pulls.held and page.locator("[data-test=progress]").is_visible()

    # The rest arrives: the waiting site shows itself without the user doing anything, and the
    # sync ends with every record on the device.
    pulls.release()
    page.locator("main h1:has-text('County Road')").wait_for(timeout=30000)
    assert page.locator("[data-test=site-waiting]").count() == 0
    wait_synced(page)
    assert page.locator("[data-test=progress]").count() == 0
    page.evaluate("() => { location.hash = '#/sites'; }")
    page.locator(f"main h2.section-title:text-is('Permits ({PERMITS})')").wait_for()
    assert page.locator("[data-test=first-sync-note]").is_hidden()


def check_accessible(page, where: str) -> None:
    """The accessibility bar of test_accessibility.py for a state only a running first sync shows."""
    page.wait_for_timeout(250)
    problems = [f"axe {v['id']} ({v['impact']}) {v['nodes']}" for v in axe_violations(page) if v["impact"] in BLOCKING]
    problems += [f"small target {c}" for c in undersized_controls(page)]
    problems += [f"small text {t}" for t in small_text(page)]
    assert problems == [], f"{where}: {problems}"
