// Supervisor: deadlines and permit close-out (completion notice or final report, certificate of
// completion, bond releases, orders). These are office decisions taken against the server's current
// records, so they are made online only; nothing here goes through the outbox.
import { h, mount, field, banner, label, fmtDate, localDate, uuid } from "../dom.js";
import { api, raw, listAll, plain } from "../api.js";

const NEEDS_CONNECTION = "Close-out and deadlines need a connection to the office server. Connect, then open this screen again.";
const KINDS = {
  finding_due: "Finding to correct", order_due: "Order deadline", final_report_due: "Final report due",
  cost_notice_due: "Cost notice to send", protest_window_ends: "Protest window ends", bond_phase_release: "Bond phase to release",
  inspection_overdue: "Inspection overdue",
  approval_lapsed: "Exemption lapsed: review needed before work",
};
const ORDER_KINDS = [["cease_and_desist", "Cease and desist"], ["controls", "Install or maintain controls"],
  ["monitoring", "Monitoring"], ["remediation", "Remediation"]];
const DAYS_AHEAD = 30;

function offlineView(main, title) {
  mount(main, h("h1", title), banner("warn", NEEDS_CONNECTION));
}

function plusDays(days) {
  const d = new Date();
  d.setDate(d.getDate() + days);
  return localDate(d);
}

export async function deadlinesScreen(main) {
  if (!navigator.onLine) { offlineView(main, "Deadlines"); return; }
  mount(main, h("h1", "Deadlines"), h("p.loading", "Loading…"));
  let due, notices, reports;
  try {
    [due, notices, reports] = await Promise.all([
      api(`/api/v1/deadlines?before=${plusDays(DAYS_AHEAD)}`),
      listAll("/api/v1/completion-notices?status=submitted"),
      listAll("/api/v1/final-reports")]);
  } catch (err) {
    if (err.offline) { offlineView(main, "Deadlines"); return; }
    mount(main, h("h1", "Deadlines"), banner("error", plain(err)));
    return;
  }
  const waiting = [...notices.map((n) => [n, "Completion notice"]),
    ...reports.filter((r) => r.status === "submitted").map((r) => [r, "Final report"])];
  mount(main, h("h1", "Deadlines"),
    h("p.muted", `Everything due in the next ${DAYS_AHEAD} days, soonest first; overdue items first of all.`),
    waiting.length ? h("section.card", h("h2", "Close-out submissions to decide"), h("ul.plain", waiting.map(([rec, what]) =>
      h("li", h("a.row", { href: `#/closeout/${rec.permit_id}`, dataset: { submission: rec.id } },
        h("span.title", what, h("small", `Submitted ${fmtDate(rec.submitted_at)}`)),
        h("span.meta", h("span.chip.info", "Waiting for a decision"))))))) : null,
    due.length ? h("ul.plain.card", due.map((d) => h("li", h("a.row", { href: `#/closeout/${d.permit_id}`, dataset: { deadline: d.record_id } },
      h("span.title", `${KINDS[d.kind] || label(d.kind)} · ${d.permit_number || "Permit"}`, h("small", d.summary)),
      h("span.meta", d.overdue ? h("span.chip.bad", `Overdue since ${fmtDate(d.due_on)}`) : h("span.chip.warn", `${d.kind === "bond_phase_release" ? "Waiting since" : "Due"} ${fmtDate(d.due_on)}`))))))
      : h("p.card.muted", `Nothing is due in the next ${DAYS_AHEAD} days.`));
}

async function loadPermit(id) {
  const [permit, notices, reports, certificates, bonds, orders] = await Promise.all([
    api(`/api/v1/permits/${id}`),
    listAll(`/api/v1/completion-notices?permit_id=${id}`),
    listAll(`/api/v1/final-reports?permit_id=${id}`),
    api(`/api/v1/certificates?permit_id=${id}`),
    listAll(`/api/v1/bonds?permit_id=${id}`),
    listAll(`/api/v1/orders?permit_id=${id}`)]);
  return { permit, notices, reports, certificate: certificates[0] || null, bonds, orders };
}

