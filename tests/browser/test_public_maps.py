"""The public pages' interactive maps in Chromium (issue 26, README "The public"): where JavaScript
runs, the map of active sites draws each active site (its point a link to its permit, its limit of
work an outline that opens it too) and never a draft or withdrawn one; the report form has a map on
which a resident puts the place, by a tap, by the keyboard or from their phone, and the report stored
has that point. Without JavaScript the drawing, the list and the typed place work as before. Tiles
come only from a configured server, whose origin the pages' policy then names; the office's report
screen draws the report's point with the permits near it, and a tap on one chooses it for the link."""
from __future__ import annotations

import re

import pytest

from .api_seed import resident_report
from .conftest import HERE, TABLET_LANDSCAPE
from .helpers import (assert_accessible, confirm, poll, release_db, sideways_scroll, sign_in, small_text,
                      undersized_controls, wait_synced)
from .seed import SITE, office_and_active_site
from .test_public_pages import NARROW, WIDE, choose, square
from .tiles_server import TileServer

LIVE_SITES = ".leaflet-marker-pane a.live-site"
LIMITS = ".leaflet-overlay-pane path.live-limit"
REFERENCES = ".leaflet-overlay-pane path.live-ref"
PIN = ".leaflet-marker-pane .pick-marker"
M_PER_PX_Z17 = 156_543.03392 * 0.74725 / 2 ** 17  # Web Mercator at the town hall's latitude, zoom 17


@pytest.fixture
def places(factory):
    """Two active sites (an issued permit and one under way) with their limits of work, and three
    records the public map must never draw: an application only received, a draft and a withdrawn
    application, each with a site point among them."""
    made = {}
    for key, status, address, (dlat, dlon) in (
            ("issued", "issued", "12 Harbor View Road", (0, 0)), ("active", "active", "3 Bridge Street", (0.004, -0.006)),
            ("received", "submitted", "40 Mill Road", (-0.003, 0.002)),
            ("draft", "draft", "5 Draft Lane", (0.002, 0.003)), ("withdrawn", "withdrawn", "9 Gone Street", (-0.002, -0.003))):
        lat, lon = HERE["latitude"] + dlat, HERE["longitude"] + dlon
        permit = factory.permit(status=status, site={"address": f"{address}, Fairhaven, MA 02719", "location": {"lat": lat, "lon": lon},
                                                     "limit_of_work": square(lat, lon)})
        made[key] = {"number": permit.number, "lat": lat, "lon": lon, "address": permit.site_address}
    release_db()
    return made


def phone_checked(page, where: str) -> None:
    assert_accessible(page, where)
    assert sideways_scroll(page) == [], where
    assert undersized_controls(page) == [], where
    assert small_text(page) == [], where


def _policy(response) -> str:
    return response.headers["content-security-policy"]


