// A final report as the office reviews it (R-F2): what it says, and the papers delivered to the Town
// that a supervisor records by name on a report still being drafted or returned.
import { h, mount, field, banner, label, fmtDate, select } from "../dom.js";
import { api } from "../api.js";
import { REPORT_DOCS, MISSING_WORDS, CERTIFIES } from "./documents.js";

// R-F2: a paper the applicant delivered to the Town (a stamped as-built plan, the O&M log) counts as on
// file once a supervisor records it by name, on a report still being drafted or returned. The card says
// what the report still needs, so the supervisor records only what answers it.
export function paperDocuments(rec, run) {
  const kind = select(REPORT_DOCS, (rec.missing || {}).documents ? "om_documentation" : "as_built_plan", { name: "paper_kind" });
  const name = h("input", { type: "text", name: "paper_name", maxlength: 200, autocomplete: "off" });
  const local = h("div", { "aria-live": "polite" });
  const missing = Object.entries(rec.missing || {});
  const record = (event) => {
    event.preventDefault();
    if (!name.value.trim()) { mount(local, banner("error", "Write what the paper is, as the Town files it.")); return; }
    const button = event.submitter || event.currentTarget.querySelector("button[type=submit]");
    run(button, () => api(`/api/v1/final-reports/${rec.id}/paper-documents`, { method: "POST",
      body: { kind: kind.value, name: name.value.trim() } }));
  };
  return [missing.length ? h("div", { dataset: { test: "report-missing" } }, h("h3", "Still needed before the applicant can submit"),
    h("ul", missing.map(([k, v]) => h("li", `${MISSING_WORDS[k] || label(k)}: ${[].concat(v).join(" ")}`)))) : null,
  h("form", { onsubmit: record, novalidate: true, dataset: { paperDocument: rec.id } }, h("h3", "Record a document delivered on paper"),
    field("Kind", kind), field("What it is", name, "As the Town files it, e.g. “O&M log 2025–2026, delivered 3 March”."), local,
    h("div.actions", h("button", { type: "submit" }, "Record paper document")))];
}

// A final report as the supervisor accepts it (R-F2): the stamps, what is certified and by whom, the
// discrepancies from the approved plan, the controls left on the site and the O&M statement.
function stampWords(stamp) {
  return stamp ? `${stamp.name}, licence ${stamp.license_number}, stamped ${fmtDate(stamp.stamp_date)}` : "Not given";
}

export function reportContent(rec) {
  const cert = rec.certification || {};
  const none = (text) => h("p.muted", text);
  return h("div", { dataset: { test: "report-content" } },
    h("h3", "Stamps"),
    h("dl.kv", h("dt", "Land surveyor (PLS)"), h("dd", stampWords(rec.pls_stamp)),
      h("dt", "Engineer (PE)"), h("dd", rec.pe_applicable === false ? "No engineer's stamp applies to this project" : stampWords(rec.pe_stamp))),
    h("h3", "Certification"),
    h("ul.plain", CERTIFIES.map(([key, text]) => h("li.item", { dataset: { certifies: key } },
      h("div.split", h("span.label", text), cert[key] === true ? h("span.chip.good", "Certified") : h("span.chip.bad", "Not certified"))))),
    cert.statement ? h("p", cert.statement) : null,
    cert.certified_by ? h("p.hint", `Certified by ${cert.certified_by}`) : null,
    h("h3", "Discrepancies from the approved plan"),
    rec.discrepancies == null ? none("Not stated yet.") : rec.discrepancies.length ? h("ul", rec.discrepancies.map((d) => h("li",
      [d.description, d.location ? `at ${d.location}` : null, d.resolution ? `resolved: ${d.resolution}` : null].filter(Boolean).join(" — "))))
      : none("None: built as approved."),
    h("h3", "Controls on the site"),
    (rec.controls || []).length ? h("ul", rec.controls.map((c) => h("li",
      `${c.name} (${c.kind === "non_structural" ? "non-structural practice" : "structural"})${c.location ? `, ${c.location}` : ""}`))) : none("None listed."),
    h("h3", "Operation and maintenance"),
    rec.om_statement ? h("p", rec.om_statement) : none("No statement."));
}
