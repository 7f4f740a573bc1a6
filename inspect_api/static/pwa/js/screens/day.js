// The inspector's day: due and overdue inspections at the assigned sites, worked out on the device from
// what the last sync brought (permits, inspections, findings, storm events, requests), ordered by due
// time and then by distance from where the device is now. Works with no connection at all.
import { h, mount, label } from "../dom.js";
import { bestFix, distanceM, fmtDistance, onFix, locationProblem, startWatching, startWatchingIfAllowed, watching } from "../geo.js";
import { onSynced } from "../sync.js";
import { siteLocation } from "../ui/location.js";
import { dayList, isMissed, isOverdue, keyOf, settingsOf } from "../rules/program.js";
import { owedAtAssignedSites } from "../ui/owed.js";

const UPCOMING_DAYS = 7;

// "Thu, Dec 3": the day as the rest of the screen writes dates.
function dayWords(ms, tz) {
  return new Intl.DateTimeFormat("en-US", { timeZone: tz, weekday: "short", month: "short", day: "numeric" }).format(new Date(ms));
}

function returnedRow(inspection, permit) {
  const site = (permit && permit.site) || {};
  return h("li", h("a.row", { href: `#/site/${inspection.permit_id}/inspection/${inspection.id}`, dataset: { returned: inspection.id } },
    h("span.title", `${label(inspection.kind)} · ${site.address || "Site"}`,
      h("small", [permit && permit.number, inspection.review_comment ? `“${inspection.review_comment}”` : null].filter(Boolean).join(" · "))),
    h("span.meta", h("span.chip.bad", "Returned: correct and submit"))));
}

function when(ms, tz) {
  return new Intl.DateTimeFormat("en-US", { timeZone: tz, weekday: "short", month: "short", day: "numeric",
    hour: "numeric", minute: "2-digit" }).format(new Date(ms));
}

function row(item, permit, tz) {
  const site = (permit && permit.site) || {};
  return h("li", h("a.row", { href: `#/site/${item.permit_id}`, dataset: { permit: item.permit_id, kind: item.kind } },
    h("span.title", `${label(item.kind)} · ${site.address || "Site"}`,
      h("small", [permit && permit.number, item.reason, item.note].filter(Boolean).join(" · "))),
    h("span.meta",
      item.overdue ? h("span.chip.bad", { "data-test": "overdue" }, "Overdue") : null,
      item.binding ? h("span.chip.warn", { "data-test": "due" }, `Due ${when(item.due_at, tz)}`)
        : h("span.chip.info", { "data-test": "due" }, "Before work starts"),
      item.distance_m !== null && item.distance_m !== undefined ? h("span", { "data-test": "distance" }, fmtDistance(item.distance_m)) : null)));
}

export async function dayScreen(main) {
  const list = h("div");
  const fixNote = h("p.hint");
  let state = { items: [], returned: [], permits: new Map(), settings: null };

  async function load() {
    state = await owedAtAssignedSites(Date.now());
    draw();
  }

  function draw() {
    const now = Date.now();
    const here = bestFix();
    const s = settingsOf(state.settings);
    if (!here && !watching()) {
      mount(fixNote, "Distances show once location is on. ",
        h("button.small", { type: "button", onclick: () => { startWatching(); draw(); } }, "Use my location"));
    } else fixNote.textContent = here ? `Sites at the same due time are nearest first (±${Math.round(here.accuracy_m)} m).`
      : locationProblem() || "Waiting for a location fix to order sites by distance.";
    const distanceOf = (id) => distanceM(here, siteLocation(state.permits.get(id) || {}));
    // Overdue (and missed: no longer listed) is judged again now, not when the records were loaded: the
    // list may stay open past a deadline.
    const items = state.items.filter((o) => !isMissed(o, now)).map((o) => ({ ...o, overdue: isOverdue(o, now) }));
    const today = dayList(items, now, state.settings, distanceOf);
    const shown = new Set(today.map(keyOf));
    const soon = dayList(items, now, state.settings, distanceOf, UPCOMING_DAYS).filter((o) => !shown.has(keyOf(o)));
    const overdue = today.filter((o) => o.overdue).length;
    mount(list,
      state.returned.length ? h("h2.section-title", `Returned to you (${state.returned.length})`) : null,
      state.returned.length ? h("ul.plain.card", { "aria-label": "Inspections returned to you", "data-test": "returned" },
        state.returned.map((i) => returnedRow(i, state.permits.get(i.permit_id)))) : null,
      h("h2.section-title", { "data-test": "today-title" }, `Today, ${dayWords(now, s.tz)} (${today.length}${overdue ? `, ${overdue} overdue` : ""})`),
      today.length ? h("ul.plain.card", { "aria-label": "Due today and overdue", "data-test": "today" },
        today.map((o) => row(o, state.permits.get(o.permit_id), s.tz)))
        : h("p.card.muted", state.permits.size ? "Nothing due today at your sites."
          : "No assigned sites on this device yet. Sync while online to fetch them."),
      soon.length ? h("h2.section-title", `Next ${UPCOMING_DAYS} days (${soon.length})`) : null,
      soon.length ? h("ul.plain.card", { "aria-label": "Due in the next days", "data-test": "upcoming" },
        soon.map((o) => row(o, state.permits.get(o.permit_id), s.tz))) : null);
  }

  mount(main, h("h1", "My day"), fixNote, list);
  await load();
  const stopFix = onFix(() => draw());
  startWatchingIfAllowed().then(() => draw());
  const stopSync = onSynced(load);
  const timer = setInterval(draw, 60 * 1000);
  return () => { stopFix(); stopSync(); clearInterval(timer); };
}
