// Supervisor: deadlines and permit close-out (completion notice or final report, certificate of
// completion, bond releases, orders). These are office decisions taken against the server's current
// records, so they are made online only; nothing here goes through the outbox.
import { h, mount, field, banner, label, fmtDate, localDate, uuid, money, confirmAction, plusDays } from "../dom.js";
import { thumb, photoFacts } from "../ui/photos.js";
import { LEVEL_TEXT } from "../rules/determination.js";
import { api, raw, listAll, plain } from "../api.js";
import { paperDocuments, reportContent } from "../ui/report_review.js";
import { ORDER_KINDS, ordersCard } from "../ui/orders.js";
import { citationsCard } from "../ui/citations.js";
import { decisionRunner } from "../ui/office.js";

const NEEDS_CONNECTION = "Close-out and deadlines need a connection to the office server. Connect, then open this screen again.";
const KINDS = {
  finding_due: "Finding to correct", order_due: "Order deadline", final_report_due: "Final report due",
  cost_notice_due: "Cost notice to send", protest_window_ends: "Protest window ends", bond_phase_release: "Bond phase to release",
  inspection_overdue: "Inspection overdue",
  approval_lapsed: "Exemption lapsed: review needed before work",
};
const DAYS_AHEAD = 30;

// The deadline list's summaries carry record codes ("deficiency (moderate): …", "ORD-2026-0001
// (controls): …", "2026-05-04"); the supervisor reads words and the Town's dates.
const ISO_DAY = /\b(\d{4}-\d{2}-\d{2})\b/g;
export function deadlineWords(d) {
  let text = String(d.summary || "");
  const finding = /^([a-z_ ]+) \((\w+)\): (.*)$/s.exec(text);
  const order = /^([A-Z]+-\d{4}-\d+) \(([a-z_, ]+)\): (.*)$/s.exec(text);
  if (d.kind === "finding_due" && finding) {
    text = `${label(finding[2])} ${finding[1].replaceAll("_", " ")}: ${finding[3]}`;
  } else if (d.kind === "order_due" && order) {
    const kinds = order[2].split(",").map((k) => k.trim().replaceAll(" ", "_"))
      .map((k) => (ORDER_KINDS.find((x) => x[0] === k) || [k, label(k)])[1].toLowerCase());
    text = `Order ${order[1]} (${kinds.join(", ")}): ${order[3]}`;
  }
  return text.replace(ISO_DAY, (m) => fmtDate(m));
}

function offlineView(main, title) {
  mount(main, h("h1", title), banner("warn", NEEDS_CONNECTION));
}

