// The Town's work under an order (R-O2), as the close-out screen lists it: each cost recovery with its
// state (a protest waiting is said so), and once the deadline passed unmet, the form that records the
// work and its cost items. Opening one leads to the office's costs screen.
import { h, field, banner, mount, fmtDate, money, confirmAction, select, uuid } from "../dom.js";
import { api } from "../api.js";
import { costChip, townToday, CATEGORY, DOLLARS } from "./costs.js";

export function orderCosts(data, order, run) {
  const mine = data.costs.filter((c) => c.order_id === order.id);
  const list = mine.length ? h("ul.plain", mine.map((c) => h("li", h("a.row", { href: `#/closeout/${data.permit.id}/costs/${c.id}`, dataset: { costRecovery: c.id } },
    h("span.title", `Town's work: ${money(c.costs_total)}`, h("small", `completed ${fmtDate(c.abatement_completed_on)} · ${money(c.amount_due)} owed before interest`)),
    h("span.meta", (c.recipients || []).some((n) => n.protest) && !c.decision ? h("span.chip.warn", { dataset: { test: "protest-to-decide" } }, "Protest to decide") : null,
      costChip(c.status)))))) : null;
  if (["closed", "complied"].includes(order.status)) return list;
  if (townToday() <= order.deadline) {
    return [list, h("p.hint", `If the deadline (${fmtDate(order.deadline)}) passes unmet, the Town may do the work at the owner's and violator's cost and record it here (R-O2).`)];
  }
  const completed = h("input", { type: "date", name: "abatement_completed_on", value: townToday(), max: townToday() });
  const description = h("textarea", { rows: 2, name: "description" });
  const items = h("div", { dataset: { test: "cost-item-rows" } });
  const addRow = () => items.append(h("fieldset", { dataset: { costItem: "" } }, h("legend", `Cost item ${items.children.length + 1}`),
    field("Category", select(Object.entries(CATEGORY), "labor", { name: "category" })),
    field("What was done", h("input", { type: "text", name: "item_description", maxlength: 500 })),
    field("Amount", h("input", { type: "text", inputmode: "decimal", name: "item_amount", autocomplete: "off" }))));
  addRow();
  const local = h("div", { "aria-live": "polite" });
  const save = async (event) => {
    event.preventDefault();
    const button = event.submitter || event.currentTarget.querySelector("button[type=submit]");
    const rows = [...items.querySelectorAll("[data-cost-item]")].map((row) => ({
      category: row.querySelector("[name=category]").value, description: row.querySelector("[name=item_description]").value.trim(),
      amount: row.querySelector("[name=item_amount]").value.trim() })).filter((r) => r.description || r.amount);
    const problems = [];
    if (!completed.value) problems.push("Give the day the Town completed the work.");
    if (!rows.length) problems.push("Add at least one cost item.");
    if (rows.some((r) => !r.description || !DOLLARS.test(r.amount))) problems.push("Each item needs what was done and its amount in dollars, e.g. 720.00.");
    if (problems.length) { mount(local, banner("error", problems.map((p) => h("p", p)))); return; }
    const total = rows.reduce((sum, r) => sum + Math.round(Number(r.amount) * 100), 0) / 100;
    const ok = await confirmAction({ title: "Record the Town's work?", confirm: "Record the work",
      body: [`${rows.length} ${rows.length === 1 ? "item" : "items"}, ${money(total.toFixed(2))}, completed ${fmtDate(completed.value)}. Order ${order.number} becomes Town-performed.`,
        "Then send the notice of costs to the violator and the owner within 30 days."] });
    if (!ok) return;
    run(button, () => api("/api/v1/cost-recoveries", { method: "POST", body: { id: uuid(), order_id: order.id,
      abatement_completed_on: completed.value, description: description.value.trim() || null, items: rows } }),
    "The Town's work is recorded. Open it to send the notices of costs.");
  };
  return [list, h("details", { dataset: { recordWork: order.id } }, h("summary", "Record the Town's work and its costs"),
    h("form", { onsubmit: save, novalidate: true },
      field("Work completed on", completed), field("Description", description, "What the Town did, where."), items,
      h("div.actions", h("button", { type: "button", onclick: addRow }, "Add a cost item")), local,
      h("div.actions", h("button.primary", { type: "submit" }, "Record the work"))))];
}
