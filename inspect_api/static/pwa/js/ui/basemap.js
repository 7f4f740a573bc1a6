// The base of every map in the app: the map library (Leaflet, vendored) and its stylesheet, loaded the
// first time a map is shown, never with the app; the tiles the office configured (tiles.js), or none:
// without tiles the map draws on a plain background (css "map-plain") and is used the same way, its
// scale bar giving the distances. Geometry helpers turn the API's GeoJSON into Leaflet's [lat, lon].
import { h } from "../dom.js";
import { mapSettings, tileLayerFor } from "./tiles.js";

const LEAFLET = new URL("../../vendor/leaflet/leaflet-src.esm.js", import.meta.url).href;
const LEAFLET_CSS = new URL("../../vendor/leaflet/leaflet.css", import.meta.url).href;
// Without tiles no tile server limits the zoom: a limit of work can be drawn at about 11 cm a pixel.
const PLAIN_ZOOMS = { min: 2, max: 20 };

let loading = null;

function stylesheet() {
  return new Promise((resolve) => {
    const link = h("link", { rel: "stylesheet", href: LEAFLET_CSS, dataset: { map: "leaflet" } });
    link.addEventListener("load", resolve);
    link.addEventListener("error", resolve);  // the map still works; it only looks wrong
    // Before the app's stylesheet, so the app's own rules for the map win at equal specificity.
    const app = document.querySelector('link[rel="stylesheet"][href$="css/app.css"]');
    if (app) app.before(link);
    else document.head.append(link);
  });
}

// The library's module, with its stylesheet in place (sizes are measured as the map starts).
export function leaflet() {
  if (!loading) {
    loading = Promise.all([import(LEAFLET), stylesheet()]).then(([L]) => L)
      .catch((err) => { loading = null; throw err; });
  }
  return loading;
}

// A map in `container` (already in the document): labelled for screen readers, with the zoom buttons,
// a scale bar (metres and feet) and the tiles when there are any. `destroy()` when the screen goes.
export async function baseMap(container, { label, hint }) {
  const [L, settings] = await Promise.all([leaflet(), mapSettings().catch(() => null)]);
  const tiles = tileLayerFor(L, settings);
  container.classList.add("map", "map-plain");
  container.setAttribute("role", "region");
  container.setAttribute("aria-label", label);
  if (hint) container.setAttribute("aria-describedby", hint);
  const map = L.map(container, {
    attributionControl: Boolean(tiles),
    minZoom: tiles ? tiles.options.minZoom : PLAIN_ZOOMS.min,
    maxZoom: tiles ? tiles.options.maxZoom : PLAIN_ZOOMS.max,
    zoomSnap: 1,
    tapTolerance: 20,
  });
  if (tiles) {
    tiles.addTo(map);
    container.classList.add("map-tiled");
  }
  L.control.scale({ maxWidth: 140 }).addTo(map);
  map.setView([20, 0], PLAIN_ZOOMS.min);  // a first view, so layers are drawn as they are added; callers frame theirs
  // A map drawn while its card was narrow (or hidden) measures itself again when its box changes.
  const resized = new ResizeObserver(() => { if (container.isConnected) map.invalidateSize(); });
  resized.observe(container);
  return {
    L, map, tiled: Boolean(tiles),
    destroy() { resized.disconnect(); map.remove(); },
  };
}

const finite = (v) => typeof v === "number" && Number.isFinite(v);
export const hasPoint = (p) => Boolean(p) && finite(p.lat) && finite(p.lon);

// A GeoJSON Polygon or MultiPolygon ([lon, lat] positions) as Leaflet's nested [lat, lon] arrays, or
// null for anything else. Leaflet drops each ring's closing position itself.
export function latLngsOf(geometry) {
  if (!geometry || !Array.isArray(geometry.coordinates)) return null;
  const ring = (positions) => (Array.isArray(positions) ? positions : [])
    .filter((p) => Array.isArray(p) && finite(p[0]) && finite(p[1])).map(([lon, lat]) => [lat, lon]);
  const polygon = (rings) => (Array.isArray(rings) ? rings : []).map(ring).filter((r) => r.length >= 3);
  if (geometry.type === "Polygon") {
    const rings = polygon(geometry.coordinates);
    return rings.length ? rings : null;
  }
  if (geometry.type === "MultiPolygon") {
    const parts = geometry.coordinates.map(polygon).filter((p) => p.length);
    return parts.length ? parts : null;
  }
  return null;
}

// Area in square feet of one ring of {lat, lon} (the shoelace formula on a local flat projection:
// exact enough for a building lot).
export function ringAreaSqft(points) {
  if (points.length < 3) return 0;
  const lat0 = (points.reduce((s, p) => s + p.lat, 0) / points.length) * (Math.PI / 180);
  const xy = points.map((p) => [p.lon * 111320 * Math.cos(lat0), p.lat * 110574]);
  let twice = 0;
  xy.forEach(([x1, y1], i) => { const [x2, y2] = xy[(i + 1) % xy.length]; twice += x1 * y2 - x2 * y1; });
  return Math.abs(twice / 2) * 10.7639;
}
