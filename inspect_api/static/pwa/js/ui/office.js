// The office's cards on an application (R-A7, R-D1), shown by the application screen, and the refresh
// of the device's copy of a permit after a change made online (office and applicant screens):
// - One project: applications on one parcel are flagged until linked as one project (determined on the
//   project's total area) or confirmed separate.
// - Security before the start: the amount the Stormwater Authority requires posted before land
//   disturbance; commencement is refused until bonds received cover it.
// Office decisions against the server's current record: online only. After each change the device's
// copy of the permit is refreshed, so the site screen shows it at once.
import { h, mount, field, banner, label, money, confirmAction } from "../dom.js";
import { api, plain } from "../api.js";
import { LEVEL_TEXT } from "../rules/determination.js";
import * as store from "../store.js";
import { statusChip, reasonInWords } from "./status.js";

// Runs one office decision from `button`: shows the server's reason in `message` when refused (or
// `offlineWords` without a connection), otherwise redraws and says what happened (`done`).
export function decisionRunner(message, redraw, offlineWords) {
  return async (button, call, done) => {
    button.disabled = true;
    try {
      await call();
      await redraw();
      if (done) mount(message, banner("ok", done));
    } catch (err) {
      button.disabled = false;
      mount(message, banner("error", err.offline ? offlineWords : plain(err)));
    }
  };
}

export async function refreshPermit(id) {
  const fresh = await api(`/api/v1/permits/${id}`);
  await store.saveServer("permit", { ...fresh, _server_version: fresh.version });
  return fresh;
}

const sqft = (n) => `${Number(n || 0).toLocaleString("en-US")} sq ft`;
const nameOf = (p) => [(p.site || {}).address || "Application", p.number].filter(Boolean).join(" · ");

// ---- one project (R-A7) -------------------------------------------------------------------------
// `flagged`: the other open applications on the parcel (the permits parcel_flag names), fetched.
export function projectCard(permit, flagged, run) {
  const local = h("div", { "aria-live": "polite" });
  const found = h("div");
  const q = h("input", { type: "search", name: "project-search" });
  const link = (other) => async (event) => {
    const button = event.currentTarget;
    const ok = await confirmAction({ title: "Link as one project?", confirm: "Link as one project",
      body: [`${nameOf(permit)} and ${nameOf(other)} become parts of one project: each is determined on the project's total disturbed area (bylaw: "as part of a single project"), which may change its review level and number.`,
        "The link cannot be undone in the app."] });
    if (!ok) return;
    run(button, async () => { await api(`/api/v1/permits/${permit.id}/project`, { method: "POST", body: { link_to: other.id } });
      await Promise.all([refreshPermit(permit.id), refreshPermit(other.id)]); }, local);
  };
  const separate = (event) => run(event.currentTarget, async () => {
    await api(`/api/v1/permits/${permit.id}/project`, { method: "POST", body: { separate: true } });
    await refreshPermit(permit.id);
  }, local);
  const search = async (event) => {
    event.preventDefault();
    if (!q.value.trim()) { mount(found); return; }
    try {
      const list = (await api(`/api/v1/permits?q=${encodeURIComponent(q.value.trim())}&limit=10`))
        .filter((p) => p.id !== permit.id && p.status !== "unpermitted");
      mount(found, list.length ? h("ul.plain", list.map((p) => otherRow(p, link))) : h("p.muted", "No other application matches."));
    } catch (err) { mount(found, banner("error", plain(err))); }
  };
  const inputs = (permit.determination || {}).inputs || {};
  return h("section.card", { "data-test": "project" }, h("h2", "One project?"),
    flagged.length ? [h("div", { "data-test": "parcel-flag" }, banner("warn", `Another open application on parcel ${(permit.site || {}).parcel_id}: `,
      flagged.map((p) => nameOf(p)).join("; "), ". Link them if they are parts of one project, or confirm this one is separate.")),
    h("ul.plain", flagged.map((p) => otherRow(p, link))),
    h("div.actions", h("button", { type: "button", onclick: separate }, "Confirm a separate project"))] : null,
    permit.project_id ? h("p", { "data-test": "project-total" }, `Linked as one project: determined on the project's total of ${sqft(inputs.project_disturbed_area_sqft)} disturbed.`)
      : !flagged.length ? h("p.muted", "Not linked to another application.") : null,
    h("form", { onsubmit: search, novalidate: true }, field("Find another part of the project", q, "Number, address or parcel."),
      h("div.actions", h("button", { type: "submit" }, "Find"))), found, local);
}

function otherRow(p, link) {
  return h("li.item", { dataset: { other: p.id } },
    h("div.split", h("span.label", nameOf(p)), statusChip(p.status)),
    h("p.hint", `${LEVEL_TEXT[p.review_level] || label(p.review_level)} · ${sqft(p.disturbed_area_sqft)}`),
    h("div.actions", h("button.primary", { type: "button", onclick: link(p) }, "Link as one project")));
}

// ---- security before the start (R-D1) -----------------------------------------------------------
export function securityText(permit) {
  if (!permit || permit.security_required_amount === null || permit.security_required_amount === undefined) return null;
  return `Security required: ${money(permit.security_required_amount)}, posted ${money(permit.security_posted || "0")}`;
}

export function securityCard(permit, run) {
  const before = ["draft", "submitted", "under_review", "approved", "issued"].includes(permit.status);
  const amount = h("input", { type: "text", inputmode: "decimal", name: "security-amount",
    value: permit.security_required_amount || "" });
  const local = h("div", { "aria-live": "polite" });
  const save = (clear) => async (event) => {
    const button = event.currentTarget;
    const value = clear ? null : amount.value.replace(/[$,\s]/g, "");
    if (!clear && !/^\d{1,12}(\.\d{1,2})?$/.test(value)) { mount(local, banner("error", "Give the amount in dollars and cents, for example 30000.00.")); return; }
    run(button, async () => {
      await api(`/api/v1/permits/${permit.id}/security-requirement`, { method: "PUT", body: { amount: value } });
      await refreshPermit(permit.id);
    }, local);
  };
  const text = securityText(permit);
  return h("section.card", { "data-test": "security" }, h("h2", "Security before work starts"),
    h("p", { "data-test": "security-text" }, text || "No security is required before land disturbance."),
    permit.commencement_blocked && permit.commencement_blocked.error === "security_required"
      ? banner("warn", "Work may not start: ", reasonInWords(permit.commencement_blocked.message)) : null,
    before ? [field("Security required (US dollars)", amount, "Bonds received and not released count as posted. Work may not start until they cover this amount."),
      local, h("div.actions", h("button.primary", { type: "button", onclick: save(false) }, "Require this security"),
        text ? h("button", { type: "button", onclick: save(true) }, "Require none") : null)]
      : h("p.hint", "Set before work starts; work on this site has started or the record is closed."));
}
