// Web Mercator tile arithmetic for the offline base map: which tiles cover an assigned site's area.
import { test } from "node:test";
import assert from "node:assert/strict";

import { MAX_LAT, ancestorOf, boxAround, estimateBytes, latToTileY, lonToTileX, rangeCount, siteBox, tileCorner,
  tileOfUrl, tileRange, tilesFor, tileUrl } from "../../inspect_api/static/pwa/js/ui/tilemath.js";

const TOWN_HALL = { lat: 41.6376, lon: -70.9036 };

test("zoom 0 is one tile for the whole world, poles and antimeridian included", () => {
  for (const [lat, lon] of [[0, 0], [MAX_LAT, -180], [-MAX_LAT, 180], [89.9, 179.999], [-90, -180], [90, 180]]) {
    assert.equal(lonToTileX(lon, 0), 0);
    assert.equal(latToTileY(lat, 0), 0);
  }
  assert.deepEqual(tileRange({ south: -90, west: -180, north: 90, east: 180 }, 0), { z: 0, minX: 0, maxX: 0, minY: 0, maxY: 0 });
  assert.deepEqual(tilesFor([{ south: -90, west: -180, north: 90, east: 180 }], [0]), [{ z: 0, x: 0, y: 0 }]);
});

test("the edges of the world belong to the first and last tiles, never one past them", () => {
  assert.equal(lonToTileX(-180, 3), 0);
  assert.equal(lonToTileX(180, 3), 7);
  assert.equal(latToTileY(MAX_LAT, 3), 0);
  assert.equal(latToTileY(-MAX_LAT, 3), 7);
  assert.equal(latToTileY(90, 3), 0);  // beyond Web Mercator: clamped
  assert.equal(latToTileY(-90, 3), 7);
  // The equator and the prime meridian start the second half at zoom 1.
  assert.equal(lonToTileX(0, 1), 1);
  assert.equal(lonToTileX(-0.000001, 1), 0);
  assert.equal(latToTileY(0, 1), 1);
  assert.equal(latToTileY(0.000001, 1), 0);
});

test("Fairhaven's town hall lies in the tiles the OSM formula gives", () => {
  // x = floor((lon + 180) / 360 * 2^z); y = floor((1 - asinh(tan(lat)) / pi) / 2 * 2^z)
  const expected = { 1: [0, 0], 14: [4965, 6104], 15: [9930, 12208], 16: [19860, 24416], 17: [39720, 48833] };
  for (const [z, [x, y]] of Object.entries(expected)) {
    assert.deepEqual([lonToTileX(TOWN_HALL.lon, Number(z)), latToTileY(TOWN_HALL.lat, Number(z))], [x, y], `zoom ${z}`);
  }
});

test("a tile's corner is inside it, and its neighbour's corner is the next tile", () => {
  for (const z of [0, 5, 14, 17]) {
    const x = lonToTileX(TOWN_HALL.lon, z), y = latToTileY(TOWN_HALL.lat, z);
    const nw = tileCorner(x, y, z), se = tileCorner(x + 1, y + 1, z);
    assert.ok(nw.lat >= TOWN_HALL.lat && TOWN_HALL.lat >= se.lat, `zoom ${z} lat`);
    assert.ok(nw.lon <= TOWN_HALL.lon && TOWN_HALL.lon <= se.lon, `zoom ${z} lon`);
    assert.equal(lonToTileX(nw.lon + 1e-9, z), x);
    assert.equal(latToTileY(nw.lat - 1e-9, z), y);
    assert.equal(lonToTileX(se.lon + 1e-9, z), Math.min(x + 1, 2 ** z - 1));
  }
  assert.ok(Math.abs(tileCorner(0, 0, 0).lat - MAX_LAT) < 1e-12 && tileCorner(0, 0, 0).lon === -180);
  assert.ok(Math.abs(tileCorner(1, 1, 1).lat) < 1e-12 && tileCorner(1, 1, 1).lon === 0);
});