// Runs one decision; shows the server's reason when refused, otherwise redraws the panel.
function action(message, redraw) {
  return async (button, call) => {
    button.disabled = true;
    try {
      await call();
      await redraw();
    } catch (err) {
      button.disabled = false;
      mount(message, banner("error", err.offline ? NEEDS_CONNECTION : plain(err)));
    }
  };
}

function submissionCard(rec, what, path, run) {
  const reasons = h("textarea", { rows: 3, name: "reasons" });
  const local = h("div", { "aria-live": "polite" });
  const decide = (decision) => (event) => {
    if (decision === "return" && !reasons.value.trim()) { mount(local, banner("error", `Give the reasons when returning the ${what.toLowerCase()}.`)); return; }
    run(event.currentTarget, () => api(`/api/v1/${path}/${rec.id}/review`, { method: "POST", body: { decision, reasons: reasons.value.trim() || null } }));
  };
  const chip = rec.status === "accepted" ? "good" : rec.status === "returned" ? "bad" : "info";
  return h("section.card", { dataset: { closeout: rec.id } },
    h("div.split", h("h2", what), h(`span.chip.${chip}`, label(rec.status))),
    rec.statement ? h("p", rec.statement) : null,
    h("dl.kv", h("dt", "Submitted"), h("dd", fmtDate(rec.submitted_at)),
      rec.completed_on ? [h("dt", "Work completed"), h("dd", fmtDate(rec.completed_on))] : null,
      rec.review && rec.review.reasons ? [h("dt", "Reasons given"), h("dd", rec.review.reasons)] : null),
    rec.status === "submitted" ? [field("Reasons for the applicant", reasons, "Required when returning."), local,
      h("div.actions", h("button.primary", { type: "button", onclick: decide("accept") }, "Accept"),
        h("button.danger", { type: "button", onclick: decide("return") }, "Return with reasons"))] : null);
}

function certificateCard(data, run, urls) {
  const { permit, certificate } = data;
  if (!certificate) {
    return h("section.card", h("h2", "Certificate of completion"),
      h("p.muted", "Issued once the completion notice or final report is accepted; it closes the permit."),
      h("div.actions", h("button.primary", { type: "button", onclick: (e) => run(e.currentTarget,
        () => api(`/api/v1/permits/${permit.id}/certificate`, { method: "POST", body: {} })) }, "Issue certificate of completion")));
  }
  const link = h("a.button", { "aria-disabled": "true", dataset: { certificate: certificate.id } }, `Certificate ${certificate.number} (PDF)`);
  // The PDF needs the sign-in token, so it is fetched here and offered as a local file.
  raw(certificate.pdf_url).then((r) => r.blob()).then((blob) => {
    const url = URL.createObjectURL(blob);
    urls.push(url);
    link.href = url;
    link.download = `${certificate.number}.pdf`;
    link.removeAttribute("aria-disabled");
  }).catch(() => { link.textContent = `Certificate ${certificate.number}: the PDF could not be fetched`; });
  return h("section.card", h("h2", "Certificate of completion"),
    h("dl.kv", h("dt", "Number"), h("dd", certificate.number), h("dt", "Issued"), h("dd", fmtDate(certificate.issued_on))),
    h("div.actions", link));
}

function phaseName(p) {
  const n = `Phase ${p.phase_number || ""}`.trim();
  return p.phase_name && p.phase_name !== n ? `${n} — ${p.phase_name}` : n;
}

function bondCard(bond, run) {
  const release = (body) => (e) => run(e.currentTarget, () => api(`/api/v1/bonds/${bond.id}/releases`, { method: "POST", body: { id: uuid(), ...body } }));
  return h("section.card", { dataset: { bond: bond.id } },
    h("div.split", h("h2", `Bond ${bond.reference || ""}`), h("span.chip.info", label(bond.status))),
    h("dl.kv", h("dt", "Amount"), h("dd", `$${bond.amount}`), h("dt", "Released"), h("dd", `$${bond.released_amount}`),
      h("dt", "Remaining"), h("dd", `$${bond.remaining_amount}`)),
    (bond.phases || []).length ? h("ul.plain", bond.phases.map((p) => h("li.item",
      h("div.split", h("span.label", `${phaseName(p)} · $${p.amount}`),
        p.released ? h("span.chip.good", "Released") : p.completed_in_compliance ? h("span.chip.warn", "Complete in compliance") : h("span.chip.info", "Not complete")),
      !p.released && p.completed_in_compliance ? h("div.actions", h("button.primary", { type: "button", onclick: release({ kind: "partial", phase_id: p.phase_id }) },
        `Release phase ${p.phase_number || ""}`)) : null))) : null,
    bond.status !== "released" ? h("div.actions", h("button", { type: "button", onclick: release({ kind: "full" }) }, "Full release")) : null);
}

