// The public pages' interactive maps (the map of active sites, the report form's pick): the map library
// (the field app's vendored Leaflet, at the address the page names in data-leaflet) loaded only where
// script runs, the Town's base map tiles when they are configured (data-tiles; else a plain background),
// zoom buttons named in the page's language and a scale bar. The sites come as data in the page
// (data-sites); every element on the map is built here as DOM, never from HTML text.

let loading = null;

function stylesheet(href) {
  return new Promise((resolve) => {
    const link = document.createElement("link");
    link.rel = "stylesheet";
    link.href = href;
    link.addEventListener("load", resolve);
    link.addEventListener("error", resolve);  // the map still works; it only looks wrong
    // Before the pages' own stylesheet, so that its rules for the map win at equal specificity.
    const own = document.querySelector('link[rel="stylesheet"]');
    if (own) own.before(link);
    else document.head.append(link);
  });
}

// The library's module, with its stylesheet in place (the map measures its box as it starts).
export function leaflet(box) {
  if (!loading) {
    loading = Promise.all([import(box.dataset.leaflet), stylesheet(box.dataset.leafletCss)]).then(([L]) => L)
      .catch((err) => { loading = null; throw err; });
  }
  return loading;
}

// A JSON data- attribute of the box, or null.
export function data(box, name) {
  try {
    return JSON.parse(box.dataset[name] || "null");
  } catch {
    return null;
  }
}

// Leaflet's attribution control takes HTML; the Town's tile credit is plain text.
const escapeText = (text) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

// Without tiles nothing limits the zoom: a limit of work is drawn down to about a metre a pixel.
const PLAIN = { min: 2, max: 20 };

// A map in `box` (shown by this call), named by its data-label and described by `describedBy`.
export async function baseMap(box, { describedBy = null } = {}) {
  const L = await leaflet(box);
  const tiles = data(box, "tiles");
  box.hidden = false;
  box.setAttribute("role", "region");
  box.setAttribute("aria-label", box.dataset.label || "Map");
  if (describedBy) box.setAttribute("aria-describedby", describedBy);
  const minZoom = tiles ? tiles.min_zoom ?? 0 : PLAIN.min;
  const maxZoom = tiles ? tiles.max_zoom ?? 19 : PLAIN.max;
  const map = L.map(box, { zoomControl: false, attributionControl: false, minZoom, maxZoom, tapTolerance: 20 });
  L.control.zoom({ zoomInTitle: box.dataset.zoomIn, zoomOutTitle: box.dataset.zoomOut }).addTo(map);
  if (tiles && tiles.url) {
    L.tileLayer(tiles.url, { minZoom, maxZoom }).addTo(map);
    L.control.attribution({ prefix: false }).addAttribution(escapeText(tiles.attribution || "")).addTo(map);
    box.classList.add("tiled");
  }
  L.control.scale({ maxWidth: 140 }).addTo(map);
  return { L, map };
}

const finite = (v) => typeof v === "number" && Number.isFinite(v);
export const hasPoint = (p) => Boolean(p) && finite(p.lat) && finite(p.lon);

// A GeoJSON Polygon or MultiPolygon ([lon, lat]) as Leaflet's nested [lat, lon] arrays, or null.
export function latLngsOf(geometry) {
  if (!geometry || !Array.isArray(geometry.coordinates)) return null;
  const ring = (positions) => (Array.isArray(positions) ? positions : [])
    .filter((p) => Array.isArray(p) && finite(p[0]) && finite(p[1])).map(([lon, lat]) => [lat, lon]);
  const polygon = (rings) => (Array.isArray(rings) ? rings : []).map(ring).filter((r) => r.length >= 3);
  if (geometry.type === "Feature") return latLngsOf(geometry.geometry);
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

// Each site's limit of work as an outline (a layer group the caller adds); `onSite(site)` on a click of
// one, or none: then the outlines let taps through to the map.
export function limits(L, sites, onSite = null) {
  const group = L.featureGroup();
  for (const site of sites) {
    const area = latLngsOf(site.limit);
    if (!area) continue;
    const outline = L.polygon(area, { className: "live-limit", interactive: Boolean(onSite) });
    if (onSite) outline.on("click", () => onSite(site));
    group.addLayer(outline);
  }
  return group;
}

// The view that shows every site (with a margin), or false when there is none.
export function fitSites(L, map, sites, maxZoom = 17) {
  const box = L.latLngBounds([]);
  for (const site of sites) {
    if (hasPoint(site)) box.extend([site.lat, site.lon]);
    const area = latLngsOf(site.limit);
    if (area) box.extend(L.polygon(area).getBounds());
  }
  if (!box.isValid()) return false;
  map.fitBounds(box, { padding: [30, 30], maxZoom });
  return true;
}

export function el(tag, className, text = null) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== null) node.textContent = text;
  return node;
}
