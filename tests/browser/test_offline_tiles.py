"""Base map tiles kept for offline days (issue 25, part 1, the tiles): with MAP_TILE_URL pointing at a
tile server the test starts, the Account screen estimates the download for the inspector's assigned
sites, asks, keeps the tiles; with the tile server stopped and the device offline the maps still draw
their tiles from the kept ones (finer zooms cut from the coarser tiles kept). A small budget stops the
download before it goes over; removing the maps and signing out delete them."""
from __future__ import annotations

import math
import re

import pytest

from .conftest import TABLET_LANDSCAPE
from .helpers import (Network, assert_accessible, confirm, poll, sideways_scroll, sign_in, undersized_controls,
                      wait_for_service_worker, wait_synced)
from .seed import SITE, field_day
from .tiles_server import TileServer

FORT_STREET = {"lat": 41.6325, "lon": -70.9012}  # field_day's second assigned site
TILE_PATH = re.compile(r"/tiles/(\d+)/(\d+)/(\d+)\.png$")
KEPT = """async () => {
  if (!(await caches.has('map-tiles'))) return null;
  const cache = await caches.open('map-tiles');
  const urls = [];
  let bytes = 0;
  for (const request of await cache.keys()) {
    if (new URL(request.url).pathname === '/map-tiles/template') continue;
    urls.push(request.url);
    bytes += (await (await cache.match(request)).blob()).size;
  }
  return { urls, bytes };
}"""
KEPT_RECORD = """() => new Promise((resolve, reject) => {
  const open = indexedDB.open('inspect-field');
  open.onsuccess = () => {
    const req = open.result.transaction('meta').objectStore('meta').get('offline_tiles');
    req.onsuccess = () => resolve(req.result || null);
    req.onerror = () => reject(req.error);
  };
  open.onerror = () => reject(open.error);
})"""
# Every tile image of a map: its address, whether it finished and with what width.
DRAWN = """(els) => els.map((e) => ({ src: e.src, done: e.complete, width: e.naturalWidth,
  loaded: e.classList.contains('leaflet-tile-loaded') }))"""


# The colour at (250, 250) of a tile image the map shows: away from the address the server writes.
PIXEL = """(src) => {
  const img = [...document.querySelectorAll('.leaflet-tile-pane img')].find((e) => e.src === src);
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = 256;
  const g = canvas.getContext('2d');
  g.drawImage(img, 0, 0);
  return [...g.getImageData(250, 250, 1, 1).data.slice(0, 3)];
}"""


def colour(tile: tuple[int, int, int]) -> list[int]:
    """The plain colour the test tile server paints tile (z, x, y)."""
    z, x, y = tile
    return [(x * 37) % 200 + 40, (y * 53) % 200 + 40, (z * 71) % 200 + 40]


def tile_of(point: dict, z: int) -> tuple[int, int, int]:
    n = 2 ** z
    lat = math.radians(point["lat"])
    return z, int((point["lon"] + 180) / 360 * n), int((1 - math.asinh(math.tan(lat)) / math.pi) / 2 * n)


def tile_key(url: str) -> tuple[int, int, int]:
    return tuple(int(v) for v in TILE_PATH.search(url).groups())


def covered(tile: tuple[int, int, int], kept: set) -> bool:
    """The tile, or a coarser one holding it (up to four levels), is kept."""
    z, x, y = tile
    return any((z - up, x >> up, y >> up) in kept for up in range(5))


@pytest.fixture
def tile_server():
    with TileServer() as server:
        yield server


def configure(app, server: TileServer, **more) -> None:
    app.config.update(MAP_TILE_URL=server.url, MAP_TILE_ATTRIBUTION="Test tiles <b>bold</b> & co", **more)


def open_account(page, base: str):
    """The Account screen drawn afresh (it reads the map settings as it opens)."""
    if page.url.endswith("#/account"):
        page.reload()
    else:
        page.goto(f"{base}/#/account")
    card = page.locator("[data-test=offline-maps]")
    card.locator("[data-test=tiles-kept]").wait_for()
    return card


def wait_tiles_settled(page, scope: str) -> list[dict]:
    """Until the map shows tile images and every one has finished loading or failing."""
    script = f"""() => {{
      const imgs = [...document.querySelectorAll('{scope} .leaflet-tile-pane img')];
      return imgs.length > 0 && imgs.every((e) => e.complete);
    }}"""
    poll(page, script, timeout=30)
    return page.eval_on_selector_all(f"{scope} .leaflet-tile-pane img", DRAWN)


