// Supervisor: the money trail of an order the Town enforced itself (R-O2, R-O3). The Town's work and
// its cost items, the notice of costs to each violator and owner (method, sent, received) with each
// one's protest window, a protest to decide, payments, the amount due today with interest, and the
// lien with its certificate for the Collector. Every figure is the office server's; these are office
// decisions, taken online only.
import { h, mount, field, banner, label, fmtDate, money, confirmAction, select } from "../dom.js";
import { api, plain } from "../api.js";
import { fetchedLink } from "../ui/files.js";
import { decisionRunner } from "../ui/office.js";
import { NEEDS_CONNECTION, costChip, townToday, ROLE, METHOD_CHOICES, DOLLARS, balanceCard, itemsCard, decisionCard } from "../ui/costs.js";

const DECISIONS = [["affirm", "Uphold the costs"], ["reduce", "Reduce the costs"], ["void", "Cancel the costs"]];

// The notice of costs to each violator and owner named on the permit (and any recipient entered by
// name before): one form, saved as the whole list the server keeps (R-O3).
function noticesCard(record, permit, run) {
  const byParty = new Map((record.recipients || []).filter((n) => n.party_id).map((n) => [n.party_id, n]));
  const parties = (permit.parties || []).filter((p) => p.role === "owner" || p.role === "violator");
  const others = (record.recipients || []).filter((n) => !n.party_id || !parties.some((p) => p.id === n.party_id));
  const rows = [...parties.map((p) => ({ party: p, notice: byParty.get(p.id) || null })), ...others.map((n) => ({ party: null, notice: n }))]
    .map((row) => {
      const n = row.notice || {};
      return { ...row, method: select([["", "Not sent yet"], ...METHOD_CHOICES], n.method || "", { name: "method" }),
        sent: h("input", { type: "date", name: "sent_on", value: n.sent_on || "", max: townToday() }),
        received: h("input", { type: "date", name: "received_on", value: n.received_on || "", max: townToday() }) };
    });
  const local = h("div", { "aria-live": "polite" });
  const save = async (event) => {
    event.preventDefault();
    const problems = rows.filter((r) => (r.sent.value || r.received.value) && !r.method.value).map((r) => `Say how the notice to ${(r.party || r.notice).name} was sent.`)
      .concat(rows.filter((r) => r.received.value && !r.sent.value).map((r) => `Give the day the notice to ${(r.party || r.notice).name} was sent.`));
    if (problems.length) { mount(local, banner("error", problems.map((p) => h("p", p)))); return; }
    const recipients = rows.filter((r) => r.notice || r.method.value).map((r) => ({
      ...(r.notice ? { id: r.notice.id } : {}), ...(r.party ? { party_id: r.party.id } : { role: r.notice.role, name: r.notice.name }),
      method: r.method.value || null, sent_on: r.sent.value || null, received_on: r.received.value || null }));
    const button = event.submitter || event.currentTarget.querySelector("button[type=submit]");
    run(button, () => api(`/api/v1/cost-recoveries/${record.id}`, { method: "PATCH", body: { version: record.version, recipients } }),
      "Notices of costs saved. Each recipient's 30 days to protest run from the day they received theirs.");
  };
  return h("section.card", { "data-test": "cost-recipients" }, h("h2", "Notices of costs"),
    h("p.hint", `Due to the violator and the owner by ${fmtDate(record.notice_due_by)}, 30 days after the work was completed (R-O3).`),
    rows.length ? h("form", { onsubmit: save, novalidate: true },
      rows.map((r) => {
        const n = r.notice || {};
        const who = r.party || n;
        return h("fieldset", { dataset: { recipient: n.id || "", party: r.party ? r.party.id : "" } },
          h("legend", `${who.name} · ${ROLE[who.role] || label(who.role)}`),
          field("Sent", r.method), field("Sent on", r.sent), field("Received on", r.received, "The day the recipient received it: their 30 days start here."),
          n.protest_window_ends ? h("p.hint", { dataset: { test: "protest-ends" } }, n.protest ? `Protested ${fmtDate(n.protest.filed_on)}.`
            : `May protest until ${fmtDate(n.protest_window_ends)}.`) : null,
          n.notice_late ? h("p", h("span.chip.warn", "Sent after the 30 days")) : null);
      }), local, h("div.actions", h("button.primary", { type: "submit" }, "Save notices")))
      : h("p.muted", "No violator or owner is named on this permit: add them as parties first."));
}

