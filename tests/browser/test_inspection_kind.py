"""A new inspection starts as the kind the site owes soonest (R-I1): the morning after a storm, a
storm-event inspection, not a routine one the inspector must remember to change; with nothing owed
sooner than the routine visit, routine."""
from __future__ import annotations

from datetime import timedelta

from inspect_api import clock
from inspect_api.extensions import db

from .api_seed import entry_authorization, storm_yesterday
from .conftest import TABLET_LANDSCAPE
from .helpers import release_db, sign_in, wait_synced
from .seed import SITE


def _active_site(factory, client):
    inspector, headers = factory.as_role("inspector")
    applicant = factory.user("applicant")
    site = factory.permit(applicant, status="active", disturbed_area_sqft=32000,
                          site={"address": "40 Center Street, Fairhaven, MA 02719", "location": SITE})
    site.work_commenced_on = clock.today() - timedelta(days=3)
    db.session.commit()
    factory.assign(site, inspector)
    entry_authorization(client, headers, site.id)
    db.session.commit()
    return inspector.email, site.id


def _started_kind(page, base_url, site_id) -> str:
    page.goto(f"{base_url}/#/site/{site_id}")
    page.get_by_role("button", name="Start inspection").click()
    kind = page.get_by_label("Kind")
    kind.wait_for()
    return kind.input_value()


def test_a_new_inspection_starts_as_the_storm_event_the_site_owes(live_server, new_context, factory, client, app):
    email, site_id = _active_site(factory, client)
    release_db()
    storm_yesterday(app, "0.60")
    page = new_context(TABLET_LANDSCAPE).new_page()
    sign_in(page, live_server.url, email)
    wait_synced(page)
    assert _started_kind(page, live_server.url, site_id) == "storm_event"
    assert page.get_by_label("Kind").locator("option:checked").inner_text() == "Storm event"


def test_a_new_inspection_starts_as_post_installation_when_that_is_owed_soonest(live_server, new_context, factory, client):
    # Three days after work commenced, with no storm: the post-installation inspection (owed five days after
    # the controls went in) comes before the routine one (fourteen days).
    email, site_id = _active_site(factory, client)
    release_db()
    page = new_context(TABLET_LANDSCAPE).new_page()
    sign_in(page, live_server.url, email)
    wait_synced(page)
    assert _started_kind(page, live_server.url, site_id) == "post_installation"
