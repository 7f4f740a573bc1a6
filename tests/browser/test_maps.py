"""The field app's maps (issue 25, part 1): the map screen of an inspector's assigned sites with the
day's due ones labelled, the device's position and its accuracy circle, a tap (or Enter) on a site
opening it, the site screen's map, the plain background and scale bar with no tiles configured; the
supervisor's map of every site; an applicant's map pick (pin dragged, moved with the arrow keys,
placed with a tap, kept in step with the typed coordinates; the limit of work drawn corner by corner,
with undo) saved and checked through the API; accessibility at phone and tablet size."""
from __future__ import annotations

import math
from datetime import timedelta

import pytest

from inspect_api import clock
from inspect_api.auth.models import User
from inspect_api.extensions import db

from .conftest import HERE, PHONE, TABLET_LANDSCAPE
from .helpers import (
    Network,
    assert_accessible,
    confirm,
    poll,
    release_db,
    sideways_scroll,
    sign_in,
    undersized_controls,
    wait_for_service_worker,
    wait_synced,
)
from .seed import LIMIT_OF_WORK, SITE
from .test_location_prompt import GEO_PROBE, geo_calls

# 7 Oxford Street: a rectangle whose point lies in its south-west corner, so its middle is open map.
OXFORD = {"lat": 41.6402, "lon": -70.8998}
OXFORD_LOW = {"type": "Polygon", "coordinates": [[
    [-70.8999, 41.6401], [-70.8985, 41.6401], [-70.8985, 41.6410], [-70.8999, 41.6410], [-70.8999, 41.6401]]]}


FORT = {"lat": 41.6325, "lon": -70.9012}


def metres(a, b) -> float:
    """Great-circle distance (haversine, mean Earth radius), as geo.js reckons it."""
    p1, p2 = math.radians(a["lat"]), math.radians(b["lat"])
    s = math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(math.radians(b["lon"] - a["lon"]) / 2) ** 2
    return 2 * 6371008.8 * math.asin(math.sqrt(s))


def _sites(factory):
    """Three sites assigned to the inspector: one overdue (active 20 days, never inspected, with its limit
    of work), one due today (approved: the pre-construction inspection before work starts), one owing
    nothing (under review, with a limit of work); and one site assigned to someone else."""
    inspector = factory.user("inspector", name="Ines Ortiz")
    other_inspector = factory.user("inspector", name="Omar Other")
    supervisor = factory.user("supervisor", name="Sam Reyes")
    applicant = factory.user("applicant", name="Alex Builder")
    overdue = factory.permit(applicant, status="active", disturbed_area_sqft=32000,
                             site={"address": "40 Center Street, Fairhaven, MA 02719", "location": SITE,
                                   "limit_of_work": LIMIT_OF_WORK})
    due = factory.permit(applicant, status="approved", disturbed_area_sqft=9000,
                         site={"address": "12 Fort Street, Fairhaven, MA 02719", "location": FORT})
    quiet = factory.permit(applicant, status="under_review", disturbed_area_sqft=26000,
                           site={"address": "7 Oxford Street, Fairhaven, MA 02719", "location": OXFORD,
                                 "limit_of_work": OXFORD_LOW})
    elsewhere = factory.permit(applicant, status="active", disturbed_area_sqft=9000,
                               site={"address": "9 Elm Avenue, Fairhaven, MA 02719", "location": {"lat": 41.6450, "lon": -70.8950}})
    for permit in (overdue, elsewhere):
        permit.work_commenced_on = clock.today() - timedelta(days=20)
    db.session.commit()
    for permit in (overdue, due, quiet):
        factory.assign(permit, inspector)
    factory.assign(elsewhere, other_inspector)
    ids = {"inspector": inspector.email, "supervisor": supervisor.email, "overdue": overdue.id, "due": due.id,
           "quiet": quiet.id, "elsewhere": elsewhere.id}
    release_db()
    return ids


def pins(page) -> list[str]:
    return page.eval_on_selector_all(".leaflet-marker-pane .site-pin", "(els) => els.map((e) => e.dataset.permit)")


