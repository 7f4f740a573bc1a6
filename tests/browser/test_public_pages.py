"""The public pages in Chromium (issue 26): a resident with no account finds a permit, reads it, sees
its site on the map, in English and in Portuguese, on a 320 px phone and a 1180 px screen, with
axe-core finding no serious or critical violation and nothing scrolling sideways; and reports a
problem with a photo through the HTML form with JavaScript off, landing on the reference page, the
report then in the office's queue. With JavaScript on, "Use my location" fills the point in."""
from __future__ import annotations

import re

import pytest

from inspect_api.extensions import db
from inspect_api.public.models import PublicReport, PublicReportPhoto

from .conftest import HERE, camera_jpeg
from .helpers import assert_accessible, release_db, sideways_scroll, small_text, undersized_controls

NARROW = {"width": 320, "height": 720}
WIDE = {"width": 1180, "height": 820}
REFERENCE = re.compile(r"R-\d{4}-\d{4}-[A-Z2-9]{4}")
WORDS = {
    "en": {"find": "Find a permit", "q": "Permit number or address", "search": "Search", "map": "Map of active sites",
           "status": "Permit issued", "report_here": "Report a problem at this site",
           "description": "What did you see?",
           "address": "Address or place", "photos": "Photos (up to 3, optional)", "email": "E-mail",
           "send": "Send the report", "thanks": "Thank you: your report was received", "locate": "Use my location",
           "no_place": "Give the address or a place nearby"},
    "pt": {"find": "Procurar uma licença", "q": "Número da licença ou morada", "search": "Procurar",
           "map": "Mapa das obras ativas", "status": "Licença emitida",
           "report_here": "Comunicar um problema nesta obra",
           "description": "O que viu?", "address": "Morada ou local", "photos": "Fotografias (até 3, opcional)",
           "email": "E-mail", "send": "Enviar a comunicação", "thanks": "Obrigado: a sua comunicação foi recebida",
           "locate": "Usar a minha localização", "no_place": "Indique a morada ou um local próximo"},
}


def choose(page, base_url: str, lang: str) -> None:
    """Open the search page (the browser says en-US) and, for Portuguese, take the language switch: the
    pages that follow stay in it (the cookie)."""
    page.goto(base_url + "/public/")
    if lang == "pt":
        page.get_by_role("navigation", name="Language").get_by_role("link", name="Português").click()
        page.wait_for_url("**/public/?lang=pt")
    assert page.locator("html").get_attribute("lang") == lang


def square(lat: float, lon: float, d: float = 0.0006) -> dict:
    ring = [[lon - d, lat - d], [lon + d, lat - d], [lon + d, lat + d], [lon - d, lat + d], [lon - d, lat - d]]
    return {"type": "Polygon", "coordinates": [ring]}


@pytest.fixture
def sites(factory):
    """An issued permit on Harbor View Road (an active site, with its limit of work), a second one
    nearby, and an application only received (public, but not on the map)."""
    made = {}
    for key, status, address, (dlat, dlon) in (("issued", "issued", "12 Harbor View Road", (0, 0)),
                                               ("active", "active", "3 Bridge Street", (0.004, -0.006)),
                                               ("received", "submitted", "40 Mill Road", (-0.003, 0.002))):
        lat, lon = HERE["latitude"] + dlat, HERE["longitude"] + dlon
        made[key] = factory.permit(status=status, site={
            "address": f"{address}, Fairhaven, MA 02719", "parcel_id": f"24-{len(made) + 100}",
            "location": {"lat": lat, "lon": lon}, "limit_of_work": square(lat, lon)},
            owner={"name": "Pat Privateowner", "email": "pat.private@example.org", "phone": "508-555-0100"})
    numbers = {key: permit.number for key, permit in made.items()}
    release_db()  # the live server writes next; SQLite's writer must not wait on this thread
    return numbers


def checked(page, where: str) -> None:
    assert_accessible(page, where)
    assert sideways_scroll(page) == [], f"{where}: the page scrolls sideways"
    assert undersized_controls(page) == [], where
    assert small_text(page) == [], where
    assert page.locator("h1").count() == 1, where
    assert "Privateowner" not in page.content() and "pat.private@example.org" not in page.content()


@pytest.mark.parametrize("viewport", [NARROW, WIDE], ids=["320px", "1180px"])
@pytest.mark.parametrize("lang", ["en", "pt"])
def test_a_resident_finds_a_permit_reads_it_and_finds_its_site_on_the_map(live_server, new_context, sites, viewport,
                                                                           lang):
    words = WORDS[lang]
    page = new_context(viewport).new_page()
    choose(page, live_server.url, lang)
    page.get_by_role("heading", level=1, name=words["find"]).wait_for()
    checked(page, f"search {lang} {viewport['width']}")
    # The skip link is the first stop of the keyboard and leads to the main content.
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.className") == "skip"
    page.keyboard.press("Enter")
    assert page.evaluate("() => document.activeElement.id") == "main"

    page.get_by_label(words["q"]).fill("harbor view")
    page.get_by_role("button", name=words["search"], exact=True).click()
    page.wait_for_url("**/public/?q=harbor+view**")
    results = page.locator("ol.results > li")
    assert results.count() == 1 and sites["issued"] in results.inner_text()
    checked(page, f"results {lang} {viewport['width']}")

    page.get_by_role("link", name=sites["issued"], exact=True).click()
    page.wait_for_url(f"**/public/permits/{sites['issued']}")
    assert words["status"] in page.locator("main").inner_text()
    assert page.locator("svg.sitemap path.limit").count() == 1
    report_here = page.get_by_role("link", name=words["report_here"]).get_attribute("href")
    assert report_here.startswith("/public/report?address=")
    checked(page, f"permit {lang} {viewport['width']}")

    page.get_by_role("navigation").get_by_role("link", name=words["map"]).click()
    page.wait_for_url("**/public/map")
    # With script, the interactive map takes the drawing's place (test_public_maps.py; without script,
    # the drawing: test_without_javascript_the_drawing_list_and_typed_place_still_work).
    links = page.locator(".leaflet-marker-pane a.live-site")
    links.first.wait_for()
    live = page.locator(".live-map")
    assert live.is_visible() and live.bounding_box()["width"] <= viewport["width"]
    assert not page.locator("svg.sitemap").is_visible()
    assert links.count() == 2  # the two active sites; the received application is not one
    assert sites["received"] not in page.content()
    checked(page, f"map {lang} {viewport['width']}")
    # Each site on the map is a link named by its permit; following it reads the permit.
    page.locator(f'.leaflet-marker-pane a.live-site[href="/public/permits/{sites["active"]}"]').click()
    page.wait_for_url(f"**/public/permits/{sites['active']}")
    assert sites["active"] in page.locator("h1").inner_text()


