// Applicant: my permits with their status and what is due next, and one permit in detail with the
// moves the applicant makes (submit, work started, work complete) and its close-out.
import { h, mount, label, fmtDate, localDate, confirmAction, plural } from "../dom.js";
import { documentsSection, exemptionsSection, missingDocuments, DOCUMENT_KINDS } from "../ui/documents.js";
import { townAsksSection, ORDER_WORDS } from "../ui/town_asks.js";
import * as store from "../store.js";
import * as outbox from "../outbox.js";
import { LEVEL_TEXT, levelText } from "../rules/determination.js";
import { onSynced, syncNow } from "../sync.js";
import { costNoticesCard } from "../ui/costs.js";
import { statusChip, pendingChip, ceaseWarning, commencementNotice } from "../ui/status.js";
import { partiesCard } from "../ui/parties.js";
import { listAll } from "../api.js";
import { myNotices } from "../ui/delivery.js";
import { findingOverdue, orderStatus } from "../rules/town.js";

const addYears = (iso, n) => `${Number(iso.slice(0, 4)) + n}${iso.slice(4)}`;

// What the applicant has to do next (R-C2, R-F1, R-F2), with its date where the bylaw sets one.
// `reports`: the permit's final reports as the office server has them (read online; null offline, when
// the report's state is not known and the bylaw's deadline is shown as it stands). `townAsks`: the screen
// shows the orders and findings in full on a card of their own, so here they are one line pointing there.
export function dueItems(permit, notices, findings, orders, reports = null, { townAsks = false } = {}) {
  const due = [];
  const level = permit.review_level;
  const s = permit.status;
  if (s === "draft") {
    const missing = missingDocuments(permit);
    if (level === "not_covered") due.push({ text: "Nothing to file: the bylaw does not cover this project." });
    else if (missing.length) due.push({ text: `Attach the ${missing.map((k) => DOCUMENT_KINDS[k]).join(" and the ")}, then submit the application.` });
    else due.push({ text: "Submit the application for review." });
  }
  if (s === "submitted" || s === "under_review") due.push({ text: "Wait for the Stormwater Authority's decision." });
  if (s === "approved" || s === "issued") due.push({ text: "Tell the office when work starts." });
  if ((s === "active" || s === "work_complete") && level === "administrative_review") {
    const notice = notices[0];
    if (!notice) due.push({ text: "Send a completion notice with photos of the finished work.", action: "completion" });
    else if (notice.status === "returned") due.push({ text: "Your completion notice was returned: correct it and send it again.", action: "completion" });
  }
  if (s === "active") due.push({ text: "Keep the erosion controls working; tell the office when the work is complete." });
  if (s === "work_complete" && level === "land_disturbance_permit" && permit.work_completed_on) {
    const report = (reports || []).find((x) => x.permit_id === permit.id);
    const on = addYears(permit.work_completed_on, 2);
    if (report && report.status === "submitted") due.push({ text: `Your final report was submitted on ${fmtDate(report.submitted_at)}: the Stormwater Authority is reviewing it.` });
    else if (report && report.status === "returned") due.push({ text: "Your final report was returned: correct it and submit it again.", on });
    else if (!report || report.status !== "accepted") due.push({ text: "Final report with the stamped as-built plan.", on });
  }
  const openFindings = findings.filter((x) => x.status === "open");
  const openOrders = orders.filter((x) => orderStatus(x) === "open" || orderStatus(x) === "overdue");
  if (townAsks) {
    const asks = [openOrders.length ? plural(openOrders.length, "order") : null,
      openFindings.length ? plural(openFindings.length, "finding") : null].filter(Boolean);
    const dates = [...openOrders.map((o) => o.deadline), ...openFindings.map((f) => f.due_on)].filter(Boolean).sort();
    const late = openOrders.some((o) => orderStatus(o) === "overdue") || openFindings.some((f) => findingOverdue(f));
    if (asks.length) due.push({ text: `Act on ${asks.join(" and ")}: see “What the Town asks of you”.`, on: dates[0], late });
  } else {
    for (const f of openFindings) due.push({ text: `Corrective action: ${f.required_action || f.description}`, on: f.due_on, late: findingOverdue(f) });
    for (const o of openOrders) {
      due.push({ text: `Order ${o.number || ""}: ${(o.kinds || []).map((k) => ORDER_WORDS[k] || label(k)).join(", ") || "comply"}`, on: o.deadline, late: orderStatus(o) === "overdue" });
    }
  }
  // Soonest first (what is late before what is due), then what has no date.
  return due.map((d, i) => [d, i]).sort(([a, i], [b, j]) => (a.on ? 0 : 1) - (b.on ? 0 : 1) || String(a.on || "").localeCompare(String(b.on || "")) || i - j)
    .map(([d]) => d);
}