def test_offline_maps_kept_then_drawn_with_the_tile_server_stopped(app, live_server, new_context, factory, tile_server):
    people = field_day(factory)
    configure(app, tile_server, MAP_TILE_OFFLINE_BUDGET_MB="20")
    context = new_context(TABLET_LANDSCAPE)
    context.set_geolocation({"latitude": SITE["lat"], "longitude": SITE["lon"], "accuracy": 20})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    sign_in(page, live_server.url, people.inspector_email)
    wait_for_service_worker(page)
    wait_synced(page)

    # The policy lets the app reach the tile server, and only it (no violation is logged: new_context).
    policy = {d.strip().split(" ", 1)[0]: d.strip() for d in page.request.get(live_server.url + "/").headers[
        "content-security-policy"].split(";")}
    assert policy["img-src"] == f"img-src 'self' blob: data: {tile_server.origin}"
    assert policy["connect-src"] == f"connect-src 'self' {tile_server.origin}"
    assert tile_server.tiles_served == 0  # nothing is fetched before the inspector asks

    card = open_account(page, live_server.url)
    assert card.locator("[data-test=tiles-kept]").inner_text() == "No map tiles are kept on this device."
    assert "zoom levels 14–17" in card.inner_text() and "up to 20.0 MB" in card.inner_text()
    card.locator("[data-test=tiles-plan]").click()
    estimate = card.locator("[data-test=tiles-estimate]").inner_text()
    found = re.fullmatch(r"About (\d+) tiles, about ([\d.]+) MB \(at 25 kB a tile\), for 2 sites at zoom levels 14–17\. "
                         r"The budget is 20\.0 MB\.", estimate)
    assert found, estimate
    planned = int(found.group(1))
    assert abs(float(found.group(2)) - planned * 25 / 1024) < 0.06
    assert card.locator("[data-test=tiles-over-budget]").count() == 0
    assert tile_server.tiles_served == 0  # the estimate asks nobody

    card.locator("[data-test=tiles-download]").click()
    result = card.locator("[data-test=tiles-result]")
    result.wait_for(timeout=60000)
    assert re.fullmatch(rf"Offline maps ready: {planned} tiles of {planned} kept \([\d.]+ MB\)\.", result.inner_text()), result.inner_text()

    # Each tile crossed the network once, the tiles kept are exactly those, and they cover both sites.
    served = {tile_key(path) for path in tile_server.served}
    assert tile_server.tiles_served == planned == len(served)
    assert all(count == 1 for count in tile_server.served.values())
    assert {z for z, _, _ in served} == {14, 15, 16, 17}
    for point in (SITE, FORT_STREET):
        assert {tile_of(point, z) for z in (14, 15, 16, 17)} <= served
    kept = page.evaluate(KEPT)
    assert {tile_key(url) for url in kept["urls"]} == served and len(kept["urls"]) == planned
    record = page.evaluate(KEPT_RECORD)
    assert record["tiles"] == planned and record["bytes"] == kept["bytes"] and record["complete"] is True
    assert sorted(s["permit_id"] for s in record["sites"]) == sorted([people.site_id, people.other_site_id])
    assert card.locator("[data-test=tiles-kept]").inner_text().startswith(
        f"Kept on this device: {planned} map tiles, {kept['bytes'] / 1048576:.1f} MB, for 2 sites: "
        "12 Fort Street, Fairhaven, MA 02719; 40 Center Street, Fairhaven, MA 02719.")

    # The tile server goes away and so does the network: the maps draw from the kept tiles.
    tile_server.stop()
    Network(context, live_server.url).offline()
    page.click("#nav a[href='#/map']")
    page.locator("h1:has-text('Map')").wait_for()
    drawn = wait_tiles_settled(page, ".map-box")
    assert all(d["src"].startswith(tile_server.origin + "/tiles/") for d in drawn)
    on_view = [d for d in drawn if covered(tile_key(d["src"]), served)]
    assert on_view, drawn
    assert all(d["width"] == 256 and d["loaded"] for d in on_view), on_view
    zoom = tile_key(drawn[0]["src"])[0]
    assert zoom in (14, 15, 16, 17)
    assert {tile_of(SITE, zoom), tile_of(FORT_STREET, zoom)} <= {tile_key(d["src"]) for d in on_view}
    for d in on_view:  # each the tile the server drew for that address (kept), or its coarser tile's
        z, x, y = tile_key(d["src"])
        source = next((z - up, x >> up, y >> up) for up in range(5) if (z - up, x >> up, y >> up) in served)
        assert page.evaluate(PIXEL, d["src"]) == colour(source), (d["src"], source)
    # The operator's credit, shown as the text it is.
    assert "Test tiles <b>bold</b> & co" in page.locator(".leaflet-control-attribution").inner_text()
    assert page.locator(".leaflet-control-attribution b").count() == 0

    # The site's own map, drawn closer than the kept levels: its tiles are cut from the kept ones.
    page.goto(f"{live_server.url}/#/site/{people.site_id}")
    page.locator("h1:has-text('40 Center Street')").wait_for()
    site_drawn = wait_tiles_settled(page, "[data-test=site-map]")
    site_zoom = tile_key(site_drawn[0]["src"])[0]
    assert site_zoom == 18  # a lot drawn close: finer than any kept level
    site_tile = [d for d in site_drawn if tile_key(d["src"]) == tile_of(SITE, site_zoom)]
    assert site_tile and site_tile[0]["width"] == 256 and site_tile[0]["loaded"], site_drawn
    parent = tile_of(SITE, 17)
    assert parent in served and tile_of(SITE, 18) not in served
    assert page.evaluate(PIXEL, site_tile[0]["src"]) == colour(parent)
    assert all(d["width"] == 256 for d in site_drawn if covered(tile_key(d["src"]), served))
    assert errors == []