@pytest.mark.parametrize(("viewport", "lang"), [(NARROW, "pt"), (WIDE, "en")], ids=["320px-pt", "1180px-en"])
def test_the_map_of_active_sites_draws_each_and_opens_its_permit(live_server, new_context, places, viewport, lang):
    page = new_context(viewport).new_page()
    choose(page, live_server.url, lang)
    response = page.goto(live_server.url + "/public/map")
    # No tiles configured: the policy names no other origin, and no tile is asked for.
    assert "img-src 'self' data:;" in _policy(response)
    page.locator(LIVE_SITES).first.wait_for()
    sites = page.locator(LIVE_SITES)
    active = {places["issued"]["number"], places["active"]["number"]}
    assert sites.count() == 2 and page.locator(LIMITS).count() == 2
    hrefs = {sites.nth(i).get_attribute("href") for i in range(2)}
    assert hrefs == {f"/public/permits/{n}" for n in active}
    for hidden in ("received", "draft", "withdrawn"):  # the public lookup's rules: never on the map
        number = places[hidden]["number"]
        assert not number or f"/public/permits/{number}" not in page.content()
    # Each point is named like the drawing's link, and numbered as in the list below the map.
    first = page.locator(f'{LIVE_SITES}[href="/public/permits/{places["issued"]["number"]}"]')
    permit_word = {"en": "Permit", "pt": "Licença"}[lang]
    n = page.locator("ol.sites > li h3").all_inner_texts().index(places["issued"]["number"]) + 1
    assert first.locator(".live-n").inner_text() == str(n)
    assert first.get_attribute("aria-label").startswith(f"{n}. {permit_word} {places['issued']['number']}, 12 Harbor View Road")
    # The drawing gives way to the map; the list stays; the map has its scale bar and zoom named in the page's language.
    assert not page.locator("svg.sitemap").is_visible()
    assert page.locator("ol.sites > li").count() == 2
    assert re.fullmatch(r"\d+ (m|km)", page.locator(".leaflet-control-scale-line").first.inner_text())
    zoom_in = {"en": "Zoom in", "pt": "Aproximar"}[lang]
    assert page.get_by_role("button", name=zoom_in).is_visible()
    assert page.get_by_role("region", name={"en": "Interactive map of active sites",
                                            "pt": "Mapa interativo das obras ativas"}[lang]).is_visible()
    assert page.locator("img.leaflet-tile").count() == 0
    if viewport is NARROW:
        phone_checked(page, f"map {lang} 320")

    # A tap on a site's point opens its permit.
    page.locator(f'{LIVE_SITES}[href="/public/permits/{places["active"]["number"]}"]').click()
    page.wait_for_url(f"**/public/permits/{places['active']['number']}")
    # A tap on a site's outline opens it too (the outline sits under its point: the event goes to it).
    page.go_back()
    page.locator(LIMITS).first.wait_for()
    numbers = sorted(active)  # the sites are drawn in the list's order, by number
    page.locator(LIMITS).nth(1).dispatch_event("click")
    page.wait_for_url(f"**/public/permits/{numbers[1]}")
    # And with the keyboard: the point's link takes the focus, Enter follows it.
    page.go_back()
    link = page.locator(f'{LIVE_SITES}[href="/public/permits/{numbers[0]}"]')
    link.focus()
    assert page.evaluate("() => document.activeElement.getAttribute('href')") == f"/public/permits/{numbers[0]}"
    page.keyboard.press("Enter")
    page.wait_for_url(f"**/public/permits/{numbers[0]}")


def test_without_javascript_the_drawing_list_and_typed_place_still_work(live_server, new_context, places, client, factory):
    page = new_context(NARROW, java_script_enabled=False).new_page()
    choose(page, live_server.url, "en")
    page.goto(live_server.url + "/public/map")
    assert page.locator("svg.sitemap").is_visible() and page.locator("svg.sitemap a").count() == 2
    assert not page.locator(".live-map").is_visible()
    assert page.locator("[data-drawn-only]").is_visible() and not page.locator("[data-live-only]").is_visible()
    assert page.locator("ol.sites > li").count() == 2
    page.locator(f'svg.sitemap a[href="/public/permits/{places["active"]["number"]}"]').click()
    page.wait_for_url(f"**/public/permits/{places['active']['number']}")

    page.goto(live_server.url + "/public/report")
    assert not page.locator("[data-pick]").is_visible() and not page.locator("[data-locate]").is_visible()
    page.get_by_label("What did you see?").fill("Silt fence down along the brook")
    page.get_by_label("Latitude").fill("41.640100")
    page.get_by_label("Longitude").fill("-70.905200")
    page.get_by_role("button", name="Send the report").click()
    page.wait_for_url("**/public/reports/**?sent=1")
    reference = page.locator("p.reference").inner_text()
    _, sup = factory.as_role("supervisor")
    stored = next(r for r in client.get("/api/v1/public-reports", headers=sup).get_json() if r["reference"] == reference)
    release_db()
    assert stored["location"] == {"lat": 41.6401, "lon": -70.9052, "accuracy_m": None}