// The final reports of these permits, when one of them may have one and the office server answers.
async function reportsFor(permits) {
  if (!navigator.onLine || !permits.some((p) => p.review_level === "land_disturbance_permit" && p.status === "work_complete")) return null;
  const one = permits.length === 1 ? `?permit_id=${encodeURIComponent(permits[0].id)}` : "";
  try { return await listAll(`/api/v1/final-reports${one}`); } catch { return null; }
}

function dueList(items) {
  if (!items.length) return h("p.muted", "Nothing due.");
  return h("ul.plain", items.map((d) => h("li.item", h("div.split", h("span", d.text),
    d.on ? h(`span.chip.${d.late ? "bad" : "warn"}`, `${d.late ? "Overdue" : "Due"} ${fmtDate(d.on)}`) : null))));
}

async function related(permitId) {
  const [notices, findings, orders] = await Promise.all([
    store.recordsFor("completion_notice", permitId), store.recordsFor("finding", permitId), store.recordsFor("order", permitId)]);
  return { notices, findings, orders };
}

export async function applicantScreen(main) {
  const draw = async () => {
    const permits = (await store.allPermits()).sort((a, b) => String(b.updated_at || "").localeCompare(String(a.updated_at || "")));
    const reports = await reportsFor(permits);
    const cards = [];
    for (const p of permits) {
      const r = await related(p.id);
      const due = dueItems(p, r.notices, r.findings, r.orders, reports);
      cards.push(h("li", h("a.row", { href: `#/permit/${p.id}`, dataset: { permit: p.id } },
        h("span.title", (p.site || {}).address || "Application", h("small", [p.number || "No number yet", levelText(p) || ""].join(" · "))),
        h("span.meta", statusChip(p.status), pendingChip(p))),
        due.slice(0, 2).map((d) => h("p.hint", { "data-test": "due" }, "Next: ", d.text, d.on ? ` (by ${fmtDate(d.on)})` : ""))));
    }
    mount(main, h("div.split", h("h1", "My permits"), h("a.button.primary", { href: "#/apply" }, "New application")),
      cards.length ? h("ul.plain.card", cards) : h("p.card.muted", "No applications yet. Start one with “New application”."));
  };
  await draw();
  return onSynced(draw);
}

// Moves the applicant makes. Starting and completing work are declarations to the Town that set
// dates and deadlines, so the app asks once and says what follows.
const ASK = {
  active: { title: "Tell the Town that work has started?", confirm: "Work has started",
    body: ["The permit becomes active from today: inspections may happen without notice, and the erosion controls must be in place and kept working.",
      "This cannot be taken back in the app."] },
  work_complete: { title: "Tell the Town that the work is complete?", confirm: "Work is complete",
    body: ["The completion date is set to today. Then send the completion notice with photos (administrative review) or, within two years, the final report (permit).",
      "This cannot be taken back in the app."] },
};

function move(permit, to, text, extra = {}) {
  return h("button.primary", { type: "button", onclick: async (event) => {
    const button = event.currentTarget;
    if (ASK[to] && !(await confirmAction(ASK[to]))) return;
    button.disabled = true;
    await store.saveLocal("permit", { ...permit, status: to });
    await outbox.queueCall("permit", permit.id, "POST", `/api/v1/permits/${permit.id}/transitions`, { to, ...extra }, text,
      { path: `/api/v1/permits/${permit.id}`, field: "status", values: [to] });
    syncNow("transition");
  } }, text);
}

// The e-mail notices the Town sent this applicant about the permit: read from the server when there
// is a connection (delivery evidence is not part of the synced copy).
async function fillNotices(slot, permitId) {
  try {
    mount(slot, myNotices(await listAll(`/api/v1/notifications?permit_id=${permitId}`)));
  } catch (err) {
    mount(slot, h("section.card", h("h2", "Notices sent to you"),
      h("p.muted", err.offline ? "Connect to the office server to see the e-mail notices the Town sent you." : String(err.message))));
  }
}

