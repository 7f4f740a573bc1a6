// Supervisor: reports from the public (MS4 permit: "receipt and consideration of information submitted
// by the public"). A resident's report is read with its photos and where they were taken, then triaged
// once with an answer the resident reads: linked to a permit or enforcement case near it (a complaint
// inspection becomes due there), made into a new enforcement case, or closed. The reports and their
// photos stay on the office server: the screen works online only, like the other office decisions.
import { h, mount, field, banner, label, fmtTime, confirmAction, select, tellNext, toldNow } from "../dom.js";
import { api, raw, listAll, plain } from "../api.js";
import { distanceM, fmtDistance } from "../geo.js";
import { go } from "../router.js";
import * as store from "../store.js";
import { refreshPermit } from "../ui/office.js";
import { mapFigure, showSitesMap } from "../ui/map.js";
import { leaflet } from "../ui/basemap.js";

const NEEDS_CONNECTION = "Reports from the public are read from the office server. Connect, then open this screen again.";
export const REPORT_STATUS = { received: "New", linked: "Linked to a permit", case_opened: "Case opened", closed: "Closed" };
const CHIP = { received: "warn", linked: "good", case_opened: "good", closed: "info" };
const FILTERS = [["received", "New"], ["linked", "Linked to a permit"], ["case_opened", "Case opened"], ["closed", "Closed"], ["", "All"]];

const statusChip = (r) => h(`span.chip.${CHIP[r.status] || "info"}`, { dataset: { test: "report-status" } }, REPORT_STATUS[r.status] || label(r.status));
const place = (r) => r.address || (r.location ? `${r.location.lat.toFixed(5)}, ${r.location.lon.toFixed(5)}` : "No place given");

export async function publicReportsScreen(main) {
  const told = toldNow();
  const filter = select(FILTERS, "received", { name: "status", "aria-label": "Show reports" });
  const list = h("div", { "aria-live": "polite" });
  // The reports shown that have a point, on a small map above the list; a tap on one opens it.
  const figure = mapFigure({ compact: true, position: false,
    caption: "Squares: where the reports listed below were made (those with a point); tap one to open it. " });
  const mapCard = h("section.card", { hidden: true, dataset: { test: "reports-map" } }, h("h2", "Where they were made"), figure.figure);
  let view = null;
  let gone = false;
  const showOnMap = async (reports) => {
    const placed = reports.filter((r) => r.location).map((r) => ({ id: r.id, site: { address: `${r.reference}: ${place(r)}`, location: r.location } }));
    mapCard.hidden = !placed.length;
    if (!placed.length) return;
    if (view) { view.setSites(placed, new Map(), { fit: true }); return; }
    view = await showSitesMap(figure.box, { sites: placed, position: false, hint: figure.hintId, label: "Map of the reports listed",
      onSiteTap: (id) => go(`/public-reports/${id}`) });
    if (gone) view.destroy();
  };
  const draw = async () => {
    if (!navigator.onLine) { mount(list, banner("warn", NEEDS_CONNECTION)); mapCard.hidden = true; return; }
    let reports;
    try {
      reports = await listAll(`/api/v1/public-reports${filter.value ? `?status=${filter.value}` : ""}`);
    } catch (err) {
      mount(list, banner("error", err.offline ? NEEDS_CONNECTION : plain(err)));
      mapCard.hidden = true;
      return;
    }
    showOnMap(reports).catch(figure.failed);
    mount(list, reports.length ? h("ul.plain.card", { "aria-label": "Reports" }, reports.map((r) => h("li",
      h("a.row", { href: `#/public-reports/${r.id}`, dataset: { report: r.id } },
        h("span.title", place(r), h("small", [r.reference, `received ${fmtTime(r.received_at)}`,
          r.photos.length ? `${r.photos.length} photo${r.photos.length === 1 ? "" : "s"}` : null].filter(Boolean).join(" · ")),
          h("small.clip", r.description)),
        h("span.meta", statusChip(r))))))
      : h("p.card.muted", filter.value === "received" ? "No new reports from the public." : "No reports."));
  };
  filter.addEventListener("change", draw);
  mount(main, h("h1", "Reports from the public"), told,
    h("p.muted", "What residents report at construction sites: read each, then link it to the permit or case it concerns (an inspection becomes due), open a case, or close it. The resident reads your answer."),
    field("Show", filter), mapCard, list);
  await draw();
  return () => { gone = true; if (view) view.destroy(); };
}