def centre(box) -> tuple[float, float]:
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def test_inspector_map_due_sites_position_and_tap(live_server, new_context, factory, screenshot):
    ids = _sites(factory)
    context = new_context(TABLET_LANDSCAPE)
    context.clear_permissions()  # a device not asked yet: asking would prompt
    context.add_init_script(GEO_PROBE)
    # The device stands at the overdue site, with a 60 m accuracy radius.
    context.set_geolocation({"latitude": SITE["lat"], "longitude": SITE["lon"], "accuracy": 60})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    sign_in(page, live_server.url, ids["inspector"])
    wait_synced(page)
    assert geo_calls(page) == []  # nothing asks for the location before a map (or a site) is shown
    assert page.locator("link[data-map=leaflet]").count() == 0  # the map library loads with the first map
    context.grant_permissions(["geolocation"])  # the user allows it when the map asks

    page.click("#nav a[href='#/map']")
    page.locator("h1:has-text('Map')").wait_for()
    poll(page, "() => document.querySelectorAll('.leaflet-marker-pane .site-pin').length === 3")
    assert geo_calls(page) == ["watchPosition"]
    assert sorted(pins(page)) == sorted([ids["overdue"], ids["due"], ids["quiet"]])  # not the other inspector's site
    # Two limits of work, each an SVG path in the overlay pane.
    assert page.locator(".leaflet-overlay-pane path.map-low").count() == 2
    assert page.locator(".leaflet-overlay-pane path.map-low.due").count() == 1
    # The day's due sites carry words, not only a colour.
    def label(pid):
        return page.locator(f".site-pin[data-permit='{pid}']")

    assert label(ids["overdue"]).locator(".pin-due").inner_text() == "Overdue"
    assert label(ids["due"]).locator(".pin-due").inner_text() == "Due"
    assert label(ids["quiet"]).locator(".pin-due").count() == 0
    assert label(ids["overdue"]).get_attribute("aria-label") == "40 Center Street, Fairhaven, MA 02719, overdue"
    assert label(ids["due"]).get_attribute("aria-label") == "12 Fort Street, Fairhaven, MA 02719, due today"
    assert label(ids["quiet"]).get_attribute("role") == "button"

    # No tiles configured: a plain background, no tile image, and a scale bar in metres and feet.
    box = page.locator(".map-box")
    assert "map-plain" in box.get_attribute("class") and "map-tiled" not in box.get_attribute("class")
    assert box.get_attribute("role") == "region" and box.get_attribute("aria-label") == "Map of your assigned sites"
    assert page.locator(".leaflet-tile-pane img").count() == 0
    scale = page.locator(".leaflet-control-scale-line")
    assert scale.count() == 2
    assert scale.nth(0).inner_text().strip().endswith(("m", "km")) and scale.nth(1).inner_text().strip().endswith(("ft", "mi"))

    # The position: a dot at the device's fix (the overdue site's point) inside its accuracy circle.
    page.locator(".leaflet-overlay-pane path.map-accuracy").wait_for()
    dot = centre(page.locator("path.map-here").bounding_box())
    ring = page.locator("path.map-accuracy").bounding_box()
    site = centre(label(ids["overdue"]).bounding_box())
    assert abs(dot[0] - site[0]) <= 2 and abs(dot[1] - site[1]) <= 2, (dot, site)
    # Its radius is the fix's 60 m, at the map's scale (measured between two sites' points).
    fort = centre(label(ids["due"]).bounding_box())
    metres_per_px = metres(SITE, FORT) / math.dist(site, fort)
    assert abs(centre(ring)[0] - dot[0]) <= 2 and abs(ring["width"] * metres_per_px - 120) <= 4 * metres_per_px, ring

    # The sites in view, listed as links under the map: overdue first, then due, then the rest.
    rows = page.locator("[data-test=map-list] a.row")
    assert [rows.nth(i).get_attribute("data-permit") for i in range(rows.count())] == [ids["overdue"], ids["due"], ids["quiet"]]
    assert rows.nth(0).locator("[data-test=due]").inner_text() == "Overdue"
    assert rows.nth(1).locator("[data-test=due]").inner_text() == "Due today"

    screenshot(page, "inspector-map")

    # A tap on a site opens it; the site's own map shows its point, its limit of work and the position.
    label(ids["overdue"]).click()
    page.locator("h1:has-text('40 Center Street')").wait_for()
    assert page.url.endswith(f"#/site/{ids['overdue']}")
    site_map = page.locator("[data-test=site-map]")
    site_map.locator(f".site-pin[data-permit='{ids['overdue']}']").wait_for()
    assert site_map.locator("path.map-low").count() == 1
    site_map.locator("path.map-accuracy").wait_for()
    assert site_map.locator(".site-pin").get_attribute("role") == "img"  # the site itself: nothing to open

    # A tap on a limit of work opens its site too; so does Enter on a focused site.
    page.go_back()
    poll(page, "() => document.querySelectorAll('.leaflet-marker-pane .site-pin').length === 3")
    page.locator(".leaflet-overlay-pane path.map-low:not(.due)").click(position={"x": 30, "y": 12})
    page.locator("h1:has-text('7 Oxford Street')").wait_for()
    page.go_back()
    poll(page, "() => document.querySelectorAll('.leaflet-marker-pane .site-pin').length === 3")
    label(ids["due"]).focus()
    page.keyboard.press("Enter")
    page.locator("h1:has-text('12 Fort Street')").wait_for()
    assert errors == []