def test_a_resident_puts_the_place_on_the_form_map_in_portuguese(live_server, new_context, places, client, factory):
    page = new_context(NARROW).new_page()
    choose(page, live_server.url, "pt")
    page.goto(live_server.url + "/public/report")
    pick = page.get_by_role("region", name="Mapa para marcar o local da sua comunicação")
    pick.wait_for()
    page.locator(REFERENCES).nth(1).wait_for()
    # The map's controls speak Portuguese.
    assert pick.get_by_role("button", name="Aproximar").is_visible() and pick.get_by_role("button", name="Afastar").is_visible()
    assert page.get_by_role("button", name="Pôr o marcador no centro do mapa").is_visible()
    assert page.locator(".pick .label").inner_text() == "Ou marque o local no mapa"
    phone_checked(page, "report form with its map pt 320")
    lat, lon, accuracy = page.locator("#lat"), page.locator("#lon"), page.locator("#accuracy_m")

    # A tap on an active site (drawn for reference, in the list's order) puts the pin there.
    second = places[max(("issued", "active"), key=lambda k: places[k]["number"])]
    pick.scroll_into_view_if_needed()
    box = page.locator(REFERENCES).nth(1).bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.locator(PIN).wait_for()
    assert float(lat.input_value()) == pytest.approx(second["lat"], abs=1e-4)
    assert float(lon.input_value()) == pytest.approx(second["lon"], abs=1e-4)
    assert "Marcador posto no mapa" in page.locator("[data-pick-status]").inner_text()

    # "Use my location" fills the point from the phone and the map centres on it, the pin with it.
    page.get_by_role("button", name="Usar a minha localização").click()
    page.locator("[data-locate-status]").filter(has_text="Localização preenchida").wait_for()
    assert (float(lat.input_value()), float(lon.input_value())) == (pytest.approx(HERE["latitude"]), pytest.approx(HERE["longitude"]))
    assert accuracy.input_value() == str(HERE["accuracy"])
    pin = page.locator(PIN)
    pick.scroll_into_view_if_needed()
    assert f"{HERE['latitude']:.6f}, {HERE['longitude']:.6f}" in pin.get_attribute("aria-label")
    # (once the zoom's animation is over: the pin at the map's centre)
    poll(page, """() => { const m = document.querySelector('[data-pick-map]').getBoundingClientRect();
        const p = document.querySelector('.pick-marker').getBoundingClientRect();
        return Math.abs(p.x + p.width / 2 - (m.x + m.width / 2)) <= 2 && Math.abs(p.y + p.height / 2 - (m.y + m.height / 2)) <= 2; }""")
    at = pin.bounding_box()
    centre = (at["x"] + at["width"] / 2, at["y"] + at["height"] / 2)

    # A tap 60 px east and 40 px north of it moves the pin there (zoom 17: about 54 m and 36 m), and the
    # phone's accuracy, which was of the other point, goes.
    page.mouse.click(centre[0] + 60, centre[1] - 40)
    page.locator("[data-pick-status]").filter(has_text=f"{float(lat.input_value()):.6f}").wait_for()
    east = (float(lon.input_value()) - HERE["longitude"]) * 111_320 * 0.74725
    north = (float(lat.input_value()) - HERE["latitude"]) * 111_320
    assert east == pytest.approx(60 * M_PER_PX_Z17, rel=0.1) and north == pytest.approx(40 * M_PER_PX_Z17, rel=0.1)
    assert accuracy.input_value() == ""

    # With the keyboard: the pin takes the focus, an arrow key moves it west by 10 px.
    before = (float(lat.input_value()), float(lon.input_value()))
    pin.focus()
    page.keyboard.press("ArrowLeft")
    # (to the half pixel Leaflet rounds a point on the screen to: about 0.45 m, 6e-6 degrees)
    assert float(lon.input_value()) == pytest.approx(before[1] - 10 * M_PER_PX_Z17 / (111_320 * 0.74725), abs=8e-6)
    assert float(lat.input_value()) == pytest.approx(before[0], abs=6e-6)
    picked = (float(lat.input_value()), float(lon.input_value()))

    page.get_by_label("O que viu? (obrigatório)").fill("Terra na sarjeta junto à obra")
    page.get_by_role("button", name="Enviar a comunicação").click()
    page.wait_for_url("**/public/reports/**?sent=1")
    reference = page.locator("p.reference").inner_text()
    _, sup = factory.as_role("supervisor")
    stored = next(r for r in client.get("/api/v1/public-reports", headers=sup).get_json() if r["reference"] == reference)
    release_db()
    assert (stored["location"]["lat"], stored["location"]["lon"]) == (pytest.approx(picked[0], abs=1e-6),
                                                                      pytest.approx(picked[1], abs=1e-6))
    assert stored["location"]["accuracy_m"] is None and stored["language"] == "pt"