export async function deadlinesScreen(main) {
  if (!navigator.onLine) { offlineView(main, "Deadlines"); return; }
  mount(main, h("h1", "Deadlines"), h("p.loading", "Loading…"));
  let due, notices, reports, accepted, certificates;
  try {
    [due, notices, reports, accepted, certificates] = await Promise.all([
      api(`/api/v1/deadlines?before=${plusDays(DAYS_AHEAD)}`),
      listAll("/api/v1/completion-notices?status=submitted"),
      listAll("/api/v1/final-reports"),
      listAll("/api/v1/completion-notices?status=accepted"),
      api("/api/v1/certificates")]);
  } catch (err) {
    if (err.offline) { offlineView(main, "Deadlines"); return; }
    mount(main, h("h1", "Deadlines"), banner("error", plain(err)));
    return;
  }
  // Accepted close-out with no certificate yet: the permit waits for the supervisor (R-F3).
  const certified = new Set(certificates.map((c) => c.permit_id));
  const toCertify = [...accepted, ...reports.filter((r) => r.status === "accepted")].filter((r) => !certified.has(r.permit_id));
  const waiting = [...notices.map((n) => [n, "Completion notice"]),
    ...reports.filter((r) => r.status === "submitted").map((r) => [r, "Final report"])];
  mount(main, h("h1", "Deadlines"),
    h("p.muted", `Everything due in the next ${DAYS_AHEAD} days, soonest first; overdue items first of all.`),
    waiting.length ? h("section.card", h("h2", "Close-out submissions to decide"), h("ul.plain", waiting.map(([rec, what]) =>
      h("li", h("a.row", { href: `#/closeout/${rec.permit_id}`, dataset: { submission: rec.id } },
        h("span.title", what, h("small", `Submitted ${fmtDate(rec.submitted_at)}`)),
        h("span.meta", h("span.chip.info", "Waiting for a decision"))))))) : null,
    toCertify.length ? h("section.card", h("h2", "Certificates to issue"), h("ul.plain", toCertify.map((rec) =>
      h("li", h("a.row", { href: `#/closeout/${rec.permit_id}`, dataset: { certificateDue: rec.permit_id } },
        h("span.title", rec.photo_ids ? "Completion notice accepted" : "Final report accepted", h("small", `Accepted ${fmtDate((rec.review || {}).reviewed_at)}`)),
        h("span.meta", h("span.chip.warn", "No certificate yet"))))))) : null,
    due.length ? h("ul.plain.card", due.map((d) => h("li", h("a.row", { href: `#/closeout/${d.permit_id}`, dataset: { deadline: d.record_id } },
      h("span.title", [KINDS[d.kind] || label(d.kind), d.site_address, d.permit_number || (d.permit_id ? "application not yet numbered" : null)].filter(Boolean).join(" · "),
        h("small", deadlineWords(d))),
      h("span.meta", d.overdue ? h("span.chip.bad", `Overdue since ${fmtDate(d.due_on)}`) : h("span.chip.warn", `${d.kind === "bond_phase_release" ? "Waiting since" : "Due"} ${fmtDate(d.due_on)}`))))))
      : h("p.card.muted", `Nothing is due in the next ${DAYS_AHEAD} days.`));
}

async function loadPermit(id) {
  const [permit, notices, reports, certificates, bonds, orders, costs, messages, photos, findings, violations, citations] = await Promise.all([
    api(`/api/v1/permits/${id}`),
    listAll(`/api/v1/completion-notices?permit_id=${id}`),
    listAll(`/api/v1/final-reports?permit_id=${id}`),
    api(`/api/v1/certificates?permit_id=${id}`),
    listAll(`/api/v1/bonds?permit_id=${id}`),
    listAll(`/api/v1/orders?permit_id=${id}`),
    listAll(`/api/v1/cost-recoveries?permit_id=${id}`),
    listAll(`/api/v1/notifications?permit_id=${id}`),
    listAll(`/api/v1/photos?permit_id=${id}`),
    listAll(`/api/v1/findings?permit_id=${id}&status=open`),
    listAll(`/api/v1/violations?permit_id=${id}`),
    listAll(`/api/v1/citations?permit_id=${id}`)]);
  return { permit, notices, reports, certificate: certificates[0] || null, bonds, orders, costs, messages,
    photos: new Map(photos.map((p) => [p.id, p])), findings, violations, citations };
}

// What the supervisor decides on: the notice's photos with where they were taken, the report's
// documents (fetched with the sign-in token and offered as local files).
function evidence(rec, urls, photoRecords) {
  const photos = rec.photos || (rec.photo_ids || []).map((id) => ({ id, status: "uploaded" }));
  const docs = rec.documents || [];
  return [
    photos.length ? [h("h3", `Photos (${photos.length})`), h("div.photos", { dataset: { photoGroup: "" } }, photos.map((p) => p.status === "pending"
      ? h("figure.photo", { dataset: { photo: p.id } }, h("p", "Not received yet from the applicant's device"))
      : h("div", { dataset: { photoCard: p.id } }, thumb(p.id, "Photo of the completed work"), photoFacts(photoRecords.get(p.id)))))] : null,
    rec.documents ? [h("h3", `Documents (${docs.length})`), docs.length ? h("ul.plain", docs.map((d) => {
      if (d.on_paper) return h("li.item", { dataset: { reportDocument: d.id } }, `${label(d.kind)}: ${d.filename} (on paper, at the Town)`);
      const link = h("a.button", { "aria-disabled": "true", dataset: { reportDocument: d.id } }, `${label(d.kind)}: ${d.filename}`);
      raw(d.url).then((r) => r.blob()).then((blob) => {
        const url = URL.createObjectURL(blob);
        urls.push(url);
        link.href = url;
        link.download = d.filename;
        link.removeAttribute("aria-disabled");
      }).catch(() => { link.textContent = `${d.filename}: could not be fetched`; });
      return h("li.item", link);
    })) : h("p.muted", "No documents attached.")] : null];
}