def test_supervisor_map_shows_every_site_on_the_device(live_server, new_context, factory):
    ids = _sites(factory)
    page = new_context(TABLET_LANDSCAPE).new_page()
    sign_in(page, live_server.url, ids["supervisor"])
    wait_synced(page)
    page.click("#nav a[href='#/map']")
    poll(page, "() => document.querySelectorAll('.leaflet-marker-pane .site-pin').length === 4")
    assert sorted(pins(page)) == sorted([ids["overdue"], ids["due"], ids["quiet"], ids["elsewhere"]])
    assert page.locator(".pin-due").count() == 0  # the office is assigned no site: nothing is "due" for it
    assert page.locator("[data-test=map-list] a.row").count() == 4
    # Zoomed in on one site, the list below holds only the sites in view.
    page.locator(f"[data-test=map-list] a.row[data-permit='{ids['elsewhere']}']").wait_for()
    for _ in range(4):
        page.locator(".leaflet-control-zoom-in").click()
    poll(page, "() => document.querySelectorAll('[data-test=map-list] a.row').length < 4")
    page.get_by_role("button", name="Show all sites").click()
    poll(page, "() => document.querySelectorAll('[data-test=map-list] a.row').length === 4")

    # Offline, the app reloaded from its service worker: the map library and the sites come from the device.
    wait_for_service_worker(page)
    network = Network(page.context, live_server.url)
    network.offline()
    page.reload()
    page.wait_for_selector("html[data-ready=true]")
    poll(page, "() => document.querySelectorAll('.leaflet-marker-pane .site-pin').length === 4")
    assert page.locator(".leaflet-overlay-pane path.map-low").count() == 2
    assert page.locator("[data-test=map-failed]").count() == 0


@pytest.mark.parametrize("size", ["phone", "tablet"])
def test_map_screen_is_accessible(live_server, new_context, factory, size):
    ids = _sites(factory)
    viewport = PHONE if size == "phone" else TABLET_LANDSCAPE
    page = new_context(viewport, has_touch=size == "phone", is_mobile=size == "phone").new_page()
    sign_in(page, live_server.url, ids["inspector"])
    wait_synced(page)
    page.goto(f"{live_server.url}/#/map")
    poll(page, "() => document.querySelectorAll('.leaflet-marker-pane .site-pin').length === 3")
    page.locator(".leaflet-overlay-pane path.map-accuracy").wait_for()
    assert_accessible(page, f"map screen ({size})")
    assert undersized_controls(page) == []
    assert sideways_scroll(page) == []
    zoom = page.locator(".leaflet-control-zoom-in").bounding_box()
    assert zoom["width"] >= 44 and zoom["height"] >= 44
    pin = page.locator(".site-pin").first.bounding_box()
    assert pin["width"] >= 44 and pin["height"] >= 44