def test_tiles_come_only_from_the_configured_server_which_the_policy_names(app, live_server, new_context, places):
    with TileServer() as tiles:
        app.config.update(MAP_TILE_URL=tiles.url, MAP_TILE_ATTRIBUTION="Tiles: Test Town GIS")
        page = new_context(WIDE).new_page()
        response = page.goto(live_server.url + "/public/map")
        assert f"img-src 'self' data: {tiles.origin};" in _policy(response)
        assert f"connect-src 'self';" in _policy(response)  # images only
        page.locator("img.leaflet-tile-loaded").first.wait_for()
        assert tiles.tiles_served > 0
        assert page.locator(".leaflet-control-attribution").inner_text() == "Tiles: Test Town GIS"
        assert page.locator(LIVE_SITES).count() == 2
        form = page.goto(live_server.url + "/public/report")
        assert tiles.origin in _policy(form)
        page.locator(".pick-map img.leaflet-tile-loaded").first.wait_for()

        page.close()  # its tiles may still be on their way; the page without a tile server is judged by its own requests
        app.config.update(MAP_TILE_URL=None, MAP_TILE_ATTRIBUTION=None)
        plain = new_context(WIDE).new_page()
        asked = []
        plain.on("request", lambda r: asked.append(r.url))
        response = plain.goto(live_server.url + "/public/map")
        assert "img-src 'self' data:;" in _policy(response) and "127.0.0.1" not in _policy(response)
        plain.locator(LIVE_SITES).first.wait_for()
        assert plain.locator("img.leaflet-tile").count() == 0 and plain.locator(".leaflet-control-attribution").count() == 0
        plain.wait_for_load_state("networkidle")
        assert asked and [url for url in asked if url.startswith(tiles.origin)] == []


def test_the_office_report_map_shows_the_point_and_nearby_permits_and_a_tap_chooses_one(live_server, new_context,
                                                                                           factory, client):
    office = office_and_active_site(factory)
    sup = office.supervisor_headers
    other = factory.permit(status="issued", site={"address": "2 Oxford Street, Fairhaven, MA 02719",
                                                  "location": {"lat": SITE["lat"] + 0.0009, "lon": SITE["lon"] + 0.0004},
                                                  "limit_of_work": square(SITE["lat"] + 0.0009, SITE["lon"] + 0.0004, 0.0002)})
    other_id, other_number = other.id, other.number
    reference = resident_report(client, "Soil washing down Oxford Street from the lot.", lat=SITE["lat"] + 0.0002,
                                lon=SITE["lon"] + 0.0002, accuracy_m=12)
    report = next(r for r in client.get("/api/v1/public-reports", headers=sup).get_json() if r["reference"] == reference)
    release_db()

    page = new_context(TABLET_LANDSCAPE).new_page()
    sign_in(page, live_server.url, office.supervisor_email)
    wait_synced(page)
    # The queue shows its new reports on a small map too; a tap on one opens it.
    page.click("#nav a[href='#/public-reports']")
    queued = page.locator("[data-test=reports-map] .leaflet-marker-pane [data-permit]")
    queued.first.wait_for()
    assert queued.count() == 1 and queued.get_attribute("data-permit") == report["id"]
    assert queued.get_attribute("aria-label").startswith(reference)
    assert_accessible(page, "reports from the public with their map")
    queued.click()
    page.wait_for_url(f"**/#/public-reports/{report['id']}")
    card = page.locator("[data-test=report-map]")
    card.locator(".leaflet-marker-pane [data-permit]").nth(1).wait_for()
    # The report's point (and its phone's accuracy), and both permits near it with the limit drawn.
    assert card.locator("path.map-report").count() == 1 and card.locator("path.map-accuracy.report").count() == 1
    pins = card.locator(".leaflet-marker-pane [data-permit]")
    assert {pins.nth(i).get_attribute("data-permit") for i in range(2)} == {office.site_id, other_id}
    assert card.locator("path.map-low").count() == 1
    assert card.get_by_role("button", name=re.compile(f"^Choose {other_number}, 2 Oxford Street")).is_visible()
    assert_accessible(page, "a report from the public with its map")

    triage = page.locator("[data-test=triage]")
    assert triage.get_by_label("Permit or case").input_value() == office.site_id  # the nearest, first
    card.locator(f'.leaflet-marker-pane [data-permit="{other_id}"]').click()
    assert triage.get_by_label("Permit or case").input_value() == other_id
    assert page.evaluate("() => document.activeElement.name") == "permit"
    triage.get_by_label("Answer to the resident").fill("Thank you. An inspector will visit the Oxford Street site.")
    triage.get_by_role("button", name="Triage the report").click()
    confirm(page, "a complaint inspection becomes due there")
    page.locator("[data-test=answered]").wait_for()
    stored = client.get(f"/api/v1/public-reports/{report['id']}", headers=sup).get_json()
    release_db()
    assert stored["status"] == "linked" and stored["permit"]["id"] == other_id