// A report's photo, fetched with the sign-in: the small image, opening the viewer on the large one
// (with the report's other photos; a resident's photo takes no markup).
function photoFigure(report, photo, urls) {
  const img = h("img", { alt: "", width: 320, loading: "lazy" });
  const open = h("button.report-photo-open", { type: "button", "aria-label": `Open photo ${photo.position} of the report in the viewer`,
    dataset: { reportPhoto: photo.id }, onclick: async (e) => {
      const opener = e.currentTarget;
      const { openViewer } = await import("../ui/viewer.js");
      const entries = report.photos.map((p) => ({ id: p.id, src: p.display_url, alt: `Photo ${p.position} of the report`,
        facts: [h("p", { dataset: { test: "viewer-time" } }, photoFacts(report, p))] }));
      openViewer(entries, report.photos.indexOf(photo), { opener });
    } }, img);
  raw(photo.small_url).then((r) => r.blob()).then((blob) => { const u = URL.createObjectURL(blob); urls.push(u); img.src = u; })
    .catch(() => { img.alt = `Photo ${photo.position}: could not be fetched`; });
  return h("figure.report-photo", open, h("figcaption.hint", photoFacts(report, photo)));
}

function photoFacts(report, photo) {
  const away = report.location && photo.exif_location ? distanceM(photo.exif_location, report.location) : null;
  return [photo.taken_at ? `Taken ${fmtTime(photo.taken_at)}` : "No camera time",
    photo.exif_location ? (away !== null ? `camera GPS: ${fmtDistance(away)} from the place reported` : "camera GPS kept")
      : "no camera GPS"].join(" · ");
}

function facts(report) {
  const c = report.contact;
  return h("dl.kv",
    h("dt", "Reference"), h("dd", report.reference),
    h("dt", "Received"), h("dd", fmtTime(report.received_at)),
    h("dt", "Seen"), h("dd", report.observed_at ? fmtTime(report.observed_at) : "Not said"),
    h("dt", "Where"), h("dd", report.address || "No address given",
      report.location ? h("span.hint", ` · ${report.location.lat.toFixed(5)}, ${report.location.lon.toFixed(5)}${report.location.accuracy_m ? ` (±${Math.round(report.location.accuracy_m)} m)` : ""}`) : null),
    h("dt", "Language"), h("dd", report.language === "pt" ? "Portuguese" : "English"),
    h("dt", "Resident"), h("dd", report.contact_erased_at ? `Contact details erased ${fmtTime(report.contact_erased_at)}`
      : c ? [c.name, c.email, c.phone].filter(Boolean).join(" · ") || "No contact left" : "No contact left"));
}

function answeredCard(report) {
  return h("section.card", { dataset: { test: "answered" } }, h("h2", "Triaged"),
    h("dl.kv",
      h("dt", "Outcome"), h("dd", statusChip(report)),
      report.permit ? [h("dt", "Permit or case"), h("dd", h("a", { href: `#/site/${report.permit.id}` }, report.permit.number || "Open the site"))] : [],
      h("dt", "Answer to the resident"), h("dd", report.answer || "—"),
      report.note ? [h("dt", "Office note"), h("dd", report.note)] : []));
}

