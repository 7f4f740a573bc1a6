// Supervisor: the applications waiting for a decision, and one application decided in full (R-C2):
// submitted -> under review -> approved (administrative review, confirmed exemption) / issued
// (land disturbance permit) / denied, each move with its reason; the determination, the documents
// the review level needs, and each exemption claim with its evidence, accepted or rejected (R-B1).
// These are office decisions against the server's current record, so they are made online only.
import { h, mount, field, banner, label, fmtDate, fmtTime, money, confirmAction } from "../dom.js";
import { api, listAll, plain } from "../api.js";
import { LEVEL_TEXT, EXEMPTION_LABELS, levelText } from "../rules/determination.js";
import { statusChip } from "../ui/status.js";
import { projectCard, securityCard } from "../ui/office.js";
import { missingDocuments, documentItem, exemptionEvidence, DOCUMENT_KINDS } from "../ui/documents.js";
import { mapFigure, showSitesMap } from "../ui/map.js";

const NEEDS_CONNECTION = "Deciding applications needs a connection to the office server. Connect, then open this screen again.";
const WAITING = "submitted,under_review";

function offlineView(main, title) {
  mount(main, h("h1", title), banner("warn", NEEDS_CONNECTION));
}

export async function applicationsScreen(main) {
  if (!navigator.onLine) { offlineView(main, "Applications"); return; }
  mount(main, h("h1", "Applications"), h("p.loading", "Loading…"));
  let list;
  try {
    list = await listAll(`/api/v1/permits?status=${WAITING}`);
  } catch (err) {
    if (err.offline) { offlineView(main, "Applications"); return; }
    mount(main, h("h1", "Applications"), banner("error", plain(err)));
    return;
  }
  list.sort((a, b) => String(a.submitted_at || a.created_at).localeCompare(String(b.submitted_at || b.created_at)));
  mount(main, h("h1", "Applications"),
    h("p.muted", "Submitted applications and those under review, oldest first."),
    list.length ? h("ul.plain.card", list.map((p) => h("li", h("a.row", { href: `#/application/${p.id}`, dataset: { application: p.id } },
      h("span.title", (p.site || {}).address || "Application",
        h("small", [p.number || "No number", levelText(p) || label(p.review_level), `submitted ${fmtDate(p.submitted_at)}`].join(" · "))),
      h("span.meta", missingDocuments(p).length ? h("span.chip.warn", "Documents missing") : null,
        (p.parcel_flag || []).length ? h("span.chip.warn", "Parcel shared with another application") : null, statusChip(p.status))))))
      : h("p.card.muted", "No application waits for a decision."));
}

async function load(id) {
  const [permit, events] = await Promise.all([api(`/api/v1/permits/${id}`), api(`/api/v1/permits/${id}/events`)]);
  // R-A7: the other open applications on the parcel, named on the card that links or separates them.
  // "other" stands for one the caller may not see (staff see every id): there is nothing to fetch.
  const named = (permit.parcel_flag || []).filter((other) => other !== "other");
  const flagged = await Promise.all(named.map((other) => api(`/api/v1/permits/${other}`).catch(() => null)));
  return { permit, events, flagged: flagged.filter(Boolean) };
}

function exemptionCard(permit, claim, run) {
  const reason = h("textarea", { rows: 2, name: "exemption-reason" });
  const local = h("div", { "aria-live": "polite" });
  const decide = (decision) => async (event) => {
    const button = event.currentTarget;
    if (decision === "rejected" && !reason.value.trim()) { mount(local, banner("error", "Say why the claim is rejected.")); return; }
    // R-B2: an accepted claim makes the project exempt; a rejected one leaves it to the review it needs.
    const what = `${claim.kind}: ${EXEMPTION_LABELS[claim.kind] || ""}`;
    const ok = await confirmAction(decision === "accepted"
      ? { title: "Accept this exemption claim?", confirm: "Accept claim",
        body: [`${what}. The applicant is told; the project is then exempt under this claim unless something else brings it under Part 3.`] }
      : { title: "Reject this exemption claim?", confirm: "Reject claim", danger: true,
        body: [`${what}. The applicant is told, with your reason; the application is then reviewed at the level its area and use require.`] });
    if (!ok) return;
    run(button, () => api(`/api/v1/permits/${permit.id}/exemptions/${claim.id}/decision`,
      { method: "POST", body: { decision, reason: reason.value.trim() || null } }), local,
      `Exemption claim ${claim.kind} ${decision}: the applicant is told.`);
  };
  const chip = claim.status === "accepted" ? "good" : claim.status === "rejected" ? "bad" : "info";
  const open = claim.status === "claimed" && ["submitted", "under_review"].includes(permit.status);
  return h("li.item", { dataset: { exemption: claim.id } },
    h("div.split", h("span.label", `${claim.kind}: ${EXEMPTION_LABELS[claim.kind] || ""}`), h(`span.chip.${chip}`, label(claim.status))),
    exemptionEvidence(claim, permit.documents),
    claim.decision_reason ? h("p", h("strong", "Reason: "), claim.decision_reason) : null,
    open ? [field("Reason for the applicant", reason, "Required when rejecting."), local,
      h("div.actions", h("button.primary", { type: "button", onclick: decide("accepted") }, "Accept claim"),
        h("button.danger", { type: "button", onclick: decide("rejected") }, "Reject claim"))] : null);
}

