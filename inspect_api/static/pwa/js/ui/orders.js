// The orders on a permit as the close-out screen shows them (R-O1): each with its delivery to the
// parties and the Town's work on it, and the form that issues a new one.
import { h, mount, field, banner, label, fmtDate, uuid, confirmAction, select, plusDays } from "../dom.js";
import { api } from "../api.js";
import { fetchedLink } from "./files.js";
import { deliveryList } from "./delivery.js";
import { orderCosts } from "./town_work.js";

export const ORDER_KINDS = [["cease_and_desist", "Cease and desist"], ["controls", "Install or maintain controls"],
  ["monitoring", "Monitoring"], ["remediation", "Remediation"], ["other", "Something else, stated in words"]];

// Whether each party the order is addressed to was e-mailed it (§B(3)), and each recipient of a
// notice of costs on it (R-O3).
function orderDeliveries(data, order, run) {
  const resend = (m, button) => run(button, () => api(`/api/v1/notifications/${m.id}/resend`, { method: "POST" }));
  const parties = new Map((data.permit.parties || []).map((p) => [p.id, p]));
  const recipients = (order.recipient_party_ids || []).map((pid) => parties.get(pid)).filter(Boolean);
  const mine = data.messages.filter((m) => m.record_id === order.id && m.event === "order_issued");
  const sameParty = (m, r) => m.recipient.party_id === r.id;
  return [deliveryList("Order e-mailed to", recipients, mine, sameParty, resend),
    data.costs.filter((c) => c.order_id === order.id).map((c) => deliveryList("Notice of costs e-mailed to",
      c.recipients || [], data.messages.filter((m) => m.record_id === c.id && m.event === "cost_notice_sent"),
      (m, r) => (r.party_id ? m.recipient.party_id === r.party_id : m.recipient.name === r.name && m.recipient.role === r.role),
      resend))];
}

const OTHER_PROVISIONS = [["bylaw", "Bylaw provision"], ["esc_plan", "ESC plan item"], ["om_plan", "O&M plan item"]];

// R-O0, §B(3): an order goes to every violator and owner named on the permit.
function orderRecipients(permit) {
  return (permit.parties || []).filter((p) => p.role === "violator" || p.role === "owner");
}

function joinWords(words) {
  return words.length > 1 ? `${words.slice(0, -1).join(", ")} and ${words[words.length - 1]}` : words[0] || "";
}

// R-O1b: what the order says was violated: open findings, the permit's conditions, and other
// provisions (the bylaw's sections, ESC or O&M plan items) in words.
function violatedFields(data) {
  const findings = data.findings.map((f) => [f.id, h("input", { type: "checkbox", name: "finding_ids", value: f.id }), f]);
  const conditions = (data.permit.conditions || []).map((c) => [c.id, h("input", { type: "checkbox", name: "condition_ids", value: c.id }), c]);
  const otherKind = select(OTHER_PROVISIONS, "bylaw", { name: "provision_kind" });
  const otherText = h("input", { type: "text", name: "provision", maxlength: 300, autocomplete: "off" });
  const read = () => ({
    finding_ids: findings.filter(([, box]) => box.checked).map(([fid]) => fid),
    violated: [...conditions.filter(([, box]) => box.checked).map(([cid]) => ({ provision_kind: "permit_condition", condition_id: cid })),
      ...(otherText.value.trim() ? [{ provision_kind: otherKind.value, provision: otherText.value.trim() }] : [])] });
  const fieldset = h("fieldset", { dataset: { test: "order-violated" } }, h("legend", "What was violated"),
    findings.length ? [h("p.hint", "Open findings on this site"), findings.map(([, box, f]) => h("label.check", box,
      `${f.description}${f.due_on ? ` (to correct by ${fmtDate(f.due_on)})` : ""}`))] : h("p.muted", "No open findings on this site."),
    conditions.length ? [h("p.hint", "Permit conditions"), conditions.map(([, box, c]) => h("label.check", box, `Condition ${c.number}: ${c.text}`))] : null,
    field("Other provision", otherKind), field("Section or plan item", otherText, "e.g. “§194-21(C)” or the ESC plan's item."));
  return { fieldset, read };
}

