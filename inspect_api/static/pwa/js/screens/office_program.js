// Supervisor: the inspection program and the Town's reports. Storm events (R-I4): record one, or import
// a NOAA Climate Data Online daily CSV with its units, and see which sites then owe a storm-event
// inspection; the MS4 annual report's figures for a period; and the exports for GIS and spreadsheets.
// These read and change the office server's records, so the screen works online only.
import { h, mount, field, banner, fmtDate, fmtTime, confirmAction, select, uuid } from "../dom.js";
import { api, listAll, plain } from "../api.js";
import { fileChooser, saveFile } from "../ui/files.js";
import { townToday } from "../ui/costs.js";

const NEEDS_CONNECTION = "Storm events, reports and exports are read from the office server. Connect, then open this screen again.";
const UNITS = [["standard", "Inches (standard)"], ["metric", "Millimetres (metric)"]];
const EXPORTS = [
  ["/api/v1/exports/inspections.csv", "Inspections (CSV)", "inspections.csv"],
  ["/api/v1/exports/findings.csv", "Findings (CSV)", "findings.csv"],
  ["/api/v1/exports/permits.geojson", "Permits and limits of work (GeoJSON)", "permits.geojson", false],
  ["/api/v1/exports/findings.geojson", "Findings (GeoJSON)", "findings.geojson"],
  ["/api/v1/exports/photos.geojson", "Photos with a location (GeoJSON)", "photos.geojson"],
];

// The local time a datetime-local input holds, sent with the device's offset: the server keeps the instant.
function instant(value) {
  return new Date(value).toISOString();
}

function dueFromStorms(due) {
  const storm = due.filter((d) => d.kind === "storm_event");
  return h("div", { dataset: { test: "storm-due" } }, h("h3", `Sites owing a storm-event inspection (${storm.length})`),
    storm.length ? h("ul.plain", storm.map((d) => h("li", h("a.row", { href: `#/site/${d.permit_id}` },
      h("span.title", d.site_address || d.permit_number || "Site", h("small", `${d.permit_number || ""} · ${d.reason}`)),
      h("span.meta", d.overdue ? h("span.chip.bad", `Overdue since ${fmtTime(d.due_at)}`) : h("span.chip.warn", `Due by ${fmtTime(d.due_at)}`))))))
      : h("p.muted", "No active site owes one now."));
}

function stormCard(events, due, settings, redraw, say) {
  const ended = h("input", { type: "datetime-local", name: "ended_at" });
  const inches = h("input", { type: "text", inputmode: "decimal", name: "inches", autocomplete: "off" });
  const source = h("input", { type: "text", name: "source", maxlength: 200, value: "Town rain gauge" });
  const local = h("div", { "aria-live": "polite" });
  const record = async (event) => {
    event.preventDefault();
    const button = event.submitter || event.currentTarget.querySelector("button[type=submit]");
    const problems = [];
    if (!ended.value) problems.push("Give when the storm ended.");
    if (!/^\d{1,3}(\.\d{1,2})?$/.test(inches.value.trim())) problems.push("Give the rain in inches, at most two decimals, e.g. 0.75.");
    if (!source.value.trim()) problems.push("Say where the figure comes from.");
    if (problems.length) { mount(local, banner("error", problems.map((p) => h("p", p)))); return; }
    const over = Number(inches.value) >= Number(settings.storm_threshold_inches);
    const ok = await confirmAction({ title: "Record this storm?", confirm: "Record storm",
      body: [`${inches.value.trim()} in, ended ${fmtTime(instant(ended.value))} (${source.value.trim()}).`,
        over ? `At or over ${settings.storm_threshold_inches} in: every active site then owes a storm-event inspection (R-I4).`
          : `Under ${settings.storm_threshold_inches} in: no site owes an inspection for it.`] });
    if (!ok) return;
    button.disabled = true;
    try {
      await api("/api/v1/storm-events", { method: "POST", body: { id: uuid(), ended_at: instant(ended.value), inches: inches.value.trim(), source: source.value.trim() } });
      await redraw();
      say(banner("ok", "Storm recorded. The sites that owe an inspection for it are listed below."));
    } catch (err) {
      button.disabled = false;
      mount(local, banner("error", err.offline ? NEEDS_CONNECTION : plain(err)));
    }
  };
  const file = fileChooser("Choose the CSV file", ".csv,text/csv");
  const units = select(UNITS, "standard", { name: "units" });
  const importLocal = h("div", { "aria-live": "polite" });
  const importFile = async (event) => {
    event.preventDefault();
    const button = event.submitter || event.currentTarget.querySelector("button[type=submit]");
    const chosen = file.input.files[0];
    if (!chosen) { mount(importLocal, banner("error", "Choose the NOAA daily CSV file first.")); return; }
    button.disabled = true;
    try {
      const result = await api(`/api/v1/storm-events/import?units=${units.value}`, { method: "POST", body: chosen, headers: { "Content-Type": "text/csv" } });
      await redraw();
      say(banner("ok", `Imported ${result.days_read} days: ${result.created} storms recorded, ${result.updated} updated, ${result.unchanged} already recorded, ${result.below_threshold} days under the threshold.`));
    } catch (err) {
      button.disabled = false;
      mount(importLocal, banner("error", err.offline ? NEEDS_CONNECTION : plain(err)));
    }
  };
  return h("section.card", { dataset: { test: "storms" } }, h("h2", "Storm events"),
    h("p.hint", `A storm of ${settings.storm_threshold_inches} in or more obliges an inspection of every active site within ${settings.storm_window_hours} hours (R-I4).`),
    events.length ? h("ul.plain", events.map((e) => h("li.item", { dataset: { storm: e.id } },
      h("div.split", h("span.label", `${e.inches} in · ${e.rain_day ? fmtDate(e.rain_day) : fmtTime(e.ended_at)}`),
        e.obliges ? h("span.chip.warn", "Inspections owed") : h("span.chip.info", "Under the threshold")),
      h("p.hint", [e.source, e.station].filter(Boolean).join(" · "))))) : h("p.muted", "No storm recorded."),
    dueFromStorms(due),
    h("form", { onsubmit: record, novalidate: true }, h("h3", "Record a storm"),
      field("Ended at", ended), field("Rain (inches)", inches), field("Source", source, "e.g. the Town's gauge, or a NOAA station."),
      local, h("div.actions", h("button.primary", { type: "submit" }, "Record storm"))),
    h("form", { onsubmit: importFile, novalidate: true }, h("h3", "Import NOAA daily rainfall"),
      file.el, field("Units of the file", units, "As the Climate Data Online order was placed: PRCP in inches or in millimetres."),
      importLocal, h("div.actions", h("button", { type: "submit" }, "Import file"))));
}

