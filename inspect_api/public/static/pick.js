// The report form's map, where script runs: a tap on the map puts the pin there, the pin can be dragged,
// or, with a keyboard, moved with the arrow keys once it has the focus, or put at the map's centre with
// a button after moving the map. The pin fills the form's latitude and longitude (what the server
// takes; without script a resident types them or an address), and follows them when they are typed or
// filled by "Use my location" (locate.js announces that with a change event). The active sites show
// as outlines so a resident finds the site they mean even on a plain background.
import { baseMap, data, el, fitSites, hasPoint, leaflet, limits } from "./livemap.js";

const wrap = document.querySelector("[data-pick]");
const ZOOM = 17;
const STEP_PX = 10;  // an arrow key moves the pin this far on the screen; five times as far with Shift
const ARROWS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
const round6 = (v) => Math.round(v * 1e6) / 1e6;
const fill = (template, point) => template.replace("{lat}", point.lat.toFixed(6)).replace("{lon}", point.lon.toFixed(6));

function typed(lat, lon) {
  const point = { lat: Number.parseFloat(lat.value), lon: Number.parseFloat(lon.value) };
  return hasPoint(point) && Math.abs(point.lat) <= 90 && Math.abs(point.lon) <= 180 ? point : null;
}

async function start() {
  const box = wrap.querySelector("[data-pick-map]");
  const status = wrap.querySelector("[data-pick-status]");
  const centre = wrap.querySelector("[data-pick-centre]");
  const lat = document.getElementById("lat");
  const lon = document.getElementById("lon");
  const accuracy = document.getElementById("accuracy_m");
  await leaflet(box);
  wrap.hidden = false;  // shown before the map starts: it measures its box
  const { L, map } = await baseMap(box, { describedBy: "pick-help" });
  const sites = (data(box, "sites") || []).filter(hasPoint);
  // The first view before any layer (Leaflet draws a layer against the view): the point already in the
  // form (from a permit's page, or sent back with a mistake), else the active sites, else the world.
  const first = typed(lat, lon);
  if (first) map.setView([first.lat, first.lon], ZOOM);
  else if (!fitSites(L, map, sites)) map.setView([20, 0], 2);
  limits(L, sites).addTo(map);
  for (const site of sites) L.circleMarker([site.lat, site.lon], { radius: 6, className: "live-ref", interactive: false }).addTo(map);

  let current = null;
  const pin = L.marker([0, 0], { draggable: true, keyboard: true, autoPan: true, zIndexOffset: 1000,
    icon: L.divIcon({ html: el("span", "pick-pin"), className: "pick-marker", iconSize: [44, 44], iconAnchor: [22, 22] }) });

  function showPin() {
    pin.setLatLng([current.lat, current.lon]);
    if (!map.hasLayer(pin)) {
      pin.addTo(map);
      pin.getElement().addEventListener("keydown", nudge);
    }
    pin.getElement().setAttribute("aria-label", fill(box.dataset.pin, current));
  }

  // The pin put by the map (a tap, a drag, the keys, the centre button): the form's fields follow, and
  // the phone's accuracy, which was of another point, is dropped.
  function place(latlng) {
    current = { lat: round6(latlng.lat), lon: round6(latlng.lng) };
    lat.value = current.lat.toFixed(6);
    lon.value = current.lon.toFixed(6);
    accuracy.value = "";
    showPin();
    status.textContent = fill(box.dataset.placed, current);
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

  // A point typed, or filled in from the phone: the pin goes there and the map centres on it.
  function follow() {
    const point = typed(lat, lon);
    if (!point) return;
    current = { lat: round6(point.lat), lon: round6(point.lon) };
    showPin();
    map.setView([current.lat, current.lon], Math.max(map.getZoom() || 0, ZOOM));
  }

  map.on("click", (event) => place(event.latlng));
  pin.on("dragend", () => place(pin.getLatLng()));
  centre.addEventListener("click", () => place(map.getCenter()));
  lat.addEventListener("change", follow);
  lon.addEventListener("change", follow);

  if (first) follow();
}

if (wrap) {
  start().catch(() => { wrap.hidden = true; });
}
