// The Account screen's "Offline maps" card: what of the base map this device keeps for offline days,
// the estimate (tiles and bytes against the office's budget) asked about before a download, the
// download's progress and outcome, and removing the kept tiles.
import { confirmAction, fmtDate, h, mount, plural } from "../dom.js";
import { mapSettings } from "./tiles.js";
import { download, kept, plan, remove, uncovered } from "./offline_tiles.js";

const TITLE = "Offline maps";
const mb = (bytes) => `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
const kb = (bytes) => `${Math.round(bytes / 1024)} kB`;
const zoomText = (zooms) => (zooms.length > 1 && zooms.at(-1) - zooms[0] === zooms.length - 1
  ? `${zooms[0]}–${zooms.at(-1)}` : zooms.join(", "));
const names = (sites) => sites.map((s) => s.name).join("; ");

export function offlineMapsCard() {
  const card = h("section.card", { "data-test": "offline-maps" }, h("h2", TITLE), h("p.hint", "Loading…"));
  load(card);
  return card;
}

async function load(card) {
  const settings = await mapSettings();
  if (!settings.tiles) {
    mount(card, h("h2", TITLE), h("p.hint", { "data-test": "tiles-none" },
      "The office has not set up a base map: maps show the sites on a plain background, online and offline."));
    return;
  }
  await draw(card, settings);
}

async function draw(card, settings, outcome = null) {
  const now = await kept();
  const missing = await uncovered(now);
  const panel = h("div", { "aria-live": "polite", "data-test": "tiles-panel" }, outcome);
  const allowed = settings.offline.budget_bytes > 0 && settings.offline.zooms.length > 0;
  mount(card,
    h("h2", TITLE),
    h("p", "For days without a connection, the app can keep the base map around each of your assigned sites "
      + `(zoom levels ${zoomText(settings.offline.zooms) || "none"}), up to ${mb(settings.offline.budget_bytes)} on this device.`),
    h("p", { "data-test": "tiles-kept" }, now && now.tiles
      ? `Kept on this device: ${plural(now.tiles, "map tile")}, ${mb(now.bytes)}, for ${plural(now.sites.length, "site")}: ${names(now.sites)}. `
        + `Downloaded ${fmtDate(now.at)}.`
      : "No map tiles are kept on this device."),
    now && now.tiles && now.url !== settings.tiles.url ? h("p.hint", { "data-test": "tiles-other-server" },
      "These were kept from the tile server the office used before: download again to keep the current one's.") : null,
    now && now.tiles && missing.length ? h("p.hint", { "data-test": "tiles-uncovered" },
      `Not kept yet for ${names(missing)}: download again to add ${missing.length === 1 ? "it" : "them"}.`) : null,
    allowed ? null : h("p.hint", "The office has not allowed offline maps on devices."),
    h("div.actions",
      allowed ? h("button.primary", { type: "button", "data-test": "tiles-plan", onclick: () => ask(card, settings, panel) },
        now && now.tiles ? "Download offline maps again" : "Download offline maps") : null,
      now && now.tiles ? h("button.danger", { type: "button", "data-test": "tiles-remove", onclick: () => removeAll(card, settings) },
        "Remove offline maps") : null),
    panel);
}

async function ask(card, settings, panel) {
  const planned = await plan(settings);
  if (!planned.sites.length) {
    mount(panel, h("p.hint", "No site assigned to you has a location on this device yet. Sync, then try again."));
    return;
  }
  const over = planned.estimate > planned.budget;
  mount(panel,
    h("p", { "data-test": "tiles-estimate" },
      `About ${plural(planned.tiles.length, "tile")}, about ${mb(planned.estimate)} (at ${kb(planned.average)} a tile), `
      + `for ${plural(planned.sites.length, "site")} at zoom levels ${zoomText(planned.zooms)}. The budget is ${mb(planned.budget)}.`),
    over ? h("div.banner.warn", { "data-test": "tiles-over-budget" },
      "That is more than the budget: the download stops before going over it, and the closest zoom levels of some sites will be missing.") : null,
    h("div.actions",
      h("button.primary", { type: "button", "data-test": "tiles-download", onclick: () => run(card, settings, panel, planned) }, "Download"),
      h("button", { type: "button", onclick: () => mount(panel) }, "Cancel")));
}

async function run(card, settings, panel, planned) {
  const stop = new AbortController();
  const line = h("p", { "data-test": "tiles-progress" }, `Downloading map tiles: 0 of ${planned.tiles.length}…`);
  mount(panel, line, h("div.actions", h("button", { type: "button", onclick: () => stop.abort() }, "Stop")));
  for (const button of card.querySelectorAll("[data-test=tiles-plan], [data-test=tiles-remove]")) button.disabled = true;
  let result;
  try {
    result = await download(settings, planned, { signal: stop.signal,
      onProgress: ({ done, total, bytes }) => { line.textContent = `Downloading map tiles: ${done} of ${total} (${mb(bytes)})…`; } });
  } catch (err) {
    result = { error: err };
  }
  await draw(card, settings, said(result, planned));
}

function said(result, planned) {
  if (result.error) return h("div.banner.error", { "data-test": "tiles-result" }, `The maps could not be kept: ${result.error.message}`);
  const keptText = `${plural(result.tiles, "tile")} of ${result.total} kept (${mb(result.bytes)}).`;
  const missing = result.failed ? ` The tile server had no tile for ${plural(result.failed, "place")}.` : "";
  if (result.stopped === "budget") {
    return h("div.banner.warn", { "data-test": "tiles-result" },
      `Stopped at the budget of ${mb(planned.budget)}: ${keptText} The closest zoom levels are missing for some sites.${missing}`);
  }
  if (result.stopped === "unreachable") {
    return h("div.banner.warn", { "data-test": "tiles-result" },
      `The tile server could not be reached (no connection, or it does not let this app download tiles): ${keptText} `
      + `Try again with a connection.${missing}`);
  }
  if (result.stopped === "cancelled") return h("p", { "data-test": "tiles-result" }, `Stopped: ${keptText}`);
  return h(missing ? "div.banner.warn" : "div.banner.ok", { "data-test": "tiles-result" },
    `Offline maps ready: ${keptText}${missing}`);
}

async function removeAll(card, settings) {
  const sure = await confirmAction({ title: "Remove offline maps?", danger: true, confirm: "Remove offline maps",
    body: "The map tiles kept on this device are deleted. Maps still show the sites, and the base map while online." });
  if (!sure) return;
  await remove();
  await draw(card, settings, h("p", { "data-test": "tiles-result" }, "Offline maps removed from this device."));
}
