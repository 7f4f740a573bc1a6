// Applicant: what an application carries besides its form (R-C1 documents, R-B exemption claims with
// their evidence), the final report with its documents (R-F2), and what the Town asks of the
// applicant (orders, cost notices, findings). Documents and claims are checked by the office server
// as they are added, so they are added online; the device's copy is refreshed by the next sync.
import { h, mount, field, banner, label, fmtDate, select, uuid } from "../dom.js";
import { api, raw, listAll, plain } from "../api.js";
import { sha256Hex } from "../hash.js";
import { EXEMPTION_LABELS, EXEMPTION_KINDS, LEVEL_TEXT } from "../rules/determination.js";
import { DOCUMENT_KINDS, requiredDocuments, exemptionEvidence, documentItem } from "./applications.js";
import { go } from "../router.js";
import { syncNow } from "../sync.js";
import * as store from "../store.js";
import { findingOverdue, orderStatus } from "../rules/town.js";

const ONLINE_ONLY = "Adding documents and claims needs a connection to the office server; everything else here works offline.";
const OPEN_FOR_PAPERS = ["draft", "submitted", "under_review"];

// A document is its file (PDF or image), sent to the office server as it is chosen: the server reads
// its type from the bytes, checks the SHA-256 the device computed and stores it (README, Decisions).
async function uploadDocument(permitId, file, kind, title) {
  const bytes = await file.arrayBuffer();
  const params = new URLSearchParams({ id: uuid(), kind, filename: file.name.replace(/[\\/]/g, "_").slice(0, 255) });
  if (title) params.set("title", title);
  const response = await raw(`/api/v1/permits/${permitId}/document-files?${params}`, { method: "POST", body: bytes,
    headers: { "Content-Type": file.type || "application/octet-stream", "X-Content-SHA256": await sha256Hex(bytes) } });
  return response.json();
}

function fileChooser(text, accept) {
  const input = h("input", { type: "file", accept, "aria-label": text });
  const name = h("span.hint", { "aria-live": "polite" }, "No file chosen");
  input.addEventListener("change", () => { name.textContent = input.files && input.files[0] ? input.files[0].name : "No file chosen"; });
  return { input, el: h("span.photo-input", h("span.file-button", h("span.button", { "aria-hidden": "true" }, text), input), " ", name) };
}

async function refreshPermit(id) {
  const fresh = await api(`/api/v1/permits/${id}`);
  await store.saveServer("permit", { ...fresh, _server_version: fresh.version });
  return fresh;
}

export function documentsSection(permit, redraw) {
  const needed = requiredDocuments(permit.review_level);
  const have = new Set((permit.documents || []).map((d) => d.kind));
  const open = OPEN_FOR_PAPERS.includes(permit.status);
  const kind = select(Object.entries(DOCUMENT_KINDS), needed.find((k) => !have.has(k)) || "other", { name: "document-kind" });
  const title = h("input", { type: "text", name: "document-title" });
  const file = fileChooser("Choose the file", "application/pdf,image/jpeg,image/png,image/webp,image/heic");
  const message = h("div", { "aria-live": "polite" });
  const add = async (event) => {
    event.preventDefault();
    const chosen = file.input.files && file.input.files[0];
    if (!chosen) { mount(message, banner("error", "Choose the document's file (a PDF, or a photo of each sheet).")); return; }
    if (!navigator.onLine) { mount(message, banner("warn", ONLINE_ONLY)); return; }
    const button = event.submitter || event.currentTarget.querySelector("button[type=submit]");
    button.disabled = true;
    try {
      mount(message, banner("info", `Sending ${chosen.name}…`));
      await uploadDocument(permit.id, chosen, kind.value, title.value.trim());
      await refreshPermit(permit.id);
      await redraw();
    } catch (err) {
      button.disabled = false;
      mount(message, banner("error", plain(err)));
    }
  };
  return h("section.card", { "data-test": "documents" }, h("h2", "Documents"),
    needed.length ? h("ul.needs", needed.map((k) => h("li", { dataset: { need: k } },
      have.has(k) ? h("span.chip.good", "Attached") : h("span.chip.warn", "Needed"), " ", DOCUMENT_KINDS[k])))
      : h("p.muted", `${LEVEL_TEXT[permit.review_level] || "This project"}: no plan is required.`),
    (permit.documents || []).length ? h("ul.plain", permit.documents.map((d) => documentItem(d))) : null,
    open ? h("form", { onsubmit: add, novalidate: true }, h("h3", "Add a document"),
      field("Kind", kind), field("Title", title, "For example: ESC plan, sheets C-1 to C-4."), file.el,
      h("p.hint", "A PDF of the plan, or a photo of each sheet (JPEG, PNG, WebP, HEIC); the office server checks the file as it arrives."), message,
      h("div.actions", h("button.primary", { type: "submit" }, "Add document")))
      : h("p.hint", `The application is ${label(permit.status).toLowerCase()}: documents were closed with the decision.`));
}

