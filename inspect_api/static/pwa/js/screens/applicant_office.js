// Applicant: the final report with its documents (R-F2), filed online: its documents are large and
// checked by the office server as they arrive. (The permit screen's documents, exemption claims and
// what the Town asks are in ui/documents.js and ui/town_asks.js.)
import { h, mount, field, banner, label, fmtDate, select, uuid } from "../dom.js";
import { api, raw, listAll, plain } from "../api.js";
import { sha256Hex } from "../hash.js";
import { go } from "../router.js";
import { syncNow } from "../sync.js";
import { fileChooser } from "../ui/files.js";
import { REPORT_DOCS, MISSING_WORDS, CERTIFIES } from "../ui/documents.js";

// ---- Final report (R-F2) ---------------------------------------------------------------------

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
    const certBoxes = CERTIFIES.map(([key, text]) => [key, h("input", { type: "checkbox", checked: cert[key] === true }), text]);
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
        h("ul", missing.map(([k, v]) => h("li", `${MISSING_WORDS[k] || label(k)}: ${[].concat(v).join(" ")}`))),
        missing.some(([k]) => k === "documents") ? h("p.hint", "A document you deliver to the Town on paper counts once the office records it on this report.") : null) : null,
      h("section.card", { "data-test": "report-documents" }, h("h2", `Documents (${(report.documents || []).length})`),
        (report.documents || []).length ? h("ul.plain", report.documents.map((d) => h("li.item", h("span.label", d.filename),
          h("p.hint", `${(REPORT_DOCS.find((x) => x[0] === d.kind) || [0, label(d.kind)])[1]} · ${d.on_paper ? "delivered on paper, recorded by the Town" : `${Math.ceil(d.bytes / 1024)} KB`}`)))) : h("p.muted", "None yet."),
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
