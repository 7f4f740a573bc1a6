// The app's one map of sites (the map screen, a site, an application in the office) and, from
// map_pick.js, its one map pick: each site as its point and its limit-of-work polygon, the day's due
// sites labelled "Due" or "Overdue" (words, not colour alone), the device's position with its accuracy
// circle, a scale bar; a tap on a site opens it. Markers and labels are DOM nodes built here: no
// text reaches the map library as HTML. The screens list the same sites as links beside the map.
import { h, fieldId } from "../dom.js";
import { bestFix, onFix, startWatching } from "../geo.js";
import { baseMap, hasPoint, latLngsOf } from "./basemap.js";

export { pickLocation } from "./map_pick.js";

// Above this many sites the points are drawn as plain circles (SVG) rather than one element each.
const MANY = 300;
const FIT = { padding: [36, 36], maxZoom: 18 };

// Words for a due site: "Overdue" or "Due" (today).
export const dueWord = (due) => (due ? (due.overdue ? "Overdue" : "Due") : null);

function siteName(permit) {
  const site = permit.site || {};
  return site.address || permit.number || "Site";
}

// A site's point as a 44 px target (gloves) holding a small square, and its due label when due.
function siteIcon(L, word) {
  const body = h("span.pin-body", { "aria-hidden": "true" }, h("span.pin-dot"), word ? h("span.pin-due", word) : null);
  return L.divIcon({ html: body, className: word ? `site-pin due${word === "Overdue" ? " overdue" : ""}` : "site-pin",
    iconSize: [44, 44], iconAnchor: [22, 22] });
}

// container: an element in the document. sites: permit records ({id, site: {address, location,
// limit_of_work}}); due: Map permit id -> {overdue}; position: draw the device's position (starts the
// location watch: the map is where the question makes sense); onSiteTap(id): a tap or Enter on a site;
// onView(permits): the sites in view, after each move (for the list beside the map).
export async function showSitesMap(container, { sites = [], due = new Map(), position = true, onSiteTap = null,
  onView = null, label = "Map of the sites", hint = null } = {}) {
  const { L, map, tiled, destroy } = await baseMap(container, { label, hint });
  const layer = L.featureGroup().addTo(map);
  const extent = new Map();  // permit id -> the bounds of its point and polygon, for the sites in view
  let shown = [];
  let bounds = null;

  function add(permit, many) {
    const site = permit.site || {};
    const word = dueWord(due.get(permit.id));
    const open = onSiteTap ? () => onSiteTap(permit.id) : null;
    const area = latLngsOf(site.limit_of_work);
    const box = L.latLngBounds([]);
    if (area) {
      const polygon = L.polygon(area, { className: word ? "map-low due" : "map-low", interactive: Boolean(open) });
      if (open) polygon.on("click", open);
      layer.addLayer(polygon);
      box.extend(polygon.getBounds());
    }
    if (hasPoint(site.location)) box.extend([site.location.lat, site.location.lon]);
    if (box.isValid()) extent.set(permit.id, box);
    if (!hasPoint(site.location)) return;
    const at = [site.location.lat, site.location.lon];
    if (many && !word) {
      const dot = L.circleMarker(at, { className: "map-site", radius: 7, interactive: Boolean(open) });
      if (open) dot.on("click", open);
      layer.addLayer(dot);
      return;
    }
    const marker = L.marker(at, { icon: siteIcon(L, word), keyboard: Boolean(open), interactive: Boolean(open),
      autoPanOnFocus: true, riseOnHover: true, zIndexOffset: word ? 500 : 0 });
    if (open) marker.on("click", open);
    layer.addLayer(marker);
    const el = marker.getElement();
    el.dataset.permit = permit.id;
    el.setAttribute("aria-label", `${siteName(permit)}${word ? `, ${word === "Due" ? "due today" : "overdue"}` : ""}`);
    if (!open) el.setAttribute("role", "img");
    // A button opens with Enter or Space (Leaflet's marker answers clicks only).
    else el.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); open(); } });
  }

  function inView() {
    const view = map.getBounds();
    return shown.filter((p) => extent.has(p.id) && view.intersects(extent.get(p.id)));
  }

  // Draws these sites (and due marks) instead of the last ones; the view moves only when asked.
  function setSites(list, newDue = due, { fit = false } = {}) {
    due = newDue;
    shown = list;
    layer.clearLayers();
    extent.clear();
    const many = list.length > MANY;
    for (const permit of list) add(permit, many);
    bounds = layer.getLayers().length ? layer.getBounds() : null;
    if (fit) showAll();
    else if (onView) onView(inView());
  }

  // --- the device's position and its accuracy circle --------------------------------------------
  const accuracy = L.circle([0, 0], { radius: 1, className: "map-accuracy", interactive: false });
  const here = L.circleMarker([0, 0], { radius: 8, className: "map-here", interactive: false });
  let fix = null;
  function showFix(next) {
    if (!next) return;
    fix = next;
    accuracy.setLatLng([fix.lat, fix.lon]).setRadius(Math.max(fix.accuracy_m || 0, 1));
    here.setLatLng([fix.lat, fix.lon]);
    if (!map.hasLayer(accuracy)) { accuracy.addTo(map); here.addTo(map); }
  }
  let stopFix = () => {};
  if (position) {
    startWatching();
    stopFix = onFix(showFix);
    showFix(bestFix());
  }

  // Leaflet ignores a new view asked for while a zoom is being animated: it is asked again once it ends.
  const zooming = () => map.getPane("mapPane").classList.contains("leaflet-zoom-anim");
  function showAll() {
    if (zooming()) { map.once("zoomend", showAll); return; }
    if (bounds && bounds.isValid()) map.fitBounds(bounds, FIT);
    else if (fix) map.setView([fix.lat, fix.lon], 16);
    else map.setView([20, 0], 2);
  }
  // Centres on the device; false while there is no fix.
  function showPosition() {
    if (!fix) return false;
    if (zooming()) { map.once("zoomend", showPosition); return true; }
    map.setView([fix.lat, fix.lon], Math.max(map.getZoom(), 16));
    return true;
  }

  let alive = true;  // a move that ends as the screen goes (an animation) reports nothing
  if (onView) map.on("moveend", () => { if (alive) onView(inView()); });
  setSites(sites, due, { fit: true });
  return {
    map, tiled, setSites, showAll, showPosition, inView,
    destroy() { alive = false; stopFix(); destroy(); },
  };
}

// A map of sites with its legend, in a <figure>: the screens put this in a card and pass `box` and
// `hintId` to showSitesMap once the figure is in the document. A map that cannot load leaves a
// sentence instead (the screens list the sites anyway).
const SITES_LEGEND = "Square: a site's point (tap it to open the site). Outlined area: its limit of work. “Due” or “Overdue”: due today. ";

export function mapFigure({ caption = SITES_LEGEND, compact = false, position = true } = {}) {
  const box = h(compact ? "div.map-box.compact" : "div.map-box");
  const hintId = fieldId("map-hint");
  const figure = h("figure.map-figure", box, h("figcaption.hint", { id: hintId }, caption,
    position ? "Dot in a shaded circle: your position and its accuracy. " : "", "Arrow keys move the map, + and − zoom."));
  return {
    figure, box, hintId,
    failed(err) {
      box.replaceWith(h("p.banner.warn", { "data-test": "map-failed" }, "The map could not be drawn: ",
        String((err && err.message) || err), "."));
    },
  };
}