// The evidence each claim needs (R-B table), as form fields.
function evidenceFields(kindValue, f) {
  const k = kindValue;
  const out = [];
  if (["B1", "B2", "B4"].includes(k)) out.push(field("Statement", f.statement, "Say what the work is and why it does not alter terrain or drainage."));
  if (k === "B1") out.push(h("label.check", f.single, "The property is a single-family dwelling"));
  if (k === "B3") out.push(field("Utility", f.utility, "Gas, water, sewer, electric, telephone … (not drainage)."));
  if (k === "B5" || k === "B6") {
    out.push(field(k === "B5" ? "Order of conditions number" : "Planning Board decision number", f.number),
      h("div.fields.cols", field("Issued on", f.issued), field("Expires on", f.expires)),
      field("The document", f.document, "Add it under Documents first (kind: other), then choose it here."));
  }
  return out;
}

export function exemptionsSection(permit, redraw) {
  const claims = permit.exemptions || [];
  const open = OPEN_FOR_PAPERS.includes(permit.status);
  const kind = select(EXEMPTION_KINDS.map((k) => [k, `${k}: ${EXEMPTION_LABELS[k]}`]), "B1", { name: "exemption-kind" });
  const f = {
    statement: h("textarea", { rows: 3, name: "statement" }),
    single: h("input", { type: "checkbox", name: "single_family" }),
    utility: select([["", "Choose…"], ["gas", "Gas"], ["water", "Water"], ["sewer", "Sewer"], ["electric", "Electric"], ["telephone", "Telephone"], ["cable", "Cable"]], "", { name: "utility_kind" }),
    number: h("input", { type: "text", name: "document_number" }),
    issued: h("input", { type: "date", name: "issued_on" }),
    expires: h("input", { type: "date", name: "expires_on" }),
    document: select([["", "Choose a document…"], ...(permit.documents || []).map((d) => [d.id, d.title || d.filename])], "", { name: "document_id" }),
  };
  const slot = h("div");
  const draw = () => mount(slot, evidenceFields(kind.value, f));
  kind.addEventListener("change", draw);
  draw();
  const message = h("div", { "aria-live": "polite" });
  const claim = async (event) => {
    event.preventDefault();
    const k = kind.value;
    const body = { id: uuid(), kind: k };
    if (["B1", "B2", "B4"].includes(k)) body.statement = f.statement.value.trim() || null;
    if (k === "B1") body.single_family = f.single.checked;
    if (k === "B3") body.utility_kind = f.utility.value || null;
    if (k === "B5" || k === "B6") Object.assign(body, { document_number: f.number.value.trim() || null,
      issued_on: f.issued.value || null, expires_on: f.expires.value || null, document_id: f.document.value || null });
    if (!navigator.onLine) { mount(message, banner("warn", ONLINE_ONLY)); return; }
    const button = event.submitter || event.currentTarget.querySelector("button[type=submit]");
    button.disabled = true;
    try {
      await api(`/api/v1/permits/${permit.id}/exemptions`, { method: "POST", body });
      await refreshPermit(permit.id);
      await redraw();
    } catch (err) {
      button.disabled = false;
      const details = Object.values(err.errors || {}).flat().filter((x) => typeof x === "string");
      mount(message, banner("error", plain(err), details.map((d) => h("p", d))));
    }
  };
  return h("section.card", { "data-test": "exemptions" }, h("h2", "Exemption claims (bylaw §B)"),
    claims.length ? h("ul.plain", claims.map((c) => h("li.item", { dataset: { exemption: c.id } },
      h("div.split", h("span.label", `${c.kind}: ${EXEMPTION_LABELS[c.kind] || ""}`),
        h(`span.chip.${c.status === "accepted" ? "good" : c.status === "rejected" ? "bad" : "info"}`, c.status === "claimed" ? "Waiting for the office" : label(c.status))),
      exemptionEvidence(c, permit.documents),
      c.decision_reason ? h("p", h("strong", "The office's reason: "), c.decision_reason) : null)))
      : h("p.muted", "No exemption claimed."),
    open ? h("form", { onsubmit: claim, novalidate: true }, h("h3", "Claim an exemption"),
      field("Exemption", kind), slot, message, h("div.actions", h("button.primary", { type: "submit" }, "Claim exemption")))
      : null);
}

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

