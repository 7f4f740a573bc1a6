// Violations and citations on a permit as the close-out screen shows them (R-P1, R-P2): record a
// violation of a permit condition, the bylaw or a plan; write a non-criminal citation from one (its
// offense number and fine come from the Town's schedule, on the server); open its PDF; record its
// delivery, which starts the 21 days to pay or ask for a hearing, and what became of it.
import { h, mount, field, banner, label, fmtDate, money, confirmAction, select, uuid } from "../dom.js";
import { api } from "../api.js";
import { fetchedLink } from "./files.js";
import { townToday, METHOD_CHOICES } from "./costs.js";

const PROVISIONS = [["permit_condition", "A condition of the permit"], ["bylaw", "The bylaw"], ["esc_plan", "The ESC plan"], ["om_plan", "The O&M plan"]];
const DECIMAL_DATE = /^\d{4}-\d{2}-\d{2}$/;

function violationWords(v, conditions) {
  if (v.provision_kind === "permit_condition") {
    const c = conditions.find((x) => x.id === v.condition_id);
    return c ? `Condition ${c.number}: ${c.text}` : "A permit condition";
  }
  return `${(PROVISIONS.find((p) => p[0] === v.provision_kind) || [0, label(v.provision_kind)])[1]}${v.provision ? `: ${v.provision}` : ""}`;
}

function violationForm(data, run) {
  const kind = select(PROVISIONS, (data.permit.conditions || []).length ? "permit_condition" : "bylaw", { name: "provision_kind" });
  const condition = select((data.permit.conditions || []).map((c) => [c.id, `Condition ${c.number}: ${c.text}`]), null, { name: "condition_id" });
  const provision = h("input", { type: "text", name: "provision", maxlength: 300, autocomplete: "off" });
  const description = h("textarea", { rows: 2, name: "description" });
  const first = h("input", { type: "date", name: "first_observed_on", max: townToday() });
  const local = h("div", { "aria-live": "polite" });
  const save = (event) => {
    event.preventDefault();
    const byCondition = kind.value === "permit_condition";
    const problems = [];
    if (byCondition && !condition.value) problems.push("Choose the condition violated.");
    if (!byCondition && !provision.value.trim()) problems.push("Give the section or plan item violated, e.g. “§194-21(C)”.");
    if (!DECIMAL_DATE.test(first.value)) problems.push("Give the day it was first seen.");
    if (problems.length) { mount(local, banner("error", problems.map((p) => h("p", p)))); return; }
    const button = event.submitter || event.currentTarget.querySelector("button[type=submit]");
    run(button, () => api("/api/v1/violations", { method: "POST", body: { id: uuid(), permit_id: data.permit.id, provision_kind: kind.value,
      ...(byCondition ? { condition_id: condition.value } : { provision: provision.value.trim() }),
      description: description.value.trim() || null, first_observed_on: first.value } }), "Violation recorded. A citation can now be written from it.");
  };
  return h("details", { dataset: { test: "new-violation" } }, h("summary", "Record a violation"),
    h("form", { onsubmit: save, novalidate: true }, field("What was violated", kind),
      (data.permit.conditions || []).length ? field("Condition", condition, "When a permit condition was violated.") : null,
      field("Section or plan item", provision, "For the bylaw or a plan."), field("What was seen", description),
      field("First seen on", first), local, h("div.actions", h("button.primary", { type: "submit" }, "Record violation"))));
}