test("a point's box reaches the same distance every way", () => {
  const box = boxAround(TOWN_HALL, 300);
  const mPerDegLat = 110574, mPerDegLon = 111320 * Math.cos((TOWN_HALL.lat * Math.PI) / 180);
  assert.ok(Math.abs((box.north - TOWN_HALL.lat) * mPerDegLat - 300) < 0.01);
  assert.ok(Math.abs((TOWN_HALL.lat - box.south) * mPerDegLat - 300) < 0.01);
  assert.ok(Math.abs((box.east - TOWN_HALL.lon) * mPerDegLon - 300) < 0.01);
  assert.ok(Math.abs((TOWN_HALL.lon - box.west) * mPerDegLon - 300) < 0.01);
});

test("a site's area: its limit of work's box widened, else its point ± 300 m, else nothing", () => {
  const lot = { type: "Polygon", coordinates: [[[-70.905, 41.637], [-70.902, 41.637], [-70.902, 41.639], [-70.905, 41.639], [-70.905, 41.637]]] };
  const withLot = siteBox({ location: TOWN_HALL, limit_of_work: lot });
  assert.ok(withLot.south < 41.637 && withLot.south > 41.637 - 0.001);  // 50 m below the lot
  assert.ok(withLot.north > 41.639 && withLot.north < 41.639 + 0.001);
  assert.ok(withLot.west < -70.905 && withLot.east > -70.902);
  assert.deepEqual(siteBox({ location: TOWN_HALL, limit_of_work: null }), boxAround(TOWN_HALL, 300));
  // A MultiPolygon's outer rings all count, and a point outside the lot widens the box to it.
  const multi = { type: "MultiPolygon", coordinates: [lot.coordinates, [[[-70.91, 41.64], [-70.909, 41.64], [-70.909, 41.641], [-70.91, 41.64]]]] };
  const both = siteBox({ location: { lat: 41.630, lon: -70.9036 }, limit_of_work: multi });
  assert.ok(both.west < -70.91 && both.north > 41.641 && both.south < 41.630 && both.east > -70.902);
  assert.equal(siteBox({ location: null, limit_of_work: null }), null);
  assert.equal(siteBox({}), null);
  assert.deepEqual(siteBox({ location: null, limit_of_work: lot }),
    siteBox({ location: { lat: 41.638, lon: -70.9035 }, limit_of_work: lot }));  // a point inside adds nothing
});

test("tiles covering a site at the offline zooms, coarsest first, counted", () => {
  const box = siteBox({ location: TOWN_HALL });
  const ranges = [14, 15, 16, 17].map((z) => tileRange(box, z));
  // 600 m across; a tile here is 40075 km * cos(41.64°) / 2^z wide: 1830 m at 14, 229 m at 17.
  for (const r of ranges) {
    const across = (600 * 2 ** r.z) / (40075016.7 * Math.cos((TOWN_HALL.lat * Math.PI) / 180));
    assert.ok(r.maxX - r.minX + 1 >= Math.ceil(across) && r.maxX - r.minX + 1 <= Math.ceil(across) + 1, `zoom ${r.z}`);
    assert.ok(r.minY <= latToTileY(TOWN_HALL.lat, r.z) && latToTileY(TOWN_HALL.lat, r.z) <= r.maxY);
  }
  const tiles = tilesFor([box], [17, 14, 16, 15, 15]);
  assert.equal(tiles.length, ranges.reduce((n, r) => n + rangeCount(r), 0));
  assert.deepEqual([...new Set(tiles.map((t) => t.z))], [14, 15, 16, 17]);
  assert.ok(tiles.every((t, i) => i === 0 || tiles[i - 1].z <= t.z));
  assert.deepEqual(tiles[0], { z: 14, x: ranges[0].minX, y: ranges[0].minY });
});

