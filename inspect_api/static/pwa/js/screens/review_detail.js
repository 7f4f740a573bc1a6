// Supervisor: an inspection in full (checklist, notes, findings with due dates, samples, photos on
// the site map) and the decision: approve, or return to the inspector with comments (R-I5).
import { h, mount, field, label, fmtTime, fmtDate, confirmAction, tellNext } from "../dom.js";
import { fetchedLink } from "../ui/files.js";
import * as store from "../store.js";
import * as outbox from "../outbox.js";
import { api, listAll } from "../api.js";
import { go } from "../router.js";
import { syncNow } from "../sync.js";
import { siteMap, mapLegend } from "../ui/sitemap.js";
import { thumb, photoFacts } from "../ui/photos.js";
import { statusChip, ceaseWarning } from "../ui/status.js";
import { readingText } from "../ui/readings.js";

async function load(id) {
  if (navigator.onLine) {
    try {
      const inspection = await api(`/api/v1/inspections/${id}`);
      const [permit, photos, samples] = await Promise.all([
        api(`/api/v1/permits/${inspection.permit_id}`),
        listAll(`/api/v1/photos?parent_type=inspection&parent_id=${id}`),
        listAll(`/api/v1/samples?permit_id=${inspection.permit_id}`)]);
      return { inspection, permit, photos, samples };
    } catch (err) {
      if (!err.offline) throw err;
    }
  }
  const inspection = await store.getRecord("inspection", id);
  if (!inspection) return null;
  const photos = (await store.allOf("photo")).filter((p) => p.parent_id === id);
  return { inspection, permit: await store.getPermit(inspection.permit_id), photos, samples: await store.recordsFor("sample", inspection.permit_id) };
}

function checklistTable(inspection, numbers, templateItems) {
  const labels = new Map((templateItems || []).map((i) => [i.key, i.label]));
  const items = (inspection.checklist && inspection.checklist.items) || [];
  return h("table", h("thead", h("tr", h("th", "Item"), h("th", "Answer"), h("th", "Note"), h("th", "Photos"))),
    h("tbody", items.map((a) => h("tr", { dataset: { item: a.key } },
      h("td", labels.get(a.key) || label(a.key)),
      h("td", h(`span.chip.${a.answer === "deficient" ? "bad" : a.answer === "ok" ? "good" : "info"}`, a.answer === "n/a" ? "N/A" : label(a.answer))),
      h("td", a.note || ""),
      h("td", (a.photo_ids || []).map((pid) => `#${numbers.get(pid) || "?"}`).join(" "))))));
}

function sameDay(a, b) { return String(a || "").slice(0, 10) === String(b || "").slice(0, 10); }