@pytest.mark.parametrize(("viewport", "lang"), [(NARROW, "pt"), (WIDE, "en")], ids=["320px-pt", "1180px-en"])
def test_a_resident_reports_with_a_photo_and_javascript_off(live_server, new_context, client, factory, sites,
                                                            viewport, lang, screenshot):
    words = WORDS[lang]
    page = new_context(viewport, java_script_enabled=False).new_page()
    choose(page, live_server.url, lang)
    page.goto(f"{live_server.url}/public/permits/{sites['issued']}")
    page.get_by_role("link", name=words["report_here"]).click()
    page.wait_for_url("**/public/report?address=**")
    assert page.get_by_label(words["address"]).input_value() == "12 Harbor View Road, Fairhaven, MA 02719"
    assert not page.get_by_role("button", name=words["locate"]).is_visible()  # no script, no button
    assert sideways_scroll(page) == []
    page.get_by_label(words["description"]).fill("Muddy water running from the site into the catch basin")
    page.get_by_label(words["photos"]).set_input_files(files=[{
        "name": "runoff.jpg", "mimeType": "image/jpeg", "buffer": camera_jpeg(HERE["latitude"], HERE["longitude"])}])
    page.get_by_label(words["email"]).fill("resident@example.org")
    if lang == "pt" and viewport["width"] <= 400:
        screenshot(page, f"public-report-{lang}", sizes=("phone",), locator="form")
    page.get_by_role("button", name=words["send"]).click()
    page.wait_for_url("**/public/reports/**?sent=1")
    assert page.locator("h1").inner_text() == words["thanks"]
    reference = page.locator("p.reference").inner_text()
    assert REFERENCE.fullmatch(reference) and reference in page.url
    assert sideways_scroll(page) == []

    # The office has it, with its photo, in the resident's language.
    db.session.expire_all()
    report = db.session.scalar(db.select(PublicReport).filter_by(reference=reference))
    assert (report.status, report.language, report.contact_email) == ("received", lang, "resident@example.org")
    assert report.address == "12 Harbor View Road, Fairhaven, MA 02719"
    photos = db.session.scalars(db.select(PublicReportPhoto).filter_by(report_id=report.id)).all()
    assert len(photos) == 1 and photos[0].exif_lat == pytest.approx(HERE["latitude"], abs=1e-3)
    _, sup = factory.as_role("supervisor")
    queue = client.get("/api/v1/public-reports", headers=sup)
    assert queue.status_code == 200
    assert [item["reference"] for item in queue.get_json()] == [reference]
    release_db()


def test_use_my_location_fills_the_point_and_a_missing_place_comes_back_accessibly(live_server, new_context, sites):
    words = WORDS["pt"]
    page = new_context(NARROW).new_page()
    choose(page, live_server.url, "pt")
    page.goto(live_server.url + "/public/report")
    checked(page, "report form pt 320")
    # Without a place, the server sends the form back with the error, what was typed kept.
    page.get_by_label(words["description"]).fill("Terra na rua")
    page.get_by_role("button", name=words["send"]).click()
    page.locator(".error-summary").wait_for()
    assert words["no_place"] in page.locator(".error-summary").inner_text()
    assert page.get_by_label(words["description"]).input_value() == "Terra na rua"
    assert page.get_by_label(words["address"]).get_attribute("aria-invalid") == "true"
    checked(page, "report form with an error pt 320")
    # The phone's position fills latitude and longitude (the context's geolocation is the town hall).
    page.get_by_role("button", name=words["locate"]).click()
    page.locator("[data-locate-status]").filter(has_text="Localização preenchida").wait_for()
    assert float(page.get_by_label("Latitude").input_value()) == pytest.approx(HERE["latitude"], abs=1e-5)
    assert float(page.get_by_label("Longitude").input_value()) == pytest.approx(HERE["longitude"], abs=1e-5)
    page.get_by_role("button", name=words["send"]).click()
    page.wait_for_url("**/public/reports/**?sent=1")
    checked(page, "report sent pt 320")
    reference = page.locator("p.reference").inner_text()
    db.session.expire_all()
    report = db.session.scalar(db.select(PublicReport).filter_by(reference=reference))
    assert (report.lat, report.lon, report.accuracy_m) == (pytest.approx(HERE["latitude"]),
                                                           pytest.approx(HERE["longitude"]), HERE["accuracy"])
    release_db()