export const ORDER_WORDS = { cease_and_desist: "Cease and desist", controls: "Install or maintain controls", monitoring: "Monitoring", remediation: "Remediation" };

// ---- Final report (R-F2) ---------------------------------------------------------------------
const REPORT_DOCS = [["as_built_plan", "As-built plan (stamped)"], ["cover_letter", "Cover letter (discrepancies)"],
  ["certification", "Certification"], ["om_documentation", "O&M records"], ["photo", "Photo"], ["other", "Other"]];
const MISSING_WORDS = { pls_stamp: "Land surveyor's stamp", pe_stamp: "Engineer's stamp", certification: "Certification",
  discrepancies: "Discrepancies", controls: "Controls on site", om_statement: "Operation and maintenance", documents: "Documents" };

export async function finalReportScreen(main, { id: permitId }) {
  const back = h("p", h("a.back", { href: `#/permit/${permitId}` }, "← Back to the permit"));
  if (!navigator.onLine) { mount(main, back, h("h1", "Final report"), banner("warn", "The final report is filed online: its documents are large and checked by the office server as they arrive. Connect, then open this screen again.")); return; }
  const draw = async () => {
    let report;
    try {
      report = (await listAll(`/api/v1/final-reports?permit_id=${permitId}`))[0] || null;
      if (!report) report = await api("/api/v1/final-reports", { method: "POST", body: { id: uuid(), permit_id: permitId } });
    } catch (err) {
      mount(main, back, h("h1", "Final report"), banner("error", plain(err)));
      return;
    }
    const editable = ["draft", "returned"].includes(report.status);
    const stamp = (s) => ({ name: h("input", { type: "text", value: (s || {}).name || "" }), license: h("input", { type: "text", value: (s || {}).license_number || "" }),
      date: h("input", { type: "date", value: (s || {}).stamp_date || "" }) });
    const pls = stamp(report.pls_stamp);
    const pe = stamp(report.pe_stamp);
    const peApplies = h("input", { type: "checkbox", checked: report.pe_applicable !== false });
    const cert = report.certification || {};
    const certBoxes = [["substantial_compliance", "The work substantially complies with the approved plan"],
      ["permanent_erosion_controls", "Permanent erosion controls are in place"], ["stormwater_facilities", "Stormwater facilities are built as approved"]]
      .map(([key, text]) => [key, h("input", { type: "checkbox", checked: cert[key] === true }), text]);
    const discrepancies = h("textarea", { rows: 3 }, (report.discrepancies || []).map((d) => d.description).join("\n"));
    const controls = h("textarea", { rows: 4 }, (report.controls || []).map((c) => `${c.name}${c.kind === "non_structural" ? " (non-structural)" : ""}`).join("\n"));
    const om = h("textarea", { rows: 3 }, report.om_statement || "");
    const docKind = select(REPORT_DOCS, "as_built_plan");
    const file = fileChooser("Choose the file", "application/pdf,image/jpeg,image/png,image/webp,image/heic");
    const message = h("div", { "aria-live": "polite" });
    const stampOf = (s) => (s.name.value.trim() || s.license.value.trim() || s.date.value
      ? { name: s.name.value.trim(), license_number: s.license.value.trim(), stamp_date: s.date.value || null } : null);
    const body = () => ({
      version: report.version, pls_stamp: stampOf(pls), pe_applicable: peApplies.checked, pe_stamp: peApplies.checked ? stampOf(pe) : null,
      certification: Object.fromEntries(certBoxes.map(([key, box]) => [key, box.checked])),
      discrepancies: discrepancies.value.split("\n").map((l) => l.trim()).filter(Boolean).map((description) => ({ description })),
      controls: controls.value.split("\n").map((l) => l.trim()).filter(Boolean).map((line) => ({
        name: line.replace(/\s*\(non-structural\)$/i, ""), kind: /\(non-structural\)$/i.test(line) ? "non_structural" : "structural" })),
      om_statement: om.value.trim() || null });
    const act = async (button, call) => {
      button.disabled = true;
      try { await call(); await draw(); } catch (err) {
        button.disabled = false;
        const details = Object.entries(err.errors || {}).filter(([k]) => k !== "current")
          .map(([k, v]) => `${MISSING_WORDS[k] || label(k)}: ${[].concat(v).join(" ")}`);
        mount(message, banner("error", plain(err), details.map((d) => h("p", d))));
      }
    };
    const save = (e) => act(e.currentTarget, () => api(`/api/v1/final-reports/${report.id}`, { method: "PATCH", body: body() }));
    const upload = (e) => act(e.currentTarget, async () => {
      const chosen = file.input.files && file.input.files[0];
      if (!chosen) throw Object.assign(new Error("Choose the document's file first."), { errors: {} });
      const bytes = await chosen.arrayBuffer();
      await raw(`/api/v1/final-reports/${report.id}/documents?kind=${docKind.value}&filename=${encodeURIComponent(chosen.name)}`,
        { method: "POST", body: bytes, headers: { "Content-Type": chosen.type || "application/octet-stream", "X-Content-SHA256": await sha256Hex(bytes) } });
    });
    const submit = (e) => act(e.currentTarget, async () => {
      await api(`/api/v1/final-reports/${report.id}`, { method: "PATCH", body: body() });
      await api(`/api/v1/final-reports/${report.id}/submit`, { method: "POST", body: {} });
      syncNow("report");
      go(`/permit/${permitId}`);
    });
    const missing = Object.entries(report.missing || {});
    mount(main, back, h("div.split", h("h1", "Final report"), h("span.chip.info", label(report.status))),
      h("p.muted", `Due by ${fmtDate(report.due_on)} (two years after the work was completed).`),
      report.review && report.review.reasons ? banner("warn", "Returned by the office: ", report.review.reasons) : null,
      editable && missing.length ? h("section.card", { "data-test": "report-missing" }, h("h2", "Still needed before you can submit"),
        h("ul", missing.map(([k, v]) => h("li", `${MISSING_WORDS[k] || label(k)}: ${[].concat(v).join(" ")}`)))) : null,
      h("section.card", { "data-test": "report-documents" }, h("h2", `Documents (${(report.documents || []).length})`),
        (report.documents || []).length ? h("ul.plain", report.documents.map((d) => h("li.item", h("span.label", d.filename),
          h("p.hint", `${(REPORT_DOCS.find((x) => x[0] === d.kind) || [0, label(d.kind)])[1]} · ${Math.ceil(d.bytes / 1024)} KB`)))) : h("p.muted", "None yet."),
        editable ? [field("Kind of document", docKind), file.el, h("div.actions", h("button", { type: "button", onclick: upload }, "Upload document"))] : null),
      editable ? h("form.card", { novalidate: true, onsubmit: (e) => e.preventDefault() },
        h("h2", "Stamps"),
        h("fieldset", h("legend", "Professional land surveyor (PLS)"), h("div.fields.cols3", field("Name", pls.name), field("License number", pls.license), field("Stamp date", pls.date))),
        h("label.check", peApplies, "A professional engineer's stamp applies to this project"),
        h("fieldset", h("legend", "Professional engineer (PE)"), h("div.fields.cols3", field("Name", pe.name), field("License number", pe.license), field("Stamp date", pe.date))),
        h("h2", "Certification"), certBoxes.map(([, box, text]) => h("label.check", box, text)),
        field("Discrepancies from the approved plan", discrepancies, "One a line; leave empty when there are none."),
        field("Controls on the site", controls, "One a line, e.g. “Infiltration basin”; add “(non-structural)” for practices."),
        field("Operation and maintenance", om, "How the system was operated and maintained under the O&M plan."),
        message,
        h("div.actions", h("button", { type: "button", onclick: save }, "Save draft"), h("button.primary", { type: "button", onclick: submit }, "Submit final report")))
        : h("p.card", `Submitted ${fmtDate(report.submitted_at)}; the office reviews it.`));
  };
  mount(main, back, h("h1", "Final report"), h("p.loading", "Loading…"));
  await draw();
}
