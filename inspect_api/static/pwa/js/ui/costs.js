// The Town's cost recoveries on a permit (R-O2, R-O3) as the applicant's permit screen lists them,
// each with its state and the last day of a protest window still open, and the pieces the cost
// notice screen shares with that list. Every figure is the office server's; the list is read online.
import { h, mount, label, fmtDate, money } from "../dom.js";
import { listAll, plain } from "../api.js";
import { localDay, DEFAULTS } from "../rules/program.js";

export const NEEDS_CONNECTION = "Cost notices are read from the office server. Connect, then open this screen again.";
export const COST_STATUS = {
  not_noticed: ["info", "Notice not sent yet"], due: ["warn", "To pay"], protest_pending: ["info", "Protest being decided"],
  lien: ["bad", "Lien on the property"], paid: ["good", "Paid"], void: ["good", "Cancelled by the Town"] };

export const townToday = () => localDay(Date.now(), DEFAULTS.timezone);

export function costChip(status) {
  const [kind, text] = COST_STATUS[status] || ["info", label(status)];
  return h(`span.chip.${kind}`, { "data-test": "cost-status" }, text);
}

// The last day of a protest window still open today (Town time), if any recipient has one.
function openWindow(record) {
  const today = townToday();
  const open = (record.recipients || []).filter((n) => n.received_on && !n.protest && n.protest_window_ends && today <= n.protest_window_ends);
  return record.decision || !open.length ? null : open.map((n) => n.protest_window_ends).sort()[0];
}

// The permit screen's card: one row per cost recovery, opening its notice.
export function costNoticesCard(permitId) {
  const body = h("div", h("p.loading", "Loading…"));
  const card = h("section.card", { "data-test": "cost-notices" }, h("h2", "Town costs"), body);
  if (!navigator.onLine) { mount(body, h("p.muted", NEEDS_CONNECTION)); return card; }
  listAll(`/api/v1/cost-recoveries?permit_id=${permitId}`).then((records) => {
    mount(body, records.length ? h("ul.plain", records.map((c) => h("li", h("a.row", { href: `#/permit/${permitId}/costs/${c.id}`, dataset: { costNotice: c.id } },
      h("span.title", `Work the Town did: ${money(c.costs_total)}`,
        h("small", [c.order_number ? `after order ${c.order_number}` : null, c.status === "not_noticed" ? null : `${money(c.amount_due)} owed before interest`].filter(Boolean).join(" · "))),
      h("span.meta", openWindow(c) ? h("span.chip.warn", { "data-test": "protest-by" }, `Protest by ${fmtDate(openWindow(c))}`) : null, costChip(c.status)))))) : h("p.muted", "The Town has not charged you for any work on this site."));
  }).catch((err) => mount(body, h("p.muted", err.offline ? NEEDS_CONNECTION : plain(err))));
  return card;
}

// The words for a cost recovery's parts, shared by the applicant's notice and the office's screen.
export const ROLE = { owner: "Property owner", violator: "Violator" };
export const METHOD = { hand: "by hand", certified_mail: "by certified mail", first_class_mail: "by first-class mail",
  posted_on_site: "posted on the site", email: "by e-mail" };
export const CATEGORY = { labor: "Labor", equipment: "Equipment", materials: "Materials", contractor: "Contractor",
  administrative: "Administration" };
export const DECISION = { affirm: "The Stormwater Authority upheld the costs", reduce: "The Stormwater Authority reduced the costs",
  void: "The Stormwater Authority cancelled the costs" };

// The service methods as a form offers them ("Certified mail"), and an amount in dollars as typed.
export const METHOD_CHOICES = Object.entries(METHOD).map(([value, words]) => [value, words.replace(/^by /, "").replace(/^./, (c) => c.toUpperCase())]);
export const DOLLARS = /^\d+(\.\d{1,2})?$/;

// What the Town did, item by item.
export function itemsCard(record) {
  return h("section.card", { "data-test": "cost-items" }, h("h2", `The work: ${money(record.costs_total)}`),
    h("ul.plain", (record.items || []).map((item) => h("li.item",
      h("div.split", h("span", item.description), h("span.label", money(item.amount))), h("p.hint", CATEGORY[item.category] || label(item.category))))));
}

// The Stormwater Authority's decision on a protest (R-O3), once taken.
export function decisionCard(record) {
  if (!record.decision) return null;
  return h("section.card", { "data-test": "cost-decision" }, h("h2", "Decision on the protest"),
    h("p", `${DECISION[record.decision.decision] || label(record.decision.decision)} on ${fmtDate(record.decision.decided_on)}`,
      record.decision.amount ? ` to ${money(record.decision.amount)}` : "", "."),
    record.decision.reason ? h("p", record.decision.reason) : null);
}

// The statement on its day: costs, payments, interest and the total due, and the lien.
export function balanceCard(record, st) {
  const rows = [h("dt", "Costs of the work"), h("dd", money(st.costs_total))];
  if (st.principal !== st.costs_total) rows.push(h("dt", "Owed after the decision"), h("dd", money(st.principal)));
  rows.push(h("dt", "Paid"), h("dd", money(st.payments_total)),
    h("dt", "Unpaid principal"), h("dd", money(st.principal_outstanding)),
    h("dt", "Interest"), h("dd", { "data-test": "interest" }, Number(st.interest) > 0
      ? `${money(st.interest)} (${(Number(st.interest_rate) * 100).toLocaleString("en-US")} % a year from ${fmtDate(st.interest_from)})`
      : st.interest_from ? `None yet; ${(Number(st.interest_rate) * 100).toLocaleString("en-US")} % a year from ${fmtDate(st.interest_from)} on what is unpaid` : "None"),
    h("dt", h("strong", `Due on ${fmtDate(st.on)}`)), h("dd", { "data-test": "total-due" }, h("strong", money(st.total_due))));
  return h("section.card", { "data-test": "cost-balance" }, h("h2", "What is owed"), h("dl.kv", rows),
    st.lien_on && !["paid", "void"].includes(st.status)
      ? h("p", st.status === "lien" ? `Unpaid, the costs became a lien on the property on ${fmtDate(st.lien_on)}.` : `Unpaid, the costs become a lien on the property on ${fmtDate(st.lien_on)}.`) : null,
    (record.payments || []).length ? [h("h3", "Payments"), h("ul.plain", record.payments.map((p) => h("li.item", { dataset: { payment: p.id } },
      h("div.split", h("span", fmtDate(p.paid_on)), h("span.label", money(p.amount))), p.reference ? h("p.hint", p.reference) : null)))]
      : h("p.muted", "No payment recorded."));
}