export function ordersCard(data, run, urls) {
  const boxes = ORDER_KINDS.map(([value]) => [value, h("input", { type: "checkbox", name: "kinds", value })]);
  const violated = violatedFields(data);
  const requirement = h("textarea", { rows: 3, name: "requirement" });
  const otherText = h("textarea", { rows: 2, name: "other_requirement" });
  const deadline = h("input", { type: "date", name: "deadline", value: plusDays(7) });
  const local = h("div", { "aria-live": "polite" });
  const issue = async (event) => {
    event.preventDefault();
    const kinds = boxes.filter(([, box]) => box.checked).map(([value]) => value);
    const problems = [];
    if (!kinds.length) problems.push("Choose at least one kind of order.");
    if (!requirement.value.trim()) problems.push("Write what the order requires.");
    if (!deadline.value) problems.push("Set the deadline for compliance.");
    // R-O1b: an order states the provision or permit condition violated, or the findings it rests on.
    const named = violated.read();
    if (!named.finding_ids.length && !named.violated.length) problems.push("Name what was violated: an open finding, a permit condition or a provision.");
    // R-O1: besides (a)-(d), another requirement stated in words; alone, the requirement above is it.
    const listed = kinds.filter((k) => k !== "other");
    if (kinds.includes("other") && listed.length && !otherText.value.trim()) problems.push("Write in words what else must be done.");
    if (problems.length) { mount(local, banner("error", problems.map((p) => h("p", p)))); return; }
    const button = event.submitter || event.currentTarget.querySelector("button[type=submit]");
    const names = kinds.map((k) => ORDER_KINDS.find((x) => x[0] === k)[1].toLowerCase()).join(", ");
    const to = orderRecipients(data.permit).map((p) => `${p.name} (${p.role})`);
    const { finding_ids: findingIds, violated: provisions } = violated.read();
    const ok = await confirmAction({ title: "Issue this order?", confirm: "Issue order", danger: kinds.includes("cease_and_desist"),
      body: [to.length ? `An order (${names}) is issued to ${joinWords(to)}, with compliance by ${fmtDate(deadline.value)}.`
        : `An order (${names}) is issued with compliance by ${fmtDate(deadline.value)}. No violator or owner is named on this permit: add them as parties so the order can be served.`,
      findingIds.length + provisions.length ? `It names ${findingIds.length + provisions.length} ${findingIds.length + provisions.length === 1 ? "violation" : "violations"}.`
        : "It names no finding, condition or provision violated.",
      "An issued order is a legal notice: it cannot be withdrawn in the app."] });
    if (!ok) return;
    run(button, () => api("/api/v1/orders", { method: "POST", body: {
      id: uuid(), permit_id: data.permit.id, kinds, finding_ids: findingIds, violated: provisions, requirements: [
        ...(listed.length ? [{ kind: listed[0], text: requirement.value.trim() }] : []),
        ...(kinds.includes("other") ? [{ kind: "other", text: (listed.length ? otherText.value : requirement.value).trim() }] : [])],
      deadline: deadline.value } }));
  };
  return h("section.card", h("h2", `Orders (${data.orders.length})`),
    data.orders.length ? h("ul.plain", data.orders.map((o) => h("li.item", { dataset: { order: o.id } },
      h("div.split", h("span.label", `Order ${o.number}: ${o.kinds.map((k) => (ORDER_KINDS.find((x) => x[0] === k) || [k, label(k)])[1]).join(", ")}`), h("span.chip.warn", `Deadline ${fmtDate(o.deadline)}`)),
      h("p.muted", (o.requirements[0] || {}).text || ""),
      h("div.actions", fetchedLink(`/api/v1/orders/${o.id}.pdf`, `Order ${o.number} (PDF)`, `${o.number}.pdf`, urls, { orderPdf: o.id })),
      orderDeliveries(data, o, run), orderCosts(data, o, run)))) : h("p.muted", "No orders on this permit."),
    h("form", { onsubmit: issue, novalidate: true }, h("h3", "Issue order"),
      h("fieldset", h("legend", "Kinds"), boxes.map(([value, box]) => h("label.check", box, ORDER_KINDS.find((k) => k[0] === value)[1]))),
      field("Requirement", requirement, "What must be done, where."),
      field("What else must be done", otherText, "When “Something else, stated in words” is chosen beside other kinds."),
      violated.fieldset,
      field("Deadline", deadline), local,
      h("div.actions", h("button.primary", { type: "submit" }, "Issue order"))));
}