# ---- the map pick ---------------------------------------------------------------------------------
ZOOM = 18  # the pick's zoom once it has a point (js/ui/map_pick.js)
WORLD = 256 * 2 ** ZOOM  # the world's width in pixels at that zoom (Web Mercator, as Leaflet draws it)


def to_pixel(lat: float, lon: float) -> tuple[float, float]:
    x = (lon + 180) / 360 * WORLD
    y = (0.5 - math.log(math.tan(math.pi / 4 + math.radians(lat) / 2)) / (2 * math.pi)) * WORLD
    return x, y


def to_point(x: float, y: float) -> tuple[float, float]:
    lon = x / WORLD * 360 - 180
    lat = math.degrees(2 * math.atan(math.exp(2 * math.pi * (0.5 - y / WORLD))) - math.pi / 2)
    return lat, lon


def offset(origin: tuple[float, float], dx: float, dy: float) -> tuple[float, float]:
    """The point dx, dy screen pixels from `origin` (lat, lon) at the pick's zoom."""
    x, y = to_pixel(*origin)
    return to_point(x + dx, y + dy)


# A pixel at that zoom, in degrees: where a point lands is known to the pixel (Leaflet rounds positions).
LON_PX = 360 / WORLD
LAT_PX = abs(offset((HERE["latitude"], HERE["longitude"]), 0, 1)[0] - HERE["latitude"])


def near(actual, expected, pixels: float = 1.2) -> bool:
    return abs(actual[0] - expected[0]) <= pixels * LAT_PX and abs(actual[1] - expected[1]) <= pixels * LON_PX


