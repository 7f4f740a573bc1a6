// What an application carries besides its form: the documents its review level needs (R-C1) and the
// exemption claims with their evidence (R-B), as the applicant adds them on the permit screen and the
// supervisor reads them on the application screen. Documents and claims are checked by the office
// server as they are added, so they are added online; the device's copy is refreshed after each.
import { h, mount, field, banner, label, fmtDate, select, uuid } from "../dom.js";
import { api, raw, plain } from "../api.js";
import { sha256Hex } from "../hash.js";
import { EXEMPTION_LABELS, EXEMPTION_KINDS, LEVEL_TEXT } from "../rules/determination.js";
import { thumb } from "./photos.js";
import { downloadButton, fileWords, fileChooser } from "./files.js";
import { refreshPermit } from "./office.js";

export const DOCUMENT_KINDS = { esc_plan: "Erosion and sedimentation control plan (ESC plan)", om_plan: "Operation and maintenance plan (O&M plan)", other: "Other document" };
// A final report's documents (R-F2) and the words for what a report still needs before it is submitted.
export const REPORT_DOCS = [["as_built_plan", "As-built plan (stamped)"], ["cover_letter", "Cover letter (discrepancies)"],
  ["certification", "Certification"], ["om_documentation", "O&M records"], ["photo", "Photo"], ["other", "Other"]];
export const MISSING_WORDS = { pls_stamp: "Land surveyor's stamp", pe_stamp: "Engineer's stamp", certification: "Certification",
  discrepancies: "Discrepancies", controls: "Controls on site", om_statement: "Operation and maintenance", documents: "Documents" };
// What the engineer certifies on a final report (R-F2), in the words the applicant ticks and the office reads.
export const CERTIFIES = [["substantial_compliance", "The work substantially complies with the approved plan"],
  ["permanent_erosion_controls", "Permanent erosion controls are in place"], ["stormwater_facilities", "Stormwater facilities are built as approved"]];
const ONLINE_ONLY = "Adding documents and claims needs a connection to the office server; everything else here works offline.";
const OPEN_FOR_PAPERS = ["draft", "submitted", "under_review"];

// R-C1: every covered application carries an ESC plan; a land disturbance permit also an O&M plan.
export function requiredDocuments(reviewLevel) {
  if (reviewLevel === "land_disturbance_permit") return ["esc_plan", "om_plan"];
  if (reviewLevel === "administrative_review") return ["esc_plan"];
  return [];
}

export function missingDocuments(permit) {
  const have = new Set((permit.documents || []).map((d) => d.kind));
  return requiredDocuments(permit.review_level).filter((k) => !have.has(k));
}

// One document as the applicant and the supervisor see it: its title, kind, file and a way to open it.
export function documentItem(d, { added = false } = {}) {
  const file = d.url ? fileWords(d) : d.file_id ? "photo of the sheet" : "recorded by name: bring or send the file to the Stormwater office";
  return h("li.item", { dataset: { document: d.id } },
    h("span.label", d.title || d.filename),
    h("p.hint", [DOCUMENT_KINDS[d.kind] || label(d.kind), d.filename, file, added ? `added ${fmtDate(d.created_at)}` : null].filter(Boolean).join(" · ")),
    d.url ? h("div.actions", downloadButton(d)) : null,
    !d.url && d.file_id ? h("div.photos", { dataset: { photoGroup: "" } }, thumb(d.file_id, d.title || d.filename)) : null);
}

const EVIDENCE = [["statement", "Statement"], ["single_family", "Single-family dwelling"], ["utility_kind", "Utility"],
  ["document_number", "Number"], ["issued_on", "Issued"], ["expires_on", "Expires"]];

export function exemptionEvidence(claim, documents) {
  const rows = [];
  for (const [key, text] of EVIDENCE) {
    const v = claim[key];
    if (v === null || v === undefined || v === "") continue;
    rows.push(h("dt", text), h("dd", key.endsWith("_on") ? fmtDate(v) : typeof v === "boolean" ? (v ? "Yes" : "No") : v));
  }
  const doc = claim.document_id ? (documents || []).find((d) => d.id === claim.document_id) : null;
  if (claim.document_id) rows.push(h("dt", "Document"), h("dd", doc ? `${doc.title || doc.filename}` : "Attached document"));
  return h("div", rows.length ? h("dl.kv", rows) : h("p.muted", "No evidence given yet."),
    claim.document_photo_id ? h("div.photos", { dataset: { photoGroup: "" } }, thumb(claim.document_photo_id, `Photo of the ${claim.kind === "B5" ? "order of conditions" : "decision"}`)) : null);
}

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
