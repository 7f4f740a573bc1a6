"""The data the public pages' interactive maps are given (README "The public"): the sites as the
public lookup has them and nothing more, the map library's address (the field app's copy), the base
map's tiles only when configured, and the policy naming the tile server's origin for images then and
only then. The maps themselves are driven in Chromium (tests/browser/test_public_maps.py)."""
from __future__ import annotations

import html
import json
import re

import pytest

from ..town_clock import TownClock
from .test_pages_support import World, assert_page

TILES = "https://tiles.example.org/base/{z}/{x}/{y}.png"


@pytest.fixture
def world(client, factory, monkeypatch):
    TownClock(monkeypatch)
    return World(client, factory)


def attribute(body: str, element: str, name: str):
    """A JSON data- attribute of the first element carrying `element` (single-quoted, as tojson wants)."""
    tag = re.search(rf"<div [^>]*{element}[^>]*>", body, re.S).group(0)
    return json.loads(html.unescape(re.search(rf"{name}='([^']*)'", tag).group(1)))


def test_the_map_page_gives_its_script_the_active_sites_and_no_tiles_by_default(client, world):
    r = client.get("/public/map")
    body = assert_page(r, "en")
    policy = r.headers["Content-Security-Policy"]
    assert "img-src 'self' data:;" in policy and "tiles.example.org" not in policy
    sites = attribute(body, "data-live-map", "data-sites")
    number = world.issued.number
    assert sites == [{"n": 1, "number": number, "href": f"/public/permits/{number}",
                      "label": f"Permit {number}, 12 Harbor View Road, Fairhaven, MA 02719: Permit issued",
                      "lat": world.issued.site_lat, "lon": world.issued.site_lon, "limit": world.issued.limit_of_work}]
    assert attribute(body, "data-live-map", "data-tiles") is None
    assert 'data-leaflet="/static/pwa/vendor/leaflet/leaflet-src.esm.js"' in body
    assert 'data-leaflet-css="/static/pwa/vendor/leaflet/leaflet.css"' in body
    assert client.get("/static/pwa/vendor/leaflet/leaflet-src.esm.js").status_code == 200
    # The drawing and its bar length stay in the page for readers without script.
    assert '<svg class="sitemap"' in body and "<span data-drawn-only>North is up" in body
    assert '<div class="live-map" hidden data-live-map' in body
    for hidden in (world.submitted, world.withdrawn, world.draft):
        assert not hidden.number or hidden.number not in body


def test_with_tiles_the_policy_names_their_origin_for_images_only_and_the_maps_get_them(app, client, world):
    app.config.update(MAP_TILE_URL=TILES, MAP_TILE_ATTRIBUTION="Base map: Town GIS <office> & partners",
                      MAP_TILE_MAX_ZOOM=18)
    r = client.get("/public/map?lang=pt")
    body = assert_page(r, "pt")
    policy = r.headers["Content-Security-Policy"]
    assert "img-src 'self' data: https://tiles.example.org;" in policy
    assert "connect-src 'self';" in policy and policy.count("tiles.example.org") == 1
    assert attribute(body, "data-live-map", "data-tiles") == {
        "url": TILES, "attribution": "Base map: Town GIS <office> & partners", "min_zoom": 0, "max_zoom": 18}
    assert "<office>" not in body  # the attribution is data in an attribute, escaped
    assert 'data-zoom-in="Aproximar" data-zoom-out="Afastar"' in body
    form = client.get("/public/report")
    assert "https://tiles.example.org" in form.headers["Content-Security-Policy"]
    assert attribute(form.get_data(as_text=True), "data-pick-map", "data-tiles")["url"] == TILES
    css = client.get("/public/static/public.css")
    assert "img-src 'self' data: https://tiles.example.org;" in css.headers["Content-Security-Policy"]


def test_the_report_form_gives_its_map_the_sites_and_its_words(client, world):
    body = assert_page(client.get("/public/report?lang=pt"), "pt")
    assert '<div class="pick" hidden data-pick>' in body
    sites = attribute(body, "data-pick-map", "data-sites")
    assert [s["number"] for s in sites] == [world.issued.number]
    assert 'data-pin="O local da sua comunicação, em {lat}, {lon}. As teclas de seta movem-no."' in body
    assert 'data-placed="Marcador posto no mapa na latitude {lat}, longitude {lon}."' in body
    assert '<script type="module" src="/public/static/pick.js"></script>' in body
    for name in ("pick.js", "sites_map.js", "livemap.js"):
        script = client.get(f"/public/static/{name}")
        assert script.status_code == 200 and script.headers["Content-Type"].startswith("text/javascript")
        assert "innerHTML" not in script.get_data(as_text=True)
