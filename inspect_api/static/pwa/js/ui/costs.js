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
