// The map: an inspector's assigned sites, the ones due today or overdue labelled as such (the same
// reckoning as the day list, ui/owed.js), or, for the office, every site on this device; each site as
// its point and its limit of work, with the device's position. A tap on a site opens it. The sites in
// view are listed below the map as links, so the map is never the only way to a site. Works offline:
// everything drawn comes from the device's copy (tiles too, when the office configured them).
import { h, mount, plural } from "../dom.js";
import * as store from "../store.js";
import { currentUser } from "../auth.js";
import { go } from "../router.js";
import { onSynced } from "../sync.js";
import { dayList, isMissed, isOverdue } from "../rules/program.js";
import { owedAtAssignedSites } from "../ui/owed.js";
import { showSitesMap, mapFigure, dueWord } from "../ui/map.js";
import { statusChip } from "../ui/status.js";

const LISTED = 100;
const ADDRESS_ORDER = new Intl.Collator();

// The sites to draw and which are due (today or overdue): permit id -> {overdue}.
async function load(supervisor) {
  if (supervisor) return { sites: await store.allPermits(), due: new Map() };
  const now = Date.now();
  const owed = await owedAtAssignedSites(now);
  const items = owed.items.filter((o) => !isMissed(o, now)).map((o) => ({ ...o, overdue: isOverdue(o, now) }));
  const due = new Map();
  for (const o of dayList(items, now, owed.settings, null)) {
    due.set(o.permit_id, { overdue: Boolean(o.overdue || (due.get(o.permit_id) || {}).overdue) });
  }
  return { sites: [...owed.permits.values()], due };
}

function row(permit, due) {
  const word = dueWord(due);
  return h("li", h("a.row", { href: `#/site/${permit.id}`, dataset: { permit: permit.id } },
    h("span.title", (permit.site && permit.site.address) || "Site", h("small", permit.number || "No number yet")),
    h("span.meta", word ? h(`span.chip.${word === "Overdue" ? "bad" : "warn"}`, { "data-test": "due" }, word === "Due" ? "Due today" : word) : null,
      statusChip(permit.status))));
}

export async function mapScreen(main) {
  const supervisor = currentUser().role === "supervisor";
  const figure = mapFigure();
  const list = h("section.card", { "data-test": "map-list" });
  const note = h("p.hint", { "aria-live": "polite" });
  let data = await load(supervisor);
  let view = null;

  const rank = (p) => { const d = data.due.get(p.id); return d ? (d.overdue ? 0 : 1) : 2; };
  function showList(inView) {
    const sorted = [...inView].sort((a, b) => rank(a) - rank(b)
      || ADDRESS_ORDER.compare(String((a.site || {}).address), String((b.site || {}).address)));
    mount(list, h("h2", `Sites in view (${sorted.length})`),
      sorted.length ? h("ul.plain", { "aria-label": "Sites in view on the map" }, sorted.slice(0, LISTED).map((p) => row(p, data.due.get(p.id))))
        : h("p.muted", data.sites.length ? "No site in view: move the map or show all sites."
          : supervisor ? "No sites on this device yet." : "No assigned sites on this device yet. Sync while online to fetch them."),
      sorted.length > LISTED ? h("p.muted", `The first ${LISTED} are listed: zoom in to list the others.`) : null);
  }

  const dueCount = data.due.size;
  mount(main, h("h1", "Map"),
    h("p.muted", supervisor ? "Every site on this device." : `Your assigned sites; ${dueCount ? `${plural(dueCount, "site")} due today or overdue, labelled on the map.` : "none is due today."}`),
    h("section.card.map-card", figure.figure,
      h("div.actions",
        h("button.small", { type: "button", onclick: () => view && view.showAll() }, "Show all sites"),
        h("button.small", { type: "button", onclick: () => {
          if (view && !view.showPosition()) note.textContent = "No location fix yet: the position shows once the device has one.";
        } }, "Show my position")),
      note),
    list);
  try {
    view = await showSitesMap(figure.box, { sites: data.sites, due: data.due, hint: figure.hintId,
      label: supervisor ? "Map of the sites on this device" : "Map of your assigned sites",
      onSiteTap: (id) => go(`/site/${id}`), onView: showList });
  } catch (err) {
    figure.failed(err);
    showList(data.sites);
  }
  const stopSync = onSynced(async () => {
    data = await load(supervisor);
    if (view) view.setSites(data.sites, data.due);
    else showList(data.sites);
  });
  return () => { stopSync(); if (view) view.destroy(); };
}