function ordersCard(data, run) {
  const boxes = ORDER_KINDS.map(([value]) => [value, h("input", { type: "checkbox", name: "kinds", value })]);
  const requirement = h("textarea", { rows: 3, name: "requirement" });
  const deadline = h("input", { type: "date", name: "deadline", value: plusDays(7) });
  const local = h("div", { "aria-live": "polite" });
  const issue = (event) => {
    event.preventDefault();
    const kinds = boxes.filter(([, box]) => box.checked).map(([value]) => value);
    const problems = [];
    if (!kinds.length) problems.push("Choose at least one kind of order.");
    if (!requirement.value.trim()) problems.push("Write what the order requires.");
    if (!deadline.value) problems.push("Set the deadline for compliance.");
    if (problems.length) { mount(local, banner("error", problems.map((p) => h("p", p)))); return; }
    run(event.submitter || event.currentTarget.querySelector("button"), () => api("/api/v1/orders", { method: "POST", body: {
      id: uuid(), permit_id: data.permit.id, kinds, requirements: [{ kind: kinds[0], text: requirement.value.trim() }], deadline: deadline.value } }));
  };
  return h("section.card", h("h2", `Orders (${data.orders.length})`),
    data.orders.length ? h("ul.plain", data.orders.map((o) => h("li.item", { dataset: { order: o.id } },
      h("div.split", h("span.label", `${o.number} · ${o.kinds.map(label).join(", ")}`), h("span.chip.warn", `Deadline ${fmtDate(o.deadline)}`)),
      h("p.muted", (o.requirements[0] || {}).text || "")))) : h("p.muted", "No orders on this permit."),
    h("form", { onsubmit: issue, novalidate: true }, h("h3", "Issue order"),
      h("fieldset", h("legend", "Kinds"), boxes.map(([value, box]) => h("label.check", box, ORDER_KINDS.find((k) => k[0] === value)[1]))),
      field("Requirement", requirement, "What must be done, where."), field("Deadline", deadline), local,
      h("div.actions", h("button.primary", { type: "submit" }, "Issue order"))));
}

export async function closeoutScreen(main, { id }) {
  const urls = [];
  const message = h("div", { "aria-live": "polite" });
  const draw = async () => {
    if (!navigator.onLine) { offlineView(main, "Close-out"); return; }
    let data;
    try { data = await loadPermit(id); } catch (err) {
      if (err.offline) { offlineView(main, "Close-out"); return; }
      mount(main, h("h1", "Close-out"), banner("error", plain(err)));
      return;
    }
    mount(message);
    const run = action(message, draw);
    const { permit } = data;
    mount(main, h("p", h("a", { href: "#/deadlines" }, "← Deadlines")),
      h("div.split", h("h1", `Close-out — ${permit.number || "Permit"}`), h("span.chip.info", label(permit.status))),
      h("p.muted", [(permit.site || {}).address, label(permit.review_level)].filter(Boolean).join(" · ")), message,
      data.notices.map((n) => submissionCard(n, "Completion notice", "completion-notices", run)),
      data.reports.map((r) => submissionCard(r, "Final report", "final-reports", run)),
      certificateCard(data, run, urls),
      data.bonds.map((b) => bondCard(b, run)),
      ordersCard(data, run));
  };
  mount(main, h("h1", "Close-out"), h("p.loading", "Loading…"));
  await draw();
  return () => urls.forEach((u) => URL.revokeObjectURL(u));
}