// What follows accepting a notice or a report (R-F3, R-D3), said in the confirmation and again once taken.
const ACCEPT_FOLLOWS = "The certificate of completion can then be issued: it closes the permit, and the rest of any bond is released with it.";

function submissionCard(rec, what, path, run, urls, photoRecords) {
  const reasons = h("textarea", { rows: 3, name: "reasons" });
  const local = h("div", { "aria-live": "polite" });
  const decide = (decision) => async (event) => {
    const button = event.currentTarget;
    if (decision === "return" && !reasons.value.trim()) { mount(local, banner("error", `Give the reasons when returning the ${what.toLowerCase()}.`)); return; }
    const accept = decision === "accept";
    const ok = await confirmAction(accept
      ? { title: `Accept the ${what.toLowerCase()}?`, confirm: "Accept", body: [`The ${what.toLowerCase()} is accepted as the record of the completed work.`, ACCEPT_FOLLOWS] }
      : { title: `Return the ${what.toLowerCase()}?`, confirm: "Return with reasons", body: ["The applicant is sent your reasons and can correct it and submit it again."] });
    if (!ok) return;
    run(button, () => api(`/api/v1/${path}/${rec.id}/review`, { method: "POST", body: { decision, reasons: reasons.value.trim() || null } }),
      accept ? `${what} accepted. ${ACCEPT_FOLLOWS}` : `${what} returned to the applicant with your reasons.`);
  };
  const chip = rec.status === "accepted" ? "good" : rec.status === "returned" ? "bad" : "info";
  // R-F1: a notice is accepted only once one of its photos has arrived; pending ones are no evidence.
  const noEvidence = rec.photos && !rec.photos.some((p) => p.status === "uploaded");
  const why = noEvidence ? h("p.hint", { id: `why-accept-${rec.id}` },
    "None of the notice's photos has arrived yet: it can be accepted once at least one has (R-F1). It may be returned meanwhile.") : null;
  return h("section.card", { dataset: { closeout: rec.id } },
    h("div.split", h("h2", what), h(`span.chip.${chip}`, label(rec.status))),
    rec.statement ? h("p", rec.statement) : null,
    path === "final-reports" ? reportContent(rec) : null,
    h("dl.kv", h("dt", "Submitted"), h("dd", fmtDate(rec.submitted_at)),
      rec.completed_on ? [h("dt", "Work completed"), h("dd", fmtDate(rec.completed_on))] : null,
      rec.review && rec.review.reasons ? [h("dt", "Reasons given"), h("dd", rec.review.reasons)] : null),
    evidence(rec, urls, photoRecords),
    path === "final-reports" && ["draft", "returned"].includes(rec.status) ? paperDocuments(rec, run) : null,
    rec.status === "submitted" ? [field("Reasons for the applicant", reasons, "Required when returning."), local, why,
      h("div.actions", noEvidence
        ? h("button.primary", { type: "button", disabled: true, "aria-describedby": `why-accept-${rec.id}` }, "Accept")
        : h("button.primary", { type: "button", onclick: decide("accept") }, "Accept"),
        h("button.danger", { type: "button", onclick: decide("return") }, "Return with reasons"))] : null);
}

// R-F3, as the server holds it (completion/rules.py certificate_problem): the words of what still stands
// in the way of the certificate, or null once it may be issued.
export function certificateWaits(data) {
  const notice = data.permit.review_level === "administrative_review";
  const basis = notice ? data.notices : data.reports;
  if (data.permit.status !== "work_complete") {
    return `The permit is ${label(data.permit.status).toLowerCase()}: a certificate is issued once the work is reported complete.`;
  }
  if (!basis.some((r) => r.status === "accepted")) {
    return basis.length ? `The ${notice ? "completion notice" : "final report"} has not been accepted yet.`
      : `No ${notice ? "completion notice" : "final report"} has been filed yet.`;
  }
  return null;
}

