// Web Mercator tile arithmetic (the "slippy map" scheme every {z}/{x}/{y} tile server uses): which
// tiles cover a site's area at a zoom level, how many, and their addresses. Pure functions, no DOM.
//
// A box is { south, west, north, east } in degrees, west <= east (the Town's sites never cross the
// antimeridian); latitudes beyond Web Mercator's limit are clamped to it.
export const MAX_LAT = 85.0511287798066;
const M_PER_DEG_LAT = 110574;
const M_PER_DEG_LON_AT_EQUATOR = 111320;

const clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, v));

// The column of the tile holding longitude `lon` at zoom `z`; the east edge (180°) belongs to the last.
export function lonToTileX(lon, z) {
  const n = 2 ** z;
  return clamp(Math.floor(((lon + 180) / 360) * n), 0, n - 1);
}

// The row of the tile holding latitude `lat` at zoom `z`; row 0 is the northernmost.
export function latToTileY(lat, z) {
  const n = 2 ** z;
  const rad = (clamp(lat, -MAX_LAT, MAX_LAT) * Math.PI) / 180;
  const y = ((1 - Math.log(Math.tan(rad) + 1 / Math.cos(rad)) / Math.PI) / 2) * n;
  return clamp(Math.floor(y), 0, n - 1);
}

// The north-west corner of tile (x, y) at zoom z, in degrees.
export function tileCorner(x, y, z) {
  const n = 2 ** z;
  const lon = (x / n) * 360 - 180;
  const lat = (Math.atan(Math.sinh(Math.PI * (1 - (2 * y) / n))) * 180) / Math.PI;
  return { lat, lon };
}

// The box `metres` around a point on every side.
export function boxAround({ lat, lon }, metres) {
  const dLat = metres / M_PER_DEG_LAT;
  const dLon = metres / (M_PER_DEG_LON_AT_EQUATOR * Math.max(Math.cos((lat * Math.PI) / 180), 1e-6));
  return { south: clamp(lat - dLat, -90, 90), west: clamp(lon - dLon, -180, 180),
    north: clamp(lat + dLat, -90, 90), east: clamp(lon + dLon, -180, 180) };
}

function ringPositions(polygon) {
  if (!polygon || !Array.isArray(polygon.coordinates)) return [];
  const polygons = polygon.type === "MultiPolygon" ? polygon.coordinates : [polygon.coordinates];
  return polygons.flatMap((rings) => (Array.isArray(rings) && Array.isArray(rings[0]) ? rings[0] : []));
}

// The area kept for a site: its limit of work's bounding box (with the site point) widened by
// `padM`, or without a limit of work the point ± `aroundM`. Null when the site has no coordinates.
export function siteBox({ location, limit_of_work: polygon } = {}, { aroundM = 300, padM = 50 } = {}) {
  const valid = (p) => p && Number.isFinite(p.lat) && Number.isFinite(p.lon);
  const point = valid(location) ? location : null;
  const ring = ringPositions(polygon).map(([lon, lat]) => ({ lat, lon })).filter(valid);
  if (!ring.length) return point ? boxAround(point, aroundM) : null;
  const all = point ? [...ring, point] : ring;
  const lats = all.map((p) => p.lat), lons = all.map((p) => p.lon);
  const sw = boxAround({ lat: Math.min(...lats), lon: Math.min(...lons) }, padM);
  const ne = boxAround({ lat: Math.max(...lats), lon: Math.max(...lons) }, padM);
  return { south: sw.south, west: sw.west, north: ne.north, east: ne.east };
}

// The tiles covering `box` at zoom z: columns minX..maxX, rows minY..maxY (inclusive).
export function tileRange(box, z) {
  return { z, minX: lonToTileX(box.west, z), maxX: lonToTileX(box.east, z),
    minY: latToTileY(box.north, z), maxY: latToTileY(box.south, z) };
}

export const rangeCount = (r) => (r.maxX - r.minX + 1) * (r.maxY - r.minY + 1);

// Every tile covering any of `boxes` at each of `zooms`, once each (neighbouring sites share tiles),
// the coarser levels first so a download cut short still covers every site.
export function tilesFor(boxes, zooms) {
  const seen = new Set();
  const tiles = [];
  for (const z of [...new Set(zooms)].sort((a, b) => a - b)) {
    for (const box of boxes) {
      const r = tileRange(box, z);
      for (let y = r.minY; y <= r.maxY; y++) {
        for (let x = r.minX; x <= r.maxX; x++) {
          const key = `${z}/${x}/${y}`;
          if (!seen.has(key)) { seen.add(key); tiles.push({ z, x, y }); }
        }
      }
    }
  }
  return tiles;
}

// The address of a tile from a {z}/{x}/{y} template, as the map library builds it.
export function tileUrl(template, { z, x, y }) {
  return template.replace("{z}", String(z)).replace("{x}", String(x)).replace("{y}", String(y));
}

// The bytes `count` tiles take at `averageBytes` each, rounded up.
export const estimateBytes = (count, averageBytes) => Math.ceil(count * averageBytes);

// The tile a URL made from `template` addresses, or null for any other URL.
export function tileOfUrl(template, url) {
  const escaped = template.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const pattern = escaped.replace("\\{z\\}", "(?<z>\\d{1,2})").replace("\\{x\\}", "(?<x>\\d{1,8})").replace("\\{y\\}", "(?<y>\\d{1,8})");
  const match = new RegExp(`^${pattern}$`).exec(url);
  if (!match) return null;
  const [z, x, y] = ["z", "x", "y"].map((k) => Number(match.groups[k]));
  return x < 2 ** z && y < 2 ** z ? { z, x, y } : null;
}

// The tile `up` levels coarser that holds tile t, and which of its parts × parts squares t is
// (column, row from its north-west corner): a kept coarser tile, enlarged, stands in for a finer one.
export function ancestorOf({ z, x, y }, up) {
  const parts = 2 ** up;
  const ax = Math.floor(x / parts), ay = Math.floor(y / parts);
  return { z: z - up, x: ax, y: ay, parts, col: x - ax * parts, row: y - ay * parts };
}