export async function reviewDetailScreen(main, { id }) {
  mount(main, h("p.loading", "Loading…"));
  const data = await load(id);
  if (!data) { mount(main, h("h1", "Inspection not available offline"), h("a", { href: "#/review" }, "Back to the queue")); return; }
  const { inspection, permit, photos, samples } = data;
  const urls = [];
  const site = (permit && permit.site) || {};
  const numbers = new Map(photos.map((p, i) => [p.id, i + 1]));
  const mapPhotos = photos.filter((p) => p.location).map((p) => ({ id: p.id, n: numbers.get(p.id), lat: p.location.lat, lon: p.location.lon,
    accuracy_m: p.location.source === "device" && p.device_gps ? p.device_gps.accuracy_m : null, far: p.far_from_site }));
  const template = (await store.templates()).find((t) => t.key === (inspection.checklist || {}).template && t.version === (inspection.checklist || {}).template_version);
  const comment = h("textarea", { rows: 3, name: "comment" });
  const message = h("div", { "aria-live": "polite" });
  const decide = async (decision) => {
    if (decision === "returned" && !comment.value.trim()) { mount(message, h("div.banner.error", "Say what to change when returning an inspection.")); return; }
    // R-I5: an approved inspection is a record; its findings go to the applicant and the owner.
    const findings = (inspection.findings || []).length;
    if (decision === "approved" && !(await confirmAction({ title: "Approve this inspection?", confirm: "Approve",
      body: [findings ? `Its ${findings === 1 ? "finding goes" : `${findings} findings go`} to the applicant and the owner with the dates to correct them.`
        : "It becomes part of the permit's record, seen by the applicant.", "An approved inspection is not edited afterwards."] }))) return;
    await outbox.queueCall("inspection", id, "POST", `/api/v1/inspections/${id}/review`,
      { decision, comment: comment.value.trim() || null, version: inspection.version }, decision === "approved" ? "Approving an inspection" : "Returning an inspection",
      { path: `/api/v1/inspections/${id}`, field: "status", values: [decision] });
    await syncNow("review");
    const what = decision === "approved" ? "Inspection approved" : "Inspection returned to the inspector";
    const where = site.address ? ` (${site.address})` : "";
    tellNext("ok", navigator.onLine ? `${what}${where}.` : `${what}${where} on this device: the decision is sent when the connection is back.`);
    go("/review");
  };
  const w = inspection.weather || {};
  const daySamples = samples.filter((s) => sameDay(s.sampled_at, inspection.started_at));
  mount(main,
    h("p", h("a.back", { href: "#/review" }, "← Inspections to review")),
    h("div.split", h("h1", `${label(inspection.kind)} inspection — ${site.address || ""}`), statusChip(inspection.status)),
    ceaseWarning(permit),
    h("div.grid.two",
      h("section.card",
        h("h2", permit ? permit.number || "Permit" : "Permit"),
        h("dl.kv",
          h("dt", "Started"), h("dd", fmtTime(inspection.started_at)),
          h("dt", "Ended"), h("dd", fmtTime(inspection.ended_at)),
          h("dt", "Weather"), h("dd", [w.conditions, w.temperature_f != null ? `${w.temperature_f} °F` : null, w.rainfall_in_24h != null ? `${w.rainfall_in_24h} in rain / 24 h` : null].filter(Boolean).join(", ") || "—"),
          h("dt", "Phase"), h("dd", inspection.phase || "—"),
          h("dt", "Location"), h("dd", inspection.location ? `±${Math.round(inspection.location.accuracy_m || 0)} m` : "—"),
          h("dt", "Disturbance seen"), h("dd", inspection.disturbance_observed ? "Yes" : "No")),
        inspection.notes ? h("p", h("strong", "Notes: "), inspection.notes) : null,
        h("div.actions", fetchedLink(`/api/v1/inspections/${id}/report.pdf`, "Inspection report (PDF)",
          `inspection-${(permit && permit.number) || id}.pdf`, urls, { test: "report-pdf" }))),
      h("section.card", h("h2", "Site map"),
        siteMap({ site: site.location, polygon: site.limit_of_work, inspection: inspection.location, photos: mapPhotos }), mapLegend())),
    h("section.card", h("h2", "Checklist"), checklistTable(inspection, numbers, template && template.items)),
    h("section.card", h("h2", `Findings (${(inspection.findings || []).length})`),
      (inspection.findings || []).length ? h("ul.plain", inspection.findings.map((f) => h("li.item",
        h("div.split", h("span.label", f.description), h("span.chip.warn", `Due ${fmtDate(f.due_on)}`)),
        h("p.muted", [f.severity ? `${label(f.severity)} severity` : null, f.required_action].filter(Boolean).join(" · "))))) : h("p.muted", "None.")),
    daySamples.length ? h("section.card", h("h2", "Samples that day"), h("ul", daySamples.map((s) => h("li",
      (s.parameters || []).map(readingText).join(", "),
      (s.exceedances || []).length ? h("span.chip.bad", " exceeds action level") : null)))) : null,
    h("section.card", h("h2", `Photos (${photos.length})`),
      h("div.photos", photos.map((p) => h("div", { dataset: { photoCard: p.id } }, h("strong", `#${numbers.get(p.id)}`), thumb(p.id), photoFacts(p))))),
    inspection.status === "submitted" ? h("section.card", h("h2", "Decision"),
      field("Comments for the inspector", comment, "Required when returning."), message,
      h("div.actions", h("button.primary", { type: "button", onclick: () => decide("approved") }, "Approve"),
        h("button.danger", { type: "button", onclick: () => decide("returned") }, "Return with comments"))) : null);
  return () => urls.forEach((u) => URL.revokeObjectURL(u));
}
