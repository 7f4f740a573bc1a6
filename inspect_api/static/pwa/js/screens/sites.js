// Sites: the inspector's assigned sites first, then every other permit (read-only), with search
// and the distance from where the device is now.
import { h, mount, label } from "../dom.js";
import * as store from "../store.js";
import { bestFix, distanceM, fmtDistance, onFix, locationProblem, startWatching, startWatchingIfAllowed, watching } from "../geo.js";
import { onPulled, onSynced, onSyncState } from "../sync.js";
import { statusChip } from "../ui/status.js";
import { siteLocation } from "../ui/location.js";
import { currentUser } from "../auth.js";

// The order localeCompare gives, made once (localeCompare builds a collator per call).
const ADDRESS_ORDER = new Intl.Collator();

function matches(permit, q) {
  if (!q) return true;
  const site = permit.site || {};
  const hay = [permit.number, site.address, site.parcel_id, permit.owner && permit.owner.name, permit.proposed_use, permit.status]
    .filter(Boolean).join(" ").toLowerCase();
  return q.toLowerCase().split(/\s+/).every((word) => hay.includes(word));
}

function row(permit, here) {
  const d = distanceM(here, siteLocation(permit));
  return h("li", h("a.row", { href: `#/site/${permit.id}`, dataset: { permit: permit.id } },
    h("span.title", (permit.site && permit.site.address) || "Site", h("small", [permit.number || "No number yet", label(permit.review_level)].join(" · "))),
    h("span.meta",
      permit.cease_and_desist ? h("span.chip.bad", "Cease and desist") : null,
      statusChip(permit.status),
      d !== null ? h("span", { "data-test": "distance" }, fmtDistance(d)) : null)));
}

export async function sitesScreen(main) {
  const search = h("input", { type: "search", placeholder: "Search address, number, owner…", "aria-label": "Search sites" });
  const list = h("div");
  const fixNote = h("p.hint");
  // During a first sync the list fills in page by page (onPulled); the note says why it grows.
  const syncNote = h("p.banner.info", { "data-test": "first-sync-note", hidden: true },
    "The first sync is still running: sites appear here as they arrive, and you can open any listed one now.");
  let permits = [];
  let assigned = new Set();
  const supervisor = Boolean(currentUser() && currentUser().role === "supervisor");

  async function load() {
    permits = await store.allPermits();
    assigned = new Set((await store.assignedSites()).map((s) => s.permit_id));
    draw();
  }

  // While pages land: reading every permit back holds the permits store, which the next page's
  // write waits for. Only pages that brought permits or assignments count; one reload at a time,
  // after a pause of at least four times what the last one cost, so the list never takes more than
  // a fifth of the time the sync has. What a skipped call brought waits for the next one.
  let reloading = false;
  let nextAt = 0;
  let stale = false;
  async function reloadWhilePulling(entities) {
    if (entities.has("permit") || entities.has("assignment")) stale = true;
    if (!stale || reloading || Date.now() < nextAt) return;
    stale = false;
    reloading = true;
    const started = Date.now();
    try { await load(); } finally {
      reloading = false;
      nextAt = Date.now() + 4 * (Date.now() - started);
    }
  }

  function draw() {
    const here = bestFix();
    if (!here && !watching()) {
      mount(fixNote, "Distances show once location is on. ",
        h("button.small", { type: "button", onclick: () => { startWatching(); draw(); } }, "Use my location"));
    } else fixNote.textContent = here ? `Distances from your position (±${Math.round(here.accuracy_m)} m).`
      : locationProblem() || "Waiting for a location fix to show distances.";
    const q = search.value.trim();
    // Distance and address once per permit, then one sort: a county's 10,000 permits sorted with a
    // distance and a localeCompare per comparison took seconds a draw.
    const keyed = permits.filter((p) => matches(p, q))
      .map((p) => ({ p, d: distanceM(here, siteLocation(p)) ?? 1e12, a: String(p.site && p.site.address) }));
    const byDistance = (x, y) => x.d - y.d || ADDRESS_ORDER.compare(x.a, y.a);
    if (supervisor) {
      // The office is assigned no site: one list of every permit, nearest first, no "assigned" split.
      const all = keyed.sort(byDistance).map((k) => k.p);
      mount(list, h("h2.section-title", `Permits (${all.length})`),
        all.length ? h("ul.plain.card", { "aria-label": "Permits" }, all.slice(0, 200).map((p) => row(p, here)))
          : h("p.card.muted", permits.length ? "No permit matches." : "No permits on this device yet."),
        all.length > 200 ? h("p.muted", "The nearest 200 are shown: search to find another.") : null);
      return;
    }
    const mine = keyed.filter((k) => assigned.has(k.p.id)).sort(byDistance).map((k) => k.p);
    const others = keyed.filter((k) => !assigned.has(k.p.id)).sort(byDistance).map((k) => k.p);
    mount(list,
      h("h2.section-title", `Assigned to you (${mine.length})`),
      mine.length ? h("ul.plain.card", { "aria-label": "Assigned sites" }, mine.map((p) => row(p, here)))
        : h("p.card.muted", permits.length ? "No assigned site matches."
          : !syncNote.hidden ? "No sites have arrived yet." : "No sites on this device yet. Sync while online to fetch your assigned sites."),
      others.length ? h("h2.section-title", `Other permits (${others.length}, view only)`) : null,
      others.length ? h("ul.plain.card", { "aria-label": "Other permits" }, others.slice(0, 200).map((p) => row(p, here))) : null);
  }

  search.addEventListener("input", draw);
  // Supervisors open enforcement cases for land disturbed with no application (R-O0).
  const office = supervisor
    ? h("a.button", { href: "#/cases/new" }, "Open an enforcement case") : null;
  mount(main, office ? h("div.split", h("h1", "Sites"), office) : h("h1", "Sites"), syncNote, h("div.search", search), fixNote, list);
  const stopState = onSyncState((s) => { syncNote.hidden = !(s.running && s.firstSync); });
  await load();
  const stopFix = onFix(() => draw());
  startWatchingIfAllowed().then(() => draw());
  const stopSync = onSynced(load);
  const stopPulled = onPulled(reloadWhilePulling);
  return () => { stopFix(); stopSync(); stopPulled(); stopState(); };
}