const MS4_ROWS = [
  ["Applications received", (r) => r.site_plan_reviews.received], ["Applications decided", (r) => r.site_plan_reviews.decided],
  ["Inspections", (r) => r.inspections.total], ["Findings opened", (r) => r.findings.opened], ["Findings closed", (r) => r.findings.closed],
  ["Enforcement actions", (r) => r.enforcement_actions.total], ["Certificates of completion", (r) => r.certificates_of_completion],
];

function reportsCard(urls) {
  const year = Number(townToday().slice(0, 4));
  const from = h("input", { type: "date", name: "from", value: `${year - 1}-07-01` });
  const to = h("input", { type: "date", name: "to", value: `${year}-06-30` });
  const figures = h("div", { "aria-live": "polite", dataset: { test: "ms4-figures" } });
  const range = () => `from=${from.value}&to=${to.value}`;
  const problem = () => (!from.value || !to.value ? "Give the first and the last day of the period." : from.value > to.value ? "The first day comes before the last." : null);
  const show = async (event) => {
    event.preventDefault();
    if (problem()) { mount(figures, banner("error", problem())); return; }
    mount(figures, h("p.loading", "Counting…"));
    try {
      const report = await api(`/api/v1/exports/ms4-annual-report?${range()}`);
      const json = URL.createObjectURL(new Blob([JSON.stringify(report, null, 2)], { type: "application/json" }));
      urls.push(json);
      mount(figures, h("dl.kv", MS4_ROWS.map(([words, value]) => [h("dt", words), h("dd", String(value(report) ?? 0))])),
        h("div.actions", h("a.button", { href: json, download: `ms4-annual-report-${from.value}-${to.value}.json`, dataset: { test: "ms4-download" } }, "Download the report (JSON)")));
    } catch (err) { mount(figures, banner("error", err.offline ? NEEDS_CONNECTION : plain(err))); }
  };
  const exportLocal = h("div", { "aria-live": "polite" });
  const exportButton = ([url, words, name, ranged = true]) => h("button", { type: "button", dataset: { export: name }, onclick: async (e) => {
    if (ranged && problem()) { mount(exportLocal, banner("error", problem())); return; }
    const button = e.currentTarget;
    button.disabled = true;
    try {
      await saveFile(ranged ? `${url}?${range()}` : url, name);
      mount(exportLocal, banner("ok", `${words} downloaded.`));
    } catch (err) { mount(exportLocal, banner("error", err.offline ? NEEDS_CONNECTION : plain(err))); }
    button.disabled = false;
  } }, words);
  return h("section.card", { dataset: { test: "reports" } }, h("h2", "Reports and exports"),
    h("form", { onsubmit: show, novalidate: true }, field("First day", from), field("Last day", to, "The MS4 permit year runs 1 July to 30 June."),
      h("div.actions", h("button.primary", { type: "submit" }, "Show the MS4 annual report")), figures),
    h("h3", "Exports for GIS and spreadsheets"), h("p.hint", "For the period above; permits are exported whole."),
    h("div.actions", EXPORTS.map(exportButton)), exportLocal);
}

export async function officeProgramScreen(main) {
  const urls = [];
  const message = h("div", { "aria-live": "polite" });
  const draw = async () => {
    if (!navigator.onLine) { mount(main, h("h1", "Program and reports"), banner("warn", NEEDS_CONNECTION)); return; }
    let events, due, settings;
    try {
      [events, due, settings] = await Promise.all([api("/api/v1/storm-events?limit=20"), listAll("/api/v1/inspections/due?kind=storm_event"),
        api("/api/v1/inspections/program-settings")]);
    } catch (err) {
      mount(main, h("h1", "Program and reports"), banner("error", err.offline ? NEEDS_CONNECTION : plain(err)));
      return;
    }
    mount(message);
    mount(main, h("h1", "Program and reports"), message,
      stormCard(events, due, settings, draw, (b) => mount(message, b)), reportsCard(urls));
  };
  mount(main, h("h1", "Program and reports"), h("p.loading", "Loading…"));
  await draw();
  return () => urls.forEach((u) => URL.revokeObjectURL(u));
}