function triageForm(report, redraw) {
  const nearby = report.nearby_permits || [];
  const choices = [...nearby.map((p) => [p.id, `${p.number || "No number"} · ${p.address} · ${fmtDistance(p.distance_m)} (${label(p.status)})`]),
    ["other", "Another permit or case, by its number"]];
  const action = select([["link", "Link it to a permit or case (an inspection becomes due)"], ["open_case", "Open an enforcement case from it"],
    ["close", "Close it: nothing for the Town to do"]], nearby.length ? "link" : "close", { name: "action" });
  const permit = select(choices, choices[0][0], { name: "permit" });
  const number = h("input", { type: "text", name: "number", autocomplete: "off", placeholder: "LDP-2026-0001" });
  const answer = h("textarea", { rows: 3, name: "answer", maxlength: 4000 });
  const note = h("textarea", { rows: 2, name: "note", maxlength: 4000 });
  const local = h("div", { "aria-live": "polite" });
  const numberField = field("Its number", number, "When it is not listed as near the report.");
  const linkFields = h("div", field("Permit or case", permit), numberField);
  const show = () => {
    linkFields.hidden = action.value !== "link";
    numberField.hidden = permit.value !== "other";
  };
  action.addEventListener("change", show);
  permit.addEventListener("change", show);
  // A tap on a permit's marker on the report's map chooses it for the link.
  const choose = (id) => {
    if (!nearby.some((p) => p.id === id)) return;
    action.value = "link";
    permit.value = id;
    show();
    permit.focus();
  };
  const triage = async (event) => {
    event.preventDefault();
    const button = event.submitter || event.currentTarget.querySelector("button[type=submit]");
    if (action.value === "open_case") { go(`/cases/new/report/${report.id}`); return; }
    const problems = [];
    let target = null;
    if (action.value === "link") {
      if (permit.value !== "other") target = nearby.find((p) => p.id === permit.value);
      else {
        const wanted = number.value.trim().toUpperCase();
        const found = wanted && (await store.allPermits()).find((p) => (p.number || "").toUpperCase() === wanted);
        if (!found) problems.push(wanted ? `No permit or case numbered ${wanted} on this device.` : "Give the permit or case number.");
        else target = { id: found.id, number: found.number, address: (found.site || {}).address };
      }
    }
    if (!answer.value.trim()) problems.push("Write the answer the resident reads.");
    if (problems.length) { mount(local, banner("error", problems.map((p) => h("p", p)))); return; }
    const ok = await confirmAction(action.value === "link"
      ? { title: `Link to ${target.number || "this permit"}?`, confirm: "Link the report",
        body: [`${target.address || "The site"}: a complaint inspection becomes due there, and the report is answered.`,
          report.contact && report.contact.email ? "The resident is e-mailed your answer." : "The resident reads your answer with the reference."] }
      : { title: "Close this report?", confirm: "Close the report",
        body: ["Nothing more is done on it; the resident reads your answer.", "A triaged report is not triaged again."] });
    if (!ok) return;
    button.disabled = true;
    try {
      const done = await api(`/api/v1/public-reports/${report.id}/triage`, { method: "POST", body: {
        action: action.value, permit_id: target ? target.id : null, answer: answer.value.trim(), note: note.value.trim() || null,
        version: report.version } });
      if (done.permit) await refreshPermit(done.permit.id).catch(() => null);
      tellNext("ok", action.value === "link" ? `Report ${report.reference} linked to ${target.number || "the permit"}: a complaint inspection is due there.`
        : `Report ${report.reference} closed.`);
      await redraw();
    } catch (err) {
      button.disabled = false;
      mount(local, banner("error", err.offline ? NEEDS_CONNECTION : plain(err)));
    }
  };
  const form = h("form.card", { onsubmit: triage, novalidate: true, dataset: { test: "triage" } }, h("h2", "Triage"),
    field("What the Town does", action), linkFields,
    field("Answer to the resident", answer, "Public: the resident reads it with the reference, and by e-mail if they left one."),
    field("Office note", note, "Not shown to the resident."), local,
    h("div.actions", h("button.primary", { type: "submit" }, "Triage the report")));
  show();
  return { form, choose };
}

