"""The map in WebKit (Safari's engine, on the inspectors' iPads): the map screen loads the map library on
first use and draws each assigned site's point and limit of work, the due ones labelled in words, on a
plain background with a scale bar (no tiles configured); a tap on a site opens it, and the site's own
map draws it again."""
from __future__ import annotations

from tests.browser.test_maps import _sites

from .helpers import css, sign_in, wait, wait_synced


def test_map_screen_draws_sites_and_a_tap_opens_one_in_webkit(webkit, office_server, factory):
    ids = _sites(factory)
    driver = webkit().driver
    sign_in(driver, office_server.url, ids["inspector"])
    wait_synced(driver)
    driver.get(f"{office_server.url}/#/map")
    wait(driver, "return document.querySelectorAll('.leaflet-marker-pane .site-pin').length === 3", what="three sites on the map")
    drawn = driver.execute_script("return Array.from(document.querySelectorAll('.leaflet-marker-pane .site-pin'), (e) => e.dataset.permit)")
    assert sorted(drawn) == sorted([ids["overdue"], ids["due"], ids["quiet"]])
    assert driver.execute_script("return document.querySelectorAll('.leaflet-overlay-pane path.map-low').length") == 2
    labels = driver.execute_script("return Array.from(document.querySelectorAll('.site-pin .pin-due'), (e) => e.textContent)")
    assert sorted(labels) == ["Due", "Overdue"]
    assert driver.execute_script("return document.querySelector('.map-box').classList.contains('map-plain')"
                                 " && document.querySelectorAll('.leaflet-tile-pane img').length === 0")
    assert driver.execute_script("return document.querySelectorAll('.leaflet-control-scale-line').length") == 2

    pin = css(driver, f".site-pin[data-permit='{ids['overdue']}']")
    pin.click()
    wait(driver, "return document.querySelector('h1') && document.querySelector('h1').textContent.includes('40 Center Street')",
         what="the site opened from the map")
    assert driver.current_url.endswith(f"#/site/{ids['overdue']}")
    wait(driver, f"return document.querySelector(\"[data-test=site-map] .site-pin[data-permit='{ids['overdue']}']\") !== null",
         what="the site's own map")
    assert driver.execute_script("return document.querySelectorAll('[data-test=site-map] path.map-low').length") == 1
