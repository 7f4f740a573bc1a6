// The map of active sites, interactive where script runs: each site's limit of work and its point, the
// point a link to the permit page named like the drawing's ("1. Permit N, address: status") and numbered
// as in the list below the map; a tap on the outline opens the permit too. The drawing made on the server
// stays in the page for readers without script, and is put back if the map cannot start.
import { baseMap, data, el, fitSites, hasPoint, limits } from "./livemap.js";

const box = document.querySelector("[data-live-map]");
const figure = box && box.closest("[data-map-figure]");

function siteLink(site) {
  const link = el("a", "live-site");
  link.href = site.href;
  // Named as the drawing's link, after the number it shows (the list's).
  link.setAttribute("aria-label", `${site.n}. ${site.label}`);
  link.append(el("span", "live-dot"), el("span", "live-n", String(site.n)));
  link.dataset.permit = site.number;
  return link;
}

async function show() {
  const sites = (data(box, "sites") || []).filter(hasPoint);
  const { L, map } = await baseMap(box, { describedBy: "map-caption" });
  figure.classList.add("live");
  for (const span of figure.querySelectorAll("[data-drawn-only]")) span.hidden = true;
  for (const span of figure.querySelectorAll("[data-live-only]")) span.hidden = false;
  // The view first: the markers' elements exist once the map has one.
  if (!fitSites(L, map, sites)) map.setView([20, 0], 2);
  limits(L, sites, (site) => window.location.assign(site.href)).addTo(map);
  for (const site of sites) {
    const at = [site.lat, site.lon];
    const marker = L.marker(at, { keyboard: false, riseOnHover: true,
      icon: L.divIcon({ html: siteLink(site), className: "live-pin", iconSize: [44, 44], iconAnchor: [22, 22] }) });
    marker.addTo(map);
    // A site reached with the Tab key is brought into view (the link, not the marker, takes the focus).
    marker.getElement().addEventListener("focusin", () => map.panInside(at, { padding: [44, 44] }));
  }
}

if (box && figure) {
  show().catch(() => {
    box.hidden = true;
    figure.classList.remove("live");
    for (const span of figure.querySelectorAll("[data-drawn-only]")) span.hidden = false;
    for (const span of figure.querySelectorAll("[data-live-only]")) span.hidden = true;
  });
}