def test_applicant_picks_the_point_and_draws_the_limit_of_work(live_server, new_context, factory, client, screenshot):
    applicant = factory.user("applicant", name="Alex Builder")
    applicant_id, email = applicant.id, applicant.email
    release_db()
    page = new_context(TABLET_LANDSCAPE).new_page()
    sign_in(page, live_server.url, email)
    wait_synced(page)
    page.goto(f"{live_server.url}/#/apply")
    here = (HERE["latitude"], HERE["longitude"])
    lat_field, lon_field = page.get_by_label("Latitude"), page.get_by_label("Longitude")
    poll(page, "() => document.querySelector('input[name=lat]').value !== ''")  # the device's fix fills it
    pin = page.locator(".site-pin.pick")
    pin.wait_for()
    box = page.locator("[data-test=map-pick] .map-box")
    box.scroll_into_view_if_needed()
    page.wait_for_timeout(200)  # the view settles on the fix

    def field_point():
        return float(lat_field.input_value()), float(lon_field.input_value())

    def anchor():
        """The fix's pixel inside the map, measured from the pin while it stands there."""
        b, p = box.bounding_box(), centre(pin.bounding_box())
        return p[0] - b["x"], p[1] - b["y"]

    assert near(field_point(), here, 0.1)
    hx, hy = anchor()

    def at(dx, dy):
        """Screen coordinates of the pixel dx, dy from the fix's pixel (the map may have scrolled)."""
        b = box.bounding_box()
        return b["x"] + hx + dx, b["y"] + hy + dy

    # Dragged 60 px right and 40 px down: the typed fields follow the pin.
    page.mouse.move(*at(0, 0))
    page.mouse.down()
    page.mouse.move(*at(30, 20), steps=5)
    page.mouse.move(*at(60, 40), steps=5)
    page.mouse.up()
    poll(page, f"() => document.querySelector('input[name=lat]').value !== '{here[0]:.6f}'")
    assert near(field_point(), offset(here, 60, 40)), (field_point(), offset(here, 60, 40))

    # Moved with the keyboard: an arrow key moves the focused pin 10 px.
    pin.focus()
    page.keyboard.press("ArrowRight")
    assert near(field_point(), offset(here, 70, 40)), field_point()
    assert "arrow keys move it" in pin.get_attribute("aria-label")

    # Placed with a tap on the map.
    page.mouse.click(*at(-100, 0))
    poll(page, f"() => Math.abs(Number(document.querySelector('input[name=lat]').value) - {here[0]}) < 0.00001")
    assert near(field_point(), offset(here, -100, 0)), field_point()

    # Typed: the pin follows the fields (0.0001 degrees of longitude east of the fix).
    lon_field.fill(f"{here[1] + 0.0001:.6f}")
    lat_field.fill(f"{here[0]:.6f}")
    typed_x = centre(pin.bounding_box())[0] - box.bounding_box()["x"]
    assert abs(typed_x - (hx + 0.0001 / LON_PX)) <= 1.5, (typed_x, hx)

    # The limit of work, corner by corner: one corner undone and put elsewhere, then the shape closed.
    page.get_by_role("button", name="Draw the limit of work").click()
    box.scroll_into_view_if_needed()
    corners = [(-60, -50), (70, -50), (70, 50), (-60, 50)]
    for dx, dy in corners[:3]:
        page.mouse.click(*at(dx, dy))
    page.mouse.click(*at(0, 120))  # a wrong corner
    assert "(4 so far)" in page.locator("[data-test=pick-status]").inner_text()
    page.get_by_role("button", name="Undo last corner").click()
    box.scroll_into_view_if_needed()
    page.mouse.click(*at(*corners[3]))
    page.get_by_role("button", name="Close the shape").click()
    status = page.locator("[data-test=pick-status]").inner_text()
    assert status.startswith("Limit of work: 4 corners, about "), status
    metres_per_px = 156543.03392 * math.cos(math.radians(here[0])) / 2 ** ZOOM
    expected_sqft = 130 * 100 * metres_per_px ** 2 * 10.7639
    shown = float(status.split("about ")[1].split(" sq ft")[0].replace(",", ""))
    assert abs(shown - expected_sqft) / expected_sqft < 0.03, (shown, expected_sqft)
    assert page.locator(".leaflet-overlay-pane path.map-low").count() == 1
    screenshot(page, "applicant-map-pick", locator="[data-test=map-pick]")

    page.get_by_label("Address").fill("15 Washington Street, Fairhaven, MA 02719")
    page.get_by_label("Owner's name").fill("Jordan Silva")
    page.get_by_label("Land disturbed (sq ft)").fill("26000")
    page.get_by_label("Proposed use").fill("Two-family dwelling")
    page.get_by_role("button", name="Save application").click()
    page.locator("h1:has-text('15 Washington Street')").wait_for()
    wait_synced(page)

    headers = factory.headers(db.session.get(User, applicant_id))
    found = client.get("/api/v1/permits?q=Washington", headers=headers).get_json()
    release_db()
    found = found if isinstance(found, list) else found["items"]
    assert len(found) == 1
    site = found[0]["site"]
    assert (site["location"]["lat"], site["location"]["lon"]) == (round(here[0], 6), round(here[1] + 0.0001, 6))
    low = site["limit_of_work"]
    assert low["type"] == "Polygon" and len(low["coordinates"]) == 1
    ring = low["coordinates"][0]
    assert len(ring) == 5 and ring[0] == ring[-1]
    for (lon, lat), (dx, dy) in zip(ring[:4], corners):
        assert near((lat, lon), offset(here, dx, dy)), ((lat, lon), offset(here, dx, dy))

    # Opened again, the saved shape is on the map and can be removed; typed fields still hold the point.
    page.goto(f"{live_server.url}/#/apply/{found[0]['id']}")
    page.locator("[data-test=pick-status]:has-text('Limit of work: 4 corners')").wait_for()
    assert page.locator(".leaflet-overlay-pane path.map-low").count() == 1
    assert field_point() == (round(here[0], 6), round(here[1] + 0.0001, 6))


def pane_at(page) -> tuple[float, float]:
    """Where Leaflet's map pane stands (its translate): a keyboard pan has finished when it has moved."""
    return tuple(page.evaluate("() => { const m = new DOMMatrix(getComputedStyle("
                               "document.querySelector('.leaflet-map-pane')).transform); return [m.m41, m.m42]; }"))