function certificateCard(data, run, urls) {
  const { permit, certificate } = data;
  if (!certificate) {
    const waits = certificateWaits(data);
    return h("section.card", h("h2", "Certificate of completion"),
      h("p.muted", "Issued once the completion notice or final report is accepted; it closes the permit."),
      waits ? h("p.banner.info", { dataset: { test: "certificate-waits" } }, waits) : null,
      h("div.actions", h("button.primary", { type: "button", disabled: Boolean(waits), onclick: async (e) => {
        const button = e.currentTarget;
        if (!(await confirmAction({ title: "Issue the certificate of completion?", confirm: "Issue certificate",
          body: [`${(permit.site || {}).address || permit.number}: the certificate closes the permit. No more field records or close-out submissions are taken on it.`,
            "The owner's operation and maintenance obligations continue."] }))) return;
        run(button, () => api(`/api/v1/permits/${permit.id}/certificate`, { method: "POST", body: {} }),
          "Certificate of completion issued: the permit is closed, and the applicant is told.");
      } }, "Issue certificate of completion")));
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

// A phase is recorded complete while the work is on (parts.complete_phase): not before it commenced,
// not once the certificate closed the permit (what remains is then released whole, R-D3).
const PHASES_OPEN = ["active", "work_complete"];

const FORMS = { surety_bond: "Surety bond", letter_of_credit: "Letter of credit", cash: "Cash", other: "Other security" };

// R-D2: a phase is released once recorded complete in compliance; recording it is the first step.
function phaseCompletion(permitId, p, run) {
  const day = h("input", { type: "date", name: "completed_on", value: localDate() });
  const ok = h("input", { type: "checkbox", name: "in_compliance", checked: true });
  const local = h("div", { "aria-live": "polite" });
  const record = (e) => {
    if (!day.value) { mount(local, banner("error", "Give the day the phase was completed.")); return; }
    run(e.currentTarget, () => api(`/api/v1/permits/${permitId}/phases/${p.phase_id}/completion`,
      { method: "POST", body: { completed_on: day.value, in_compliance: ok.checked } }),
      `Phase ${p.phase_number || ""} recorded complete${ok.checked ? " in compliance: its share of the bond may now be released" : ""}.`);
  };
  return h("div.phase-complete", field(`Phase ${p.phase_number || ""} completed on`, day),
    h("label.check", ok, "Completed in compliance with the permit"), local,
    h("div.actions", h("button", { type: "button", onclick: record }, `Record phase ${p.phase_number || ""} complete`)));
}

// R-D3: the rest of a bond waits for the accepted completion notice (administrative review) or final
// report (permit) and the certificate; until then the phase releases stay below the amount (R-D2).
// The words, or null once the full release is open.
export function fullReleaseWaits(data) {
  const notice = data.permit.review_level === "administrative_review";
  const missing = [];
  if (!(notice ? data.notices : data.reports).some((r) => r.status === "accepted")) {
    missing.push(notice ? "the completion notice is accepted" : "the final report is accepted");
  }
  if (!data.certificate) missing.push("the certificate of completion is issued");
  return missing.length ? `The rest is released with the certificate of completion, once ${missing.join(" and ")} (R-D3).` : null;
}

const cents = (value) => Math.round(Number(value || 0) * 100);

function bondCard(bond, run, permit, waits) {
  const release = (body, words) => async (e) => {
    const button = e.currentTarget;
    if (!(await confirmAction({ title: `Release ${money(words.amount)}?`, confirm: `Release ${money(words.amount)}`,
      body: [`${words.what} of bond ${bond.reference || ""} (${permit.number || ""}) is released to the principal.`,
        "Released money cannot be taken back in the app."] }))) return;
    run(button, () => api(`/api/v1/bonds/${bond.id}/releases`, { method: "POST", body: { id: uuid(), ...body } }),
      `${money(words.amount)} of bond ${bond.reference || ""} released to the principal.`);
  };
  return h("section.card", { dataset: { bond: bond.id } },
    h("div.split", h("h2", `${FORMS[bond.form] || "Bond"} ${bond.reference || ""}`), h("span.chip.info", label(bond.status))),
    h("dl.kv", h("dt", "Amount"), h("dd", money(bond.amount)), h("dt", "Released"), h("dd", money(bond.released_amount)),
      h("dt", "Remaining"), h("dd", money(bond.remaining_amount))),
    (bond.phases || []).length ? h("ul.plain", bond.phases.map((p) => h("li.item", { dataset: { phase: p.phase_id } },
      h("div.split", h("span.label", `${phaseName(p)} · ${money(p.amount)}`),
        p.released ? h("span.chip.good", "Released") : p.completed_in_compliance ? h("span.chip.warn", "Complete in compliance")
          : p.completed_on ? h("span.chip.bad", "Complete, not in compliance") : h("span.chip.info", "Not complete")),
      !p.released && p.completed_in_compliance ? (waits && cents(bond.released_amount) + cents(p.amount) >= cents(bond.amount)
        ? [h("p.hint", { id: `why-${bond.id}-${p.phase_id}` }, `Releasing this phase would release the whole bond. ${waits}`),
          h("div.actions", h("button.primary", { type: "button", disabled: true, "aria-describedby": `why-${bond.id}-${p.phase_id}` },
            `Release phase ${p.phase_number || ""}`))]
        : h("div.actions", h("button.primary", { type: "button",
          onclick: release({ kind: "partial", phase_id: p.phase_id }, { amount: p.amount, what: phaseName(p) }) },
        `Release phase ${p.phase_number || ""}`))) : null,
      !p.released && !p.completed_on && bond.status !== "released" ? (PHASES_OPEN.includes(permit.status) ? phaseCompletion(permit.id, p, run)
        : permit.status === "issued" ? h("p.hint", "A phase is recorded complete once work has commenced.") : null) : null))) : null,
    bond.status !== "released" && waits ? [h("p.hint", { id: `why-full-${bond.id}` }, waits),
      h("div.actions", h("button", { type: "button", disabled: true, "aria-describedby": `why-full-${bond.id}` }, "Full release"))] : null,
    bond.status !== "released" && !waits ? h("div.actions", h("button", { type: "button",
      onclick: release({ kind: "full" }, { amount: bond.remaining_amount, what: "Everything that remains" }) }, "Full release")) : null);
}

export async function closeoutScreen(main, { id }) {
  const urls = [];
  const message = h("div", { "aria-live": "polite", dataset: { test: "told" } });
  const draw = async () => {
    if (!navigator.onLine) { offlineView(main, "Close-out"); return; }
    let data;
    try { data = await loadPermit(id); } catch (err) {
      if (err.offline) { offlineView(main, "Close-out"); return; }
      mount(main, h("h1", "Close-out"), banner("error", plain(err)));
      return;
    }
    mount(message);
    const run = decisionRunner(message, draw, NEEDS_CONNECTION);
    const { permit } = data;
    mount(main, h("p.backs", h("a.back", { href: `#/site/${permit.id}` }, "← Site"), h("a.back", { href: "#/deadlines" }, "← Deadlines")),
      h("div.split", h("h1", `Close-out — ${permit.number || "Permit"}`), h("span.chip.info", label(permit.status))),
      h("p.muted", [(permit.site || {}).address, LEVEL_TEXT[permit.review_level] || label(permit.review_level)].filter(Boolean).join(" · ")), message,
      data.notices.map((n) => submissionCard(n, "Completion notice", "completion-notices", run, urls, data.photos)),
      data.reports.map((r) => submissionCard(r, "Final report", "final-reports", run, urls, data.photos)),
      certificateCard(data, run, urls),
      data.bonds.map((b) => bondCard(b, run, permit, fullReleaseWaits(data))),
      ordersCard(data, run, urls),
      citationsCard(data, run, urls));
  };
  mount(main, h("h1", "Close-out"), h("p.loading", "Loading…"));
  await draw();
  return () => urls.forEach((u) => URL.revokeObjectURL(u));
}