// A written protest waits for the Stormwater Authority (R-O3): uphold, reduce (to an amount) or cancel.
function protestCard(record, run) {
  const protests = (record.recipients || []).filter((n) => n.protest);
  if (!protests.length) return null;
  const decision = select(DECISIONS, "affirm", { name: "decision" });
  const amount = h("input", { type: "text", inputmode: "decimal", name: "amount", autocomplete: "off" });
  const reason = h("textarea", { rows: 3, name: "reason" });
  const local = h("div", { "aria-live": "polite" });
  const decide = async (event) => {
    event.preventDefault();
    const button = event.submitter || event.currentTarget.querySelector("button[type=submit]");
    const reduce = decision.value === "reduce";
    if (reduce && !DOLLARS.test(amount.value.trim())) { mount(local, banner("error", "Give the reduced amount in dollars, e.g. 450.00.")); return; }
    if (!reason.value.trim()) { mount(local, banner("error", "Give the reason for the decision: it is sent with it.")); return; }
    const words = DECISIONS.find((d) => d[0] === decision.value)[1].toLowerCase();
    const ok = await confirmAction({ title: "Decide the protest?", confirm: "Decide",
      body: [`You ${words}${reduce ? ` to ${money(amount.value.trim())}` : ""}.`,
        decision.value === "void" ? "Nothing is owed any more." : "What is then owed is due within 30 days of the decision; unpaid, it becomes a lien on the property.",
        "The decision is final in the app; further relief is through a court (bylaw §E)."] });
    if (!ok) return;
    run(button, () => api(`/api/v1/cost-recoveries/${record.id}/decision`, { method: "POST",
      body: { decision: decision.value, reason: reason.value.trim(), ...(reduce ? { amount: amount.value.trim() } : {}) } }),
    "Protest decided. The statement below shows what is owed now.");
  };
  return h("section.card", { "data-test": "cost-protests" }, h("h2", record.decision ? "Protests" : "Protest to decide"),
    h("ul.plain", protests.map((n) => h("li.item", { dataset: { protest: n.id } },
      h("div.split", h("span.label", `${n.name} · ${ROLE[n.role] || label(n.role)}`), h("span.chip.info", `Filed ${fmtDate(n.protest.filed_on)}`)),
      h("p", n.protest.text)))),
    record.decision ? decisionCard(record) : h("form", { onsubmit: decide, novalidate: true },
      field("Decision", decision), field("Reduced amount", amount, "Only when reducing: what is owed instead."),
      field("Reason", reason), local, h("div.actions", h("button.primary", { type: "submit" }, "Decide the protest"))));
}

function paymentForm(record, st, run) {
  if (["paid", "void"].includes(st.status)) return null;
  const day = h("input", { type: "date", name: "paid_on", value: townToday(), max: townToday() });
  const amount = h("input", { type: "text", inputmode: "decimal", name: "amount", autocomplete: "off" });
  const reference = h("input", { type: "text", name: "reference", maxlength: 200, autocomplete: "off" });
  const local = h("div", { "aria-live": "polite" });
  const record_ = async (event) => {
    event.preventDefault();
    const button = event.submitter || event.currentTarget.querySelector("button[type=submit]");
    if (!day.value || !DOLLARS.test(amount.value.trim())) { mount(local, banner("error", "Give the day and the amount paid, e.g. 250.00.")); return; }
    const ok = await confirmAction({ title: `Record ${money(amount.value.trim())} paid?`, confirm: "Record payment",
      body: [`Paid on ${fmtDate(day.value)}${reference.value.trim() ? ` (${reference.value.trim()})` : ""}. Payments are applied to interest first, then to the costs.`] });
    if (!ok) return;
    run(button, () => api(`/api/v1/cost-recoveries/${record.id}/payments`, { method: "POST",
      body: { paid_on: day.value, amount: amount.value.trim(), reference: reference.value.trim() || null } }),
    `Payment of ${money(amount.value.trim())} recorded.`);
  };
  return h("form", { onsubmit: record_, novalidate: true, dataset: { test: "payment-form" } }, h("h3", "Record a payment"),
    field("Paid on", day), field("Amount", amount), field("Reference", reference, "Check number or receipt, as the Collector records it."),
    local, h("div.actions", h("button", { type: "submit" }, "Record payment")));
}