function citationForm(data, violation, run) {
  const violator = (data.permit.parties || []).find((p) => p.role === "violator");
  const name = h("input", { type: "text", name: "violator_name", maxlength: 200, value: violator ? violator.name : "" });
  const address = h("input", { type: "text", name: "violator_address", maxlength: 300, value: violator && violator.mailing_address ? violator.mailing_address : "" });
  const offense = h("input", { type: "date", name: "offense_on", value: townToday(), max: townToday() });
  const section = h("input", { type: "text", name: "bylaw_section", maxlength: 100, value: violation.provision_kind === "bylaw" && violation.provision ? violation.provision : "" });
  const method = select([["", "Not delivered yet"], ...METHOD_CHOICES], "", { name: "delivery_method" });
  const delivered = h("input", { type: "date", name: "delivered_on", max: townToday() });
  const local = h("div", { "aria-live": "polite" });
  const write = async (event) => {
    event.preventDefault();
    const problems = [];
    if (!name.value.trim()) problems.push("Give the violator's name as it goes on the citation.");
    if (!DECIMAL_DATE.test(offense.value)) problems.push("Give the day of the offense.");
    if (!section.value.trim()) problems.push("Give the bylaw section, e.g. “194-21(C)”.");
    if (method.value && !DECIMAL_DATE.test(delivered.value)) problems.push("Give the day it was delivered.");
    if (problems.length) { mount(local, banner("error", problems.map((p) => h("p", p)))); return; }
    const button = event.submitter || event.currentTarget.querySelector("button[type=submit]");
    const ok = await confirmAction({ title: "Write this citation?", confirm: "Write citation",
      body: [`A non-criminal citation to ${name.value.trim()} for ${fmtDate(offense.value)} under ${section.value.trim()}.`,
        "Its fine follows the Town's schedule for the violator's offenses of this provision in the 12 months before (R-P2); each day is a separate offense.",
        "A citation is a legal notice: it cannot be withdrawn in the app."] });
    if (!ok) return;
    run(button, () => api("/api/v1/citations", { method: "POST", body: { id: uuid(), violation_id: violation.id,
      violator: { name: name.value.trim(), address: address.value.trim() || null }, offense_on: offense.value, bylaw_section: section.value.trim(),
      delivery: method.value ? { method: method.value, delivered_on: delivered.value } : null } }), "Citation written. Its PDF is below.");
  };
  return h("details", { dataset: { writeCitation: violation.id } }, h("summary", "Write a citation"),
    h("form", { onsubmit: write, novalidate: true }, field("Violator", name), field("Violator's address", address),
      field("Offense on", offense), field("Bylaw section", section), field("Delivered", method), field("Delivered on", delivered),
      local, h("div.actions", h("button.primary", { type: "submit" }, "Write citation"))));
}

function dispositionForm(citation, run) {
  const method = select([["", "Not delivered yet"], ...METHOD_CHOICES], (citation.delivery || {}).method || "", { name: "delivery_method" });
  const delivered = h("input", { type: "date", name: "delivered_on", value: (citation.delivery || {}).delivered_on || "", max: townToday() });
  const disposition = h("textarea", { rows: 2, name: "court_case_note" }, citation.court_case_note || "");
  const local = h("div", { "aria-live": "polite" });
  const save = (event) => {
    event.preventDefault();
    if (method.value && !DECIMAL_DATE.test(delivered.value)) { mount(local, banner("error", "Give the day it was delivered.")); return; }
    const button = event.submitter || event.currentTarget.querySelector("button[type=submit]");
    run(button, () => api(`/api/v1/citations/${citation.id}`, { method: "PATCH", body: { version: citation.version,
      delivery: method.value ? { method: method.value, delivered_on: delivered.value } : null,
      court_case_note: disposition.value.trim() || null } }), `Citation ${citation.number} updated.`);
  };
  return h("form", { onsubmit: save, novalidate: true, dataset: { citationDisposition: citation.id } },
    field("Delivered", method), field("Delivered on", delivered, "The 21 days to pay or ask for a hearing run from here."),
    field("Disposition", disposition, "Paid, hearing asked for, the court's decision…"), local,
    h("div.actions", h("button", { type: "submit" }, "Save")));
}

export function citationsCard(data, run, urls) {
  const conditions = data.permit.conditions || [];
  return h("section.card", { dataset: { test: "violations" } }, h("h2", `Violations and citations (${data.violations.length})`),
    data.violations.length ? h("ul.plain", data.violations.map((v) => {
      const mine = data.citations.filter((c) => c.violation_id === v.id);
      return h("li.item", { dataset: { violation: v.id } },
        h("div.split", h("span.label", violationWords(v, conditions)),
          v.ongoing ? h("span.chip.bad", `Ongoing since ${fmtDate(v.first_observed_on)}`) : h("span.chip.info", `${fmtDate(v.first_observed_on)} – ${fmtDate(v.last_observed_on)}`)),
        v.description ? h("p.muted", v.description) : null,
        mine.map((c) => h("div", { dataset: { citation: c.id } },
          h("div.split", h("span.label", `Citation ${c.number} · ${c.violator.name}`), h("span.chip.warn", `${money(c.fine_usd)} · offense ${c.offense_number}`)),
          h("p.hint", [`Offense on ${fmtDate(c.offense_on)} under ${c.bylaw_section}`,
            c.respond_by ? `to pay or ask for a hearing by ${fmtDate(c.respond_by)}` : "not delivered yet"].join(" · ")),
          c.court_case_note ? h("p", h("strong", "Disposition: "), c.court_case_note) : null,
          h("div.actions", fetchedLink(`/api/v1/citations/${c.id}.pdf`, `Citation ${c.number} (PDF)`, `${c.number}.pdf`, urls, { citationPdf: c.id })), dispositionForm(c, run))),
        citationForm(data, v, run));
    })) : h("p.muted", "No violation recorded on this permit."),
    violationForm(data, run));
}