def test_office_draws_a_case_limit_of_work_with_the_keyboard_alone(live_server, new_context, factory, client):
    """The office's new case: the point typed (the pin follows), the area disturbed drawn with the keyboard
    only (the map panned with the arrow keys, a corner added at the centre each time), stored through the
    API; the application detail shows the applied site's map."""
    supervisor, sup = factory.as_role("supervisor", name="Sam Reyes")
    applicant = factory.user("applicant", name="Alex Builder")
    applied = factory.permit(applicant, status="submitted", disturbed_area_sqft=26000,
                             site={"address": "7 Oxford Street, Fairhaven, MA 02719", "location": OXFORD,
                                   "limit_of_work": OXFORD_LOW})
    email, applied_id = supervisor.email, applied.id
    release_db()
    page = new_context(TABLET_LANDSCAPE).new_page()
    sign_in(page, live_server.url, email)
    wait_synced(page)

    page.goto(f"{live_server.url}/#/application/{applied_id}")
    card = page.locator("[data-test=application-map]")
    card.locator(f".site-pin[data-permit='{applied_id}']").wait_for()
    assert card.locator("path.map-low").count() == 1 and card.locator("path.map-accuracy").count() == 0
    assert "the limit of work applied for" in card.inner_text()

    page.goto(f"{live_server.url}/#/cases/new")
    form = page.locator("[data-test=new-case]")
    point = (41.6102, -70.8841)
    form.get_by_label("Latitude").fill(f"{point[0]}")
    form.get_by_label("Longitude").fill(f"{point[1]}")
    pin = form.locator(".site-pin.pick")
    pin.wait_for()
    assert f"{point[0]:.6f}, {point[1]:.6f}" in pin.get_attribute("aria-label")

    # Keyboard only: a corner at the centre, the map moved 80 px by an arrow key, the next corner, ...
    form.get_by_role("button", name="Draw the limit of work").focus()
    page.keyboard.press("Enter")
    add = form.get_by_role("button", name="Add a corner at the centre")
    add.focus()
    page.keyboard.press("Enter")
    moves = {"ArrowRight": (-80, 0), "ArrowDown": (0, -80), "ArrowLeft": (80, 0)}  # the pane moves against the view
    for key, (mx, my) in moves.items():
        x, y = pane_at(page)
        page.locator("[data-test=new-case] .map-box").focus()
        page.keyboard.press(key)
        poll(page, "() => { const m = new DOMMatrix(getComputedStyle(document.querySelector('.leaflet-map-pane')).transform);"
                   f" return m.m41 === {x + mx} && m.m42 === {y + my}; }}")
        add.focus()
        page.keyboard.press("Enter")
    assert "(4 so far)" in form.locator("[data-test=pick-status]").inner_text()
    form.get_by_role("button", name="Close the shape").focus()
    page.keyboard.press("Enter")
    form.locator("[data-test=pick-status]:has-text('Limit of work: 4 corners')").wait_for()

    form.get_by_label("Site address").fill("90 Sconticut Neck Road, Fairhaven, MA 02719")
    form.locator("[data-test=case-owner]").get_by_label("Name").fill("Pat Marsh")
    form.locator("[data-test=case-violator]").get_by_label("Name").fill("Lee Clearing Co.")
    assert_accessible(page, "new case with the map pick")
    form.get_by_role("button", name="Open the case").click()
    confirm(page, "naming Pat Marsh as owner")
    page.locator("h1:has-text('90 Sconticut Neck Road')").wait_for()
    case = client.get(f"/api/v1/permits/{page.url.rsplit('/', 1)[-1]}", headers=sup).get_json()
    release_db()
    assert case["site"]["location"] == {"lat": point[0], "lon": point[1]}
    ring = case["site"]["limit_of_work"]["coordinates"][0]
    assert len(ring) == 5 and ring[0] == ring[-1]
    for (lon, lat), (dx, dy) in zip(ring[:4], [(0, 0), (80, 0), (80, 80), (0, 80)]):
        assert near((lat, lon), offset(point, dx, dy)), ((lat, lon), offset(point, dx, dy))