export async function permitScreen(main, { id }) {
  const draw = async () => {
    const permit = await store.getPermit(id);
    if (!permit) { mount(main, h("h1", "Not on this device"), h("a", { href: "#/permits" }, "My permits")); return; }
    const r = await related(id);
    const reports = await reportsFor([permit]);
    const det = permit.determination || {};
    const site = permit.site || {};
    const notice = r.notices[0];
    const moves = [];
    const missing = missingDocuments(permit);
    if (permit.status === "draft" && permit.review_level !== "not_covered") {
      moves.push(missing.length ? h("button.primary", { type: "button", disabled: true, "aria-describedby": "submit-needs" }, "Submit for review") : move(permit, "submitted", "Submit for review"));
    }
    const mayStart = (permit.status === "approved" || permit.status === "issued") && !permit.commencement_blocked;
    if (mayStart) moves.push(move(permit, "active", "Work has started", { on: localDate() }));
    if (permit.status === "active") moves.push(move(permit, "work_complete", "Work is complete", { on: localDate() }));
    if (permit.status === "draft") moves.push(h("a.button", { href: `#/apply/${id}` }, "Edit application"));
    if (["approved", "issued", "active", "work_complete"].includes(permit.status)) {
      moves.push(h("a.button", { href: `#/permit/${id}/requests` }, "Inspection requests"));
    }
    const closeout = permit.review_level === "administrative_review" && ["active", "work_complete"].includes(permit.status);
    const noticesSlot = h("div", { "aria-live": "polite" });
    fillNotices(noticesSlot, id);
    mount(main,
      h("p", h("a.back", { href: "#/permits" }, "← My permits")),
      h("div.split", h("h1", site.address || "Application"), h("span", statusChip(permit.status), " ", pendingChip(permit))),
      ceaseWarning(permit),
      commencementNotice(permit),
      h("div.grid.two",
        h("section.card.determination",
          h("h2", permit.number || "Application"),
          h("p.level", levelText(permit) || label(permit.review_level)),
          h("p", det.explanation || ""),
          moves.length ? h("div.actions", moves) : null,
          permit.status === "draft" && permit.review_level !== "not_covered" && missing.length
            ? h("p.banner.warn", { id: "submit-needs", "data-test": "submit-needs" }, `Before you can submit: attach the ${missing.map((k) => DOCUMENT_KINDS[k]).join(" and the ")} (${LEVEL_TEXT[permit.review_level]}).`) : null),
        h("section.card", h("h2", "What is due"), dueList(dueItems(permit, r.notices, r.findings, r.orders, reports, { townAsks: true })))),
      closeout ? h("section.card", h("h2", "Completion notice"),
        notice ? h("p", statusChip(notice.status), " ", pendingChip(notice), ` ${notice.photo_ids.length} photo(s); sent ${fmtDate(notice.submitted_at || notice.device_created_at)}.`)
          : h("p.muted", "None yet."),
        notice && notice.review && notice.review.reasons ? h("div.banner.warn", "Returned: ", notice.review.reasons) : null,
        !notice || notice.status === "returned" ? h("a.button.primary", { href: `#/permit/${id}/completion` }, notice ? "Correct the notice" : "Send completion notice") : null) : null,
      permit.review_level === "land_disturbance_permit" && permit.status === "work_complete"
        ? h("section.card", h("h2", "Final report"), h("p", "The as-built plan stamped by a land surveyor and an engineer, the certification of compliance, the controls on site and the O&M records."),
          h("div.actions", h("a.button.primary", { href: `#/permit/${id}/final-report` }, "Final report")))
        : null,
      townAsksSection(r),
      costNoticesCard(id),
      noticesSlot,
      permit.review_level !== "not_covered" ? documentsSection(permit, draw) : null,
      permit.review_level !== "not_covered" || (permit.exemptions || []).length ? exemptionsSection(permit, draw) : null,
      partiesCard(permit),
      (permit.conditions || []).length ? h("section.card", h("h2", "Conditions"), h("ol", permit.conditions.map((c) => h("li", c.text)))) : null);
  };
  await draw();
  return onSynced(draw);
}