// R-O3: the notice of the special assessment to the Collector, once the costs are a lien; each one
// produced is kept, marked superseded when the lien date moved.
function lienCard(record, st, urls) {
  const kept = record.lien_certificates || [];
  if (st.status !== "lien" && !kept.length) return null;
  return h("section.card", { "data-test": "lien" }, h("h2", "Lien"),
    st.status === "lien" ? [h("p", `The unpaid costs became a lien on the property on ${fmtDate(st.lien_on)}: ${money(st.lien_amount)}.`),
      h("div.actions", fetchedLink(`/api/v1/cost-recoveries/${record.id}/lien-certificate.pdf`, "Lien certificate for the Collector (PDF)",
        `lien-${record.order_number || record.id}.pdf`, urls, { lienCertificate: "current" }))] : null,
    kept.length ? [h("h3", "Certificates produced"), h("ul.plain", kept.map((c) => h("li.item", { dataset: { keptCertificate: c.id } },
      h("div.split", h("span.label", `Lien of ${fmtDate(c.lien_on)} · ${money(c.lien_amount)}`),
        c.superseded ? h("span.chip.warn", "Superseded: the lien date moved") : h("span.chip.good", "Stands")),
      h("p.hint", `Produced ${fmtDate(c.produced_on)}`),
      h("div.actions", fetchedLink(c.pdf_url, "Open (PDF)", `lien-${fmtDate(c.lien_on)}.pdf`, urls))))) ] : null);
}

export async function officeCostsScreen(main, { id, cid }) {
  const urls = [];
  const message = h("div", { "aria-live": "polite" });
  const back = h("p", h("a.back", { href: `#/closeout/${id}` }, "← Close-out"));
  const draw = async () => {
    if (!navigator.onLine) { mount(main, back, h("h1", "Town costs"), banner("warn", NEEDS_CONNECTION)); return; }
    let record, st, permit;
    try {
      [record, st, permit] = await Promise.all([api(`/api/v1/cost-recoveries/${cid}`), api(`/api/v1/cost-recoveries/${cid}/statement`),
        api(`/api/v1/permits/${id}`)]);
    } catch (err) {
      mount(main, back, h("h1", "Town costs"), banner("error", err.offline ? NEEDS_CONNECTION : plain(err)));
      return;
    }
    mount(message);
    mount(main, back,
      h("div.split", h("h1", `Town costs${record.order_number ? ` — order ${record.order_number}` : ""}`), costChip(record.status)),
      h("p.muted", [(permit.site || {}).address, permit.number, `work completed ${fmtDate(record.abatement_completed_on)}`].filter(Boolean).join(" · ")),
      message,
      record.description ? h("p", record.description) : null,
      h("div.grid.two", itemsCard(record), h("div", balanceCard(record, st), paymentForm(record, st, run))),
      protestCard(record, run),
      noticesCard(record, permit, run),
      lienCard(record, st, urls));
  };
  const run = decisionRunner(message, draw, NEEDS_CONNECTION);
  mount(main, back, h("h1", "Town costs"), h("p.loading", "Loading…"));
  await draw();
  return () => urls.forEach((u) => URL.revokeObjectURL(u));
}