def test_the_budget_stops_the_download_and_the_maps_go_with_the_sign_out(app, live_server, new_context, factory):
    people = field_day(factory)
    with TileServer() as gone:
        pass  # a tile server that has stopped: nothing answers at its address
    configure(app, gone)
    page = new_context({"width": 320, "height": 740}).new_page()  # the narrowest phone
    sign_in(page, live_server.url, people.inspector_email)
    wait_for_service_worker(page)
    wait_synced(page)
    card = open_account(page, live_server.url)
    card.locator("[data-test=tiles-plan]").click()
    card.locator("[data-test=tiles-download]").click()
    result = card.locator("[data-test=tiles-result]")
    result.wait_for(timeout=60000)
    assert re.match(r"The tile server could not be reached \(no connection, or it does not let this app download "
                    r"tiles\): 0 tiles of \d+ kept \(0\.0 MB\)\. Try again with a connection\.$", result.inner_text()), \
        result.inner_text()
    assert page.evaluate(KEPT)["urls"] == []

    with TileServer(noisy=True) as server:  # about 193 kB a tile: five fit in 1 MB
        # The office changes the tile server. The app's kept page names the old one in its policy: once
        # the app learns of the change, the page is fetched again for the next start.
        configure(app, server, MAP_TILE_OFFLINE_BUDGET_MB="1")
        open_account(page, live_server.url)
        poll(page, "async () => { const page = await caches.match('/'); return Boolean(page) && "
                   f"page.headers.get('content-security-policy').includes(\"img-src 'self' blob: data: {server.origin}\"); }}")
        card = open_account(page, live_server.url)
        card.locator("[data-test=tiles-plan]").click()
        estimate = card.locator("[data-test=tiles-estimate]").inner_text()
        planned = int(re.match(r"About (\d+) tiles", estimate).group(1))
        card.locator("[data-test=tiles-download]").click()
        result = card.locator("[data-test=tiles-result]")
        result.wait_for(timeout=60000)
        found = re.fullmatch(rf"Stopped at the budget of 1\.0 MB: (\d+) tiles of {planned} kept \(([\d.]+) MB\)\. "
                             r"The closest zoom levels are missing for some sites\.", result.inner_text())
        assert found, result.inner_text()
        kept = page.evaluate(KEPT)
        assert len(kept["urls"]) == int(found.group(1)) == 5
        assert kept["bytes"] <= 1024 * 1024 and f"{kept['bytes'] / 1048576:.1f}" == found.group(2)
        # The coarsest levels come first, so every site keeps its overview.
        levels = sorted(tile_key(url)[0] for url in kept["urls"])
        assert levels[0] == 14 and tile_of(SITE, 14) in {tile_key(url) for url in kept["urls"]}
        assert page.evaluate(KEPT_RECORD)["complete"] is False

        # Asked again, the estimate uses what a kept tile weighs, and says it is over the budget.
        card.locator("[data-test=tiles-plan]").click()
        again = card.locator("[data-test=tiles-estimate]").inner_text()
        average = int(re.search(r"at (\d+) kB a tile", again).group(1))
        assert abs(average - kept["bytes"] / 5 / 1024) <= 1
        assert "more than the budget" in card.locator("[data-test=tiles-over-budget]").inner_text()
        assert_accessible(page, "Account: offline maps estimate over the budget")
        assert undersized_controls(page) == [] and sideways_scroll(page) == []
        card.get_by_role("button", name="Cancel").click()

        card.locator("[data-test=tiles-remove]").click()
        confirm(page, "The map tiles kept on this device are deleted.")
        card.locator("[data-test=tiles-result]:has-text('Offline maps removed from this device.')").wait_for()
        assert card.locator("[data-test=tiles-kept]").inner_text() == "No map tiles are kept on this device."
        assert page.evaluate(KEPT) is None and page.evaluate(KEPT_RECORD) is None

        card.locator("[data-test=tiles-plan]").click()
        card.locator("[data-test=tiles-download]").click()
        card.locator("[data-test=tiles-result]:has-text('Stopped at the budget')").wait_for(timeout=60000)
        assert len(page.evaluate(KEPT)["urls"]) == 5

    # Signing out deletes the kept maps with the rest of the user's data.
    page.get_by_role("button", name="Sign out").click()
    page.locator("button:has-text('Sign in')").wait_for()
    assert page.evaluate(KEPT) is None and page.evaluate(KEPT_RECORD) is None
