"""The location is asked for when a site or an inspection opens, not when the app loads: a prompt
before anyone has come to a site is refused by reflex, and the list of sites needs none."""
from __future__ import annotations

from .helpers import sign_in, wait_synced

GEO_PROBE = """
    window.__geoCalls = [];
    for (const name of ["watchPosition", "getCurrentPosition"]) {
      const real = navigator.geolocation[name].bind(navigator.geolocation);
      navigator.geolocation[name] = (...args) => { window.__geoCalls.push(name); return real(...args); };
    }
"""


def geo_calls(page) -> list[str]:
    return page.evaluate("() => window.__geoCalls")


def test_location_is_asked_for_when_a_site_opens_not_on_load(live_server, new_context, factory):
    from .seed import field_day
    people = field_day(factory)
    context = new_context()
    context.clear_permissions()  # a device that has not been asked yet: asking would prompt
    context.add_init_script(GEO_PROBE)
    page = context.new_page()
    sign_in(page, live_server.url, people.inspector_email)
    page.locator("h1:has-text('Sites')").wait_for()
    wait_synced(page)
    assert geo_calls(page) == []  # neither the sign-in screen nor the list of sites prompts

    page.goto(f"{live_server.url}/#/site/{people.site_id}")
    page.locator(f"h1:has-text('{people.site_address.split(',')[0]}')").wait_for()
    assert geo_calls(page) == ["watchPosition"]


def test_a_device_already_allowed_shows_distances_on_the_list(live_server, new_context, factory):
    from .seed import field_day
    people = field_day(factory)
    context = new_context()  # location allowed already: the list may use it without asking
    context.add_init_script(GEO_PROBE)
    page = context.new_page()
    page.goto(live_server.url + "/")
    page.wait_for_selector("html[data-ready=true]")
    assert geo_calls(page) == []  # the sign-in screen does not start the location
    sign_in(page, live_server.url, people.inspector_email)
    page.locator("[data-test=distance]").first.wait_for()
    assert geo_calls(page) == ["watchPosition"]
