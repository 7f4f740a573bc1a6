// What the Town asks of the applicant on the permit screen: orders still to comply with and open
// findings, each with its date, and the words for the kinds of order.
import { h, label, fmtDate } from "../dom.js";
import { findingOverdue, orderStatus } from "../rules/town.js";

// Orders and findings on the permit: what the Town asks, with its date.
export function townAsksSection(records) {
  const rows = [];
  // Orders still to comply with; a complied or closed order asks nothing more. Cost notices have a
  // card of their own (costs.js), read from the office server.
  for (const o of records.orders.filter((x) => ["open", "overdue"].includes(x.status))) {
    rows.push(h("li.item", { dataset: { order: o.id } },
      h("div.split", h("span.label", `Order ${o.number || ""}`), h(`span.chip.${orderStatus(o) === "overdue" ? "bad" : "warn"}`, `Comply by ${fmtDate(o.deadline)}`)),
      (o.requirements || []).map((r) => h("p", r.text)),
      h("p.hint", `${(o.kinds || []).map((k) => ORDER_WORDS[k] || label(k)).join(", ")} · ${label(orderStatus(o) || "open")}`)));
  }
  for (const f of records.findings.filter((x) => x.status === "open")) {
    rows.push(h("li.item", { dataset: { finding: f.id } },
      h("div.split", h("span.label", f.description || "Finding"), h(`span.chip.${findingOverdue(f) ? "bad" : "warn"}`, `${findingOverdue(f) ? "Overdue since" : "Correct by"} ${fmtDate(f.due_on)}`)),
      f.required_action ? h("p", "What to do: ", f.required_action) : null));
  }
  return h("section.card", { "data-test": "town-asks" }, h("h2", "What the Town asks of you"),
    rows.length ? h("ul.plain", rows) : h("p.muted", "No orders or findings to act on."));
}

export const ORDER_WORDS = { cease_and_desist: "Cease and desist", controls: "Install or maintain controls", monitoring: "Monitoring", remediation: "Remediation", other: "Something else, stated in words" };
