// The map pick (map.js exports it): where a site is, as a pin dragged or placed with a tap (or moved
// with the arrow keys once it has focus), and optionally its limit of work drawn corner by corner
// (undo the last corner, clear, close the shape). onChange({point, polygon}) after each change:
// point {lat, lon} rounded to 6 decimals (about 10 cm), polygon a GeoJSON Polygon as the API takes it
// for site.limit_of_work (one closed ring of [lon, lat]) or null. The screen's typed latitude and
// longitude stay as the fallback; setPoint() keeps the pin in step with them.
import { h, mount, fieldId } from "../dom.js";
import { baseMap, hasPoint, latLngsOf, ringAreaSqft } from "./basemap.js";

const ZOOM = 18;
const STEP_PX = 10;  // an arrow key moves the pin this far on the screen; five times as far with Shift
const ARROWS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
const round6 = (v) => Math.round(v * 1e6) / 1e6;
const at = (p) => [p.lat, p.lon];

// Whether segments ab and cd cross (touching at an end does not count).
function cross(a, b, c, d) {
  const side = (p, q, r) => Math.sign((q.lon - p.lon) * (r.lat - p.lat) - (q.lat - p.lat) * (r.lon - p.lon));
  return side(a, b, c) * side(a, b, d) < 0 && side(c, d, a) * side(c, d, b) < 0;
}

// Whether the closed ring through these corners crosses itself (the server refuses such a shape).
export function selfCrossing(corners) {
  const n = corners.length;
  for (let i = 0; i < n; i += 1) {
    for (let j = i + 2; j < n; j += 1) {
      if (i === 0 && j === n - 1) continue;  // the closing edge meets the first at a corner
      if (cross(corners[i], corners[(i + 1) % n], corners[j], corners[(j + 1) % n])) return true;
    }
  }
  return false;
}

// The area a GeoJSON polygon encloses (outer rings), in square feet.
function areaOf(geometry) {
  const parts = geometry.type === "MultiPolygon" ? geometry.coordinates : [geometry.coordinates];
  return parts.reduce((sum, rings) => sum + ringAreaSqft(rings[0].slice(0, -1).map(([lon, lat]) => ({ lat, lon }))), 0);
}

function describe(geometry) {
  const area = Math.round(areaOf(geometry)).toLocaleString("en-US");
  if (geometry.type !== "Polygon") return `Limit of work: ${geometry.coordinates.length} areas, about ${area} sq ft in all.`;
  return `Limit of work: ${geometry.coordinates[0].length - 1} corners, about ${area} sq ft.`;
}