test("neighbouring sites share tiles and each is counted once", () => {
  const a = siteBox({ location: TOWN_HALL });
  const b = siteBox({ location: { lat: TOWN_HALL.lat + 0.0005, lon: TOWN_HALL.lon + 0.0005 } });
  const alone = tilesFor([a], [16]).length;
  const together = tilesFor([a, b], [16]);
  const keys = together.map((t) => `${t.z}/${t.x}/${t.y}`);
  assert.equal(new Set(keys).size, keys.length);
  assert.ok(together.length >= alone && together.length < alone + tilesFor([b], [16]).length);
  assert.deepEqual(tilesFor([], [14, 15]), []);
  assert.deepEqual(tilesFor([a], []), []);
});

test("tile addresses and the size estimate", () => {
  assert.equal(tileUrl("https://tiles.example.gov/{z}/{x}/{y}.png", { z: 17, x: 39720, y: 48833 }),
    "https://tiles.example.gov/17/39720/48833.png");
  assert.equal(tileUrl("https://gis.example.gov/t?l={z}&r={y}&c={x}", { z: 0, x: 0, y: 0 }), "https://gis.example.gov/t?l=0&r=0&c=0");
  assert.equal(estimateBytes(0, 25000), 0);
  assert.equal(estimateBytes(120, 25000), 3000000);
  assert.equal(estimateBytes(3, 1000.5), 3002);
});

test("a tile URL read back by its template, and nothing else", () => {
  const template = "http://127.0.0.1:8765/tiles/{z}/{x}/{y}.png";
  const tile = { z: 17, x: 39720, y: 48833 };
  assert.deepEqual(tileOfUrl(template, tileUrl(template, tile)), tile);
  assert.deepEqual(tileOfUrl("https://gis.example.gov/t?l={z}&r={y}&c={x}", "https://gis.example.gov/t?l=3&r=5&c=2"), { z: 3, x: 2, y: 5 });
  assert.equal(tileOfUrl(template, "http://127.0.0.1:8765/tiles/17/39720/48833.jpg"), null);
  assert.equal(tileOfUrl(template, "http://127.0.0.1:8765/tiles/17/39720/48833.png?x=1"), null);
  assert.equal(tileOfUrl(template, "http://127.0.0.1:8765/tiles/a/1/2.png"), null);
  assert.equal(tileOfUrl(template, "http://127.0.0.1:8765/tiles/2/4/0.png"), null);  // x beyond 2^z - 1
  assert.equal(tileOfUrl(template, "http://127.0.0.1:8765/tilesX17/1/2.png"), null);
  // A dot in the template is a dot, not any character.
  assert.equal(tileOfUrl(template, "http://127.0.0.1:8765/tiles/1/1/1Xpng"), null);
});

test("the coarser tile that holds a finer one, and which part of it", () => {
  assert.deepEqual(ancestorOf({ z: 18, x: 79441, y: 97667 }, 1), { z: 17, x: 39720, y: 48833, parts: 2, col: 1, row: 1 });
  assert.deepEqual(ancestorOf({ z: 18, x: 79440, y: 97666 }, 1), { z: 17, x: 39720, y: 48833, parts: 2, col: 0, row: 0 });
  assert.deepEqual(ancestorOf({ z: 19, x: 158883, y: 195332 }, 2), { z: 17, x: 39720, y: 48833, parts: 4, col: 3, row: 0 });
  assert.deepEqual(ancestorOf({ z: 3, x: 7, y: 5 }, 3), { z: 0, x: 0, y: 0, parts: 8, col: 7, row: 5 });
  // The part's place agrees with the map: the finer tile's corner lies in the coarser tile at that part.
  const t = { z: 18, x: 79441, y: 97666 };
  const a = ancestorOf(t, 1);
  const corner = tileCorner(t.x, t.y, t.z), coarse = tileCorner(a.x, a.y, a.z), next = tileCorner(a.x + 1, a.y + 1, a.z);
  assert.ok(Math.abs((corner.lon - coarse.lon) / (next.lon - coarse.lon) - a.col / a.parts) < 1e-9);
});