function documentsCard(permit) {
  const missing = missingDocuments(permit);
  return h("section.card", { "data-test": "review-documents" }, h("h2", `Documents (${(permit.documents || []).length})`),
    missing.length ? banner("warn", `Missing for ${LEVEL_TEXT[permit.review_level] || "this review"}: `, missing.map((k) => DOCUMENT_KINDS[k]).join("; "), ".") : null,
    (permit.documents || []).length ? h("ul.plain", permit.documents.map((d) => documentItem(d, { added: true })))
      : h("p.muted", "No documents attached."));
}

// The decisions R-C2 offers a supervisor from the application's status and review level.
export function decisionsFor(permit) {
  if (permit.status === "submitted") return [["under_review", "Start the review", false]];
  if (permit.status !== "under_review") return [];
  const out = [];
  if (permit.review_level === "administrative_review" || permit.review_level === "exempt") out.push(["approved", "Approve", false]);
  if (permit.review_level === "land_disturbance_permit") out.push(["issued", "Issue the permit", false]);
  out.push(["denied", "Deny", true]);
  return out;
}

const CONFIRM = {
  approved: (p) => ({ title: "Approve this application?", confirm: "Approve", body: [`${(p.site || {}).address}: ${LEVEL_TEXT[p.review_level]} approved. The applicant may start work once any bond is posted.`, "A decision cannot be taken back in the app."] }),
  issued: (p) => ({ title: "Issue the land disturbance permit?", confirm: "Issue the permit", body: [`${(p.site || {}).address}: permit ${p.number || ""} is issued. The applicant may start work once any bond is posted.`, "A decision cannot be taken back in the app."] }),
  denied: (p) => ({ title: "Deny this application?", confirm: "Deny", danger: true, body: [`${(p.site || {}).address}: the application is denied with the reason you gave. The applicant must file a new application to go on.`] }),
};

const DONE = { under_review: "Review started.", approved: "Application approved: the applicant is told.",
  issued: "Permit issued: the applicant is told.", denied: "Application denied: the applicant is told, with your reason." };

function decisionCard(permit, run) {
  const choices = decisionsFor(permit);
  if (!choices.length) return null;
  const reason = h("textarea", { rows: 3, name: "decision-reason" });
  const local = h("div", { "aria-live": "polite" });
  reason.addEventListener("input", () => mount(local));
  const decide = (to) => async (event) => {
    const button = event.currentTarget;
    const needsReason = to !== "under_review";
    if (needsReason && !reason.value.trim()) { mount(local, banner("error", "Give the reason for the decision; it is recorded with it and the applicant sees it.")); return; }
    if (CONFIRM[to] && !(await confirmAction(CONFIRM[to](permit)))) return;
    run(button, () => api(`/api/v1/permits/${permit.id}/transitions`, { method: "POST",
      body: { to, reason: reason.value.trim() || null, version: permit.version } }), local, DONE[to]);
  };
  const pendingClaims = (permit.exemptions || []).filter((e) => e.status === "claimed").length;
  // R-C1: an approval or permit is decided on its plans; the server refuses one without them on file.
  const plans = permit.status === "under_review" ? missingDocuments(permit) : [];
  const onPlans = (to) => to === "approved" || to === "issued";
  return h("section.card", { "data-test": "decision" }, h("h2", "Decision"),
    permit.status === "under_review" && pendingClaims ? banner("info", `${pendingClaims} exemption claim${pendingClaims === 1 ? "" : "s"} still to accept or reject.`) : null,
    plans.length ? h("div", { "data-test": "decision-needs" }, banner("warn", `${permit.review_level === "land_disturbance_permit" ? "A permit is issued" : "An administrative review is approved"} on its plan: record the `,
      plans.map((k) => DOCUMENT_KINDS[k].charAt(0).toLowerCase() + DOCUMENT_KINDS[k].slice(1)).join(" and the "),
      " on file first (a paper plan delivered to the office counts).")) : null,
    permit.status === "under_review" ? field("Reason for the decision", reason, "Required. Recorded with the decision; the applicant sees it.") : null,
    local, h("div.actions", choices.map(([to, text, danger]) => h(`button.${danger ? "danger" : "primary"}`,
      { type: "button", dataset: { to }, disabled: onPlans(to) && plans.length > 0, onclick: decide(to) }, text))));
}