// container: an empty element in the document; point, polygon: the site's saved ones; near: points to
// frame while there is no point yet (the user's other sites). Returns {setPoint, value, destroy}.
export async function pickLocation(container, { point = null, polygon = null, onChange = () => {}, near = [],
  label = "Map: the site's point and its limit of work" } = {}) {
  const box = h("div.map-box.pick");
  const help = h("figcaption.hint", { id: fieldId("pick-help") }, "Drag the pin, or tap the map, to place the site's point. ",
    "With a keyboard: focus the pin and use the arrow keys (Shift for bigger steps), or type the latitude and longitude.");
  const tools = h("div.actions.map-tools");
  const status = h("p.pick-status", { "aria-live": "polite", "data-test": "pick-status" });
  mount(container, h("figure.map-figure", box, help), tools, status);
  const { L, map, destroy } = await baseMap(box, { label, hint: help.id });

  let current = hasPoint(point) ? { lat: round6(point.lat), lon: round6(point.lon) } : null;
  let closed = latLngsOf(polygon) ? polygon : null;  // the limit of work as the API takes it
  let before = closed;  // what "Cancel" puts back while redrawing
  let corners = [];     // the corners drawn so far, {lat, lon}
  let drawing = false;
  let note = "";
  const changed = () => onChange({ point: current, polygon: closed });
  const say = (text) => { note = text; refresh(); };

  // --- the pin ----------------------------------------------------------------------------------
  const pin = L.marker([0, 0], { draggable: true, keyboard: true, autoPan: true, zIndexOffset: 1000,
    icon: L.divIcon({ html: h("span.pin-body", { "aria-hidden": "true" }, h("span.pick-pin")), className: "site-pin pick",
      iconSize: [44, 44], iconAnchor: [22, 22] }) });
  function showPin() {
    if (!current) return;
    pin.setLatLng(at(current));
    if (!map.hasLayer(pin)) {
      pin.addTo(map);
      pin.getElement().addEventListener("keydown", nudge);
    }
    pin.getElement().setAttribute("aria-label", `The site's pin on the map, at ${current.lat.toFixed(6)}, ${current.lon.toFixed(6)}: arrow keys move it`);
  }
  function place(latlng) {
    current = { lat: round6(latlng.lat), lon: round6(latlng.lng) };
    showPin();
    changed();
  }
  function nudge(event) {
    const d = ARROWS[event.key];
    if (!d || event.altKey || event.ctrlKey || event.metaKey) return;
    event.preventDefault();
    event.stopPropagation();
    const step = event.shiftKey ? STEP_PX * 5 : STEP_PX;
    place(map.containerPointToLatLng(map.latLngToContainerPoint(pin.getLatLng()).add([d[0] * step, d[1] * step])));
    if (!map.getBounds().pad(-0.15).contains(pin.getLatLng())) map.panTo(pin.getLatLng());
  }
  pin.on("dragend", () => place(pin.getLatLng()));

  // --- the limit of work ------------------------------------------------------------------------
  const shape = L.featureGroup().addTo(map);
  function drawShape() {
    shape.clearLayers();
    if (closed) {
      shape.addLayer(L.polygon(latLngsOf(closed), { className: "map-low", interactive: false }));
      return;
    }
    if (corners.length >= 2) shape.addLayer(L.polyline(corners.map(at), { className: "map-drawing", interactive: false }));
    corners.forEach((c, i) => {
      const first = i === 0 && corners.length >= 3;
      const corner = L.circleMarker(at(c), { radius: first ? 11 : 7, className: first ? "map-corner first" : "map-corner",
        interactive: first, bubblingMouseEvents: false });
      if (first) corner.on("click", close);
      shape.addLayer(corner);
    });
  }
  function addCorner(latlng) {
    const c = { lat: round6(latlng.lat), lon: round6(latlng.lng) };
    const last = corners[corners.length - 1];
    if (last && last.lat === c.lat && last.lon === c.lon) return;  // a double tap is one corner
    corners.push(c);
    say("");
  }
  function close() {
    if (corners.length < 3) { say("A limit of work needs at least three corners."); return; }
    if (selfCrossing(corners)) { say("Two edges cross: undo the last corners and go round the area without crossing."); return; }
    if (ringAreaSqft(corners) < 1) { say("The corners lie on one line: the area has no size."); return; }
    const ring = corners.map((c) => [c.lon, c.lat]);
    closed = { type: "Polygon", coordinates: [[...ring, ring[0]]] };
    corners = [];
    drawing = false;
    say("");
    changed();
  }
  const start = () => { before = closed; closed = null; corners = []; drawing = true; say(""); if (before) changed(); };
  const cancel = () => { closed = before; corners = []; drawing = false; say(""); changed(); };
  const remove = () => { closed = null; say(""); changed(); };
  const undo = () => { corners.pop(); say(""); };
  const centre = () => addCorner(map.getCenter());

  map.on("click", (e) => { if (drawing) addCorner(e.latlng); else place(e.latlng); });

  const button = (text, onclick, attrs = {}) => h("button.small", { type: "button", onclick, ...attrs }, text);
  function refresh() {
    drawShape();
    box.classList.toggle("drawing", drawing);
    if (drawing) {
      mount(tools, button("Add a corner at the centre", centre),
        button("Undo last corner", undo, { disabled: !corners.length }),
        button("Close the shape", close, { disabled: corners.length < 3, class: "primary" }),
        button("Cancel", cancel));
      mount(status, `Drawing the limit of work: tap each corner in turn (${corners.length} so far), then tap the first corner or “Close the shape”.`,
        note ? h("strong.pick-problem", " ", note) : null);
    } else {
      mount(tools, button(closed ? "Redraw the limit of work" : "Draw the limit of work", start),
        closed ? button("Remove the limit of work", remove) : null);
      mount(status, closed ? describe(closed) : "No limit of work drawn (optional).",
        current ? null : " No point yet: use your location, type the coordinates, or zoom in and tap the map.");
    }
  }

  // --- the first view ---------------------------------------------------------------------------
  const framed = L.latLngBounds([]);
  if (closed) framed.extend(L.polygon(latLngsOf(closed)).getBounds());
  if (current) framed.extend(at(current));
  else near.filter(hasPoint).forEach((p) => framed.extend(at(p)));
  if (current && !closed) map.setView(at(current), ZOOM);
  else if (framed.isValid()) map.fitBounds(framed, { padding: [36, 36], maxZoom: ZOOM });
  else map.setView([20, 0], 2);
  showPin();
  refresh();

  return {
    // A point typed or found by the screen: the pin follows it (no onChange: the screen already knows).
    setPoint(p) {
      if (!hasPoint(p)) return;
      const first = !current;
      current = { lat: round6(p.lat), lon: round6(p.lon) };
      showPin();
      // Leaflet ignores a new view asked for while a zoom is animated: it is asked once the zoom ends.
      const view = () => {
        if (first) map.setView(at(current), Math.max(map.getZoom(), ZOOM));
        else if (!map.getBounds().contains(at(current))) map.panTo(at(current));
      };
      if (map.getPane("mapPane").classList.contains("leaflet-zoom-anim")) map.once("zoomend", view);
      else view();
      refresh();
    },
    value: () => ({ point: current, polygon: closed }),
    destroy,
  };
}