// The report's point (and the phone's accuracy around it) with the permits and cases near it: their
// points and limits of work; while the report waits, a tap on one chooses it for the link.
async function reportMap(figure, report, onSiteTap) {
  const nearby = report.nearby_permits || [];
  const sites = nearby.map((p) => ({ id: p.id, number: p.number,
    site: { address: p.address, location: p.location, limit_of_work: p.limit_of_work } }));
  const view = await showSitesMap(figure.box, { sites, position: false, onSiteTap, hint: figure.hintId,
    label: `Map of report ${report.reference} and the permits near it` });
  for (const p of nearby) {
    const pin = figure.box.querySelector(`[data-permit="${p.id}"]`);
    if (pin) pin.setAttribute("aria-label", `${onSiteTap ? "Choose " : ""}${p.number || "No number"}, ${p.address}, ${fmtDistance(p.distance_m)} away`);
  }
  const L = await leaflet();
  const at = [report.location.lat, report.location.lon];
  if (report.location.accuracy_m) {
    L.circle(at, { radius: report.location.accuracy_m, className: "map-accuracy report", interactive: false }).addTo(view.map);
  }
  L.circleMarker(at, { radius: 10, className: "map-report", interactive: false }).addTo(view.map);
  const all = L.latLngBounds([at]);
  for (const p of nearby) if (p.location) all.extend([p.location.lat, p.location.lon]);
  view.map.fitBounds(all, { padding: [40, 40], maxZoom: 18 });
  return view;
}

export async function publicReportScreen(main, { id }) {
  const back = h("p", h("a.back", { href: "#/public-reports" }, "← Reports from the public"));
  const urls = [];
  let view = null;
  let gone = false;
  const draw = async () => {
    if (view) { view.destroy(); view = null; }
    if (!navigator.onLine) { mount(main, back, h("h1", "Report from the public"), banner("warn", NEEDS_CONNECTION)); return; }
    let report;
    try { report = await api(`/api/v1/public-reports/${id}`); } catch (err) {
      mount(main, back, h("h1", "Report from the public"), banner("error", err.offline ? NEEDS_CONNECTION : plain(err)));
      return;
    }
    const told = toldNow();
    if (told) told.dataset.test = "told";
    const waiting = report.status === "received";
    const triage = waiting ? triageForm(report, draw) : null;
    const nearby = report.nearby_permits || [];
    const figure = report.location ? mapFigure({ compact: true, position: false, caption: [
      "Red dot: where the resident reported",
      report.location.accuracy_m ? " (the shaded circle: how exact their phone was)" : "",
      nearby.length ? `. Squares: the ${nearby.length === 1 ? "permit or case" : `${nearby.length} permits and cases`} within 500 m${waiting ? "; tap one to choose it for the link below" : ""}, with their limits of work. `
        : ". No permit or case within 500 m. "].join("") }) : null;
    mount(main, back, h("div.split", h("h1", `Report ${report.reference}`), statusChip(report)), told,
      h("section.card", h("h2", "What the resident saw"), h("p", { dataset: { test: "report-description" } }, report.description), facts(report)),
      figure ? h("section.card", { dataset: { test: "report-map" } }, h("h2", "Where"), figure.figure) : null,
      h("section.card", h("h2", `Photos (${report.photos.length})`),
        report.photos.length ? h("div.photos", report.photos.map((p) => photoFigure(report, p, urls))) : h("p.muted", "None sent.")),
      waiting ? triage.form : answeredCard(report));
    if (figure) {
      reportMap(figure, report, waiting && nearby.length ? triage.choose : null)
        .then((made) => { if (gone || !figure.box.isConnected) made.destroy(); else view = made; }).catch(figure.failed);
    }
  };
  mount(main, back, h("h1", "Report from the public"), h("p.loading", "Loading…"));
  await draw();
  return () => { gone = true; if (view) view.destroy(); urls.forEach((u) => URL.revokeObjectURL(u)); };
}