function historyCard(events) {
  if (!events.length) return null;
  return h("section.card", h("h2", "History"), h("ul.plain", events.map((e) => h("li.item",
    h("div.split", h("span", e.from_status ? `${label(e.from_status)} → ${label(e.to_status)}` : label(e.to_status)), h("span.muted", fmtTime(e.at))),
    e.reason ? h("p.muted", e.reason) : null))));
}

export async function applicationDetailScreen(main, { id }) {
  const message = h("div", { "aria-live": "polite" });
  let siteMap = null;
  let gone = false;
  const draw = async () => {
    if (!navigator.onLine) { offlineView(main, "Application"); return; }
    let data;
    try { data = await load(id); } catch (err) {
      if (err.offline) { offlineView(main, "Application"); return; }
      mount(main, h("h1", "Application"), banner("error", plain(err)));
      return;
    }
    const { permit, events } = data;
    // `done`: what happened, said at the top of the redrawn screen.
    const run = async (button, call, where = message, done = null) => {
      button.disabled = true;
      try {
        await call();
        mount(message, done ? banner("ok", done) : null);
        await draw();
      } catch (err) {
        button.disabled = false;
        mount(where, banner("error", err.offline ? NEEDS_CONNECTION : plain(err)));
      }
    };
    const det = permit.determination || {};
    const site = permit.site || {};
    const owner = permit.owner || {};
    // The applied site on a map: its point and the limit of work the applicant drew (no position here).
    const figure = mapFigure({ position: false, compact: true,
      caption: site.limit_of_work ? "Square: the site's point. Outlined area: the limit of work applied for. " : "Square: the site's point; no limit of work was drawn. " });
    mount(main, h("p", h("a.back", { href: "#/applications" }, "← Applications")),
      h("div.split", h("h1", site.address || "Application"), statusChip(permit.status)),
      message,
      // Tablet landscape: the record on the left, the decision beside it; one column on a phone.
      h("div.grid.wide-left",
        h("div",
          h("section.card.determination", h("h2", permit.number || "Application without a number yet"),
            h("p.level", levelText(permit) || label(permit.review_level)),
            h("p", det.explanation || ""), (det.rules || []).length ? h("p.hint", `Rules applied: ${det.rules.join(", ")}`) : null),
          h("section.card", h("h2", "Project"),
            h("dl.kv",
              h("dt", "Owner"), h("dd", [owner.name, owner.email, owner.phone].filter(Boolean).join(" · ") || "—"),
              h("dt", "Parcel"), h("dd", site.parcel_id || "—"),
              h("dt", "Disturbed area"), h("dd", `${Number(permit.disturbed_area_sqft || 0).toLocaleString("en-US")} sq ft`),
              h("dt", "Drains to"), h("dd", [permit.drains_to_ms4 ? "Town storm drains (MS4)" : null, permit.drains_to_waters ? "waters of the Commonwealth" : null].filter(Boolean).join(" and ") || "Neither"),
              h("dt", "Use"), h("dd", permit.proposed_use || "—"),
              h("dt", "Submitted"), h("dd", fmtDate(permit.submitted_at))),
            permit.description ? h("p", permit.description) : null,
            (permit.phases || []).length ? h("p.hint", `Phases: ${permit.phases.map((p) => `${p.number}. ${p.name}${p.bond_amount ? ` (${money(p.bond_amount)})` : ""}`).join("; ")}`) : null),
          h("section.card", { "data-test": "application-map" }, h("h2", "Site location"), figure.figure),
          documentsCard(permit),
          (permit.exemptions || []).length ? h("section.card", h("h2", "Exemption claims"),
            h("ul.plain", permit.exemptions.map((c) => exemptionCard(permit, c, run)))) : null),
        h("div",
          decisionCard(permit, run),
          projectCard(permit, data.flagged, run),
          securityCard(permit, run),
          h("section.card", h("h2", "This site"), h("div.actions",
            h("a.button", { href: `#/site/${permit.id}` }, "Site record"),
            h("a.button", { href: `#/closeout/${permit.id}` }, "Close-out, bonds and orders"))),
          historyCard(events))));
    if (siteMap) siteMap.destroy();
    siteMap = null;
    showSitesMap(figure.box, { sites: [permit], position: false, label: `Map of the site applied for: ${site.address || "no address"}`, hint: figure.hintId })
      .then((made) => { if (gone || !figure.box.isConnected) made.destroy(); else siteMap = made; }).catch(figure.failed);
  };
  mount(main, h("h1", "Application"), h("p.loading", "Loading…"));
  await draw();
  return () => { gone = true; if (siteMap) siteMap.destroy(); };
}
