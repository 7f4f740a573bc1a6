// A sample (R-S): when, who, grab or composite, field or lab, where, and parameters with unit
// pickers; a reading past an action level (R-S2) is flagged the moment it is typed.
import { h, mount, field, select, nowIso, toLocalInput, fromLocalInput, label } from "../dom.js";
import * as store from "../store.js";
import * as outbox from "../outbox.js";
import { meta } from "../db.js";
import { currentUser } from "../auth.js";
import { bestFix } from "../geo.js";
import { go } from "../router.js";
import { syncNow } from "../sync.js";
import { PARAMETERS, DEFAULT_LEVELS, actionWarnings, valueProblem } from "../rules/samples.js";
import { ceaseWarning } from "../ui/status.js";
import { checkEntry, canDoFieldWork } from "../ui/fieldwork.js";

export function samplePayload(r) {
  return { id: r.id, permit_id: r.permit_id, entry_authorization_id: r.entry_authorization_id, sampled_at: r.sampled_at,
    sampler: r.sampler, location: r.location ? { lat: r.location.lat, lon: r.location.lon } : null, outfall_id: r.outfall_id || null,
    sample_type: r.sample_type, analysis: r.analysis, lab_name: r.analysis === "lab" ? r.lab_name || null : null,
    parameters: r.parameters.map((p) => ({ name: p.name, value: String(p.value), unit: p.unit })), notes: r.notes || null,
    device_created_at: r.device_created_at };
}

function parameterRow(p, levels, onChange, onRemove) {
  const name = select(Object.entries(PARAMETERS).map(([k, v]) => [k, v.label]), p.name, { "aria-label": "Parameter" });
  const unit = select(Object.keys(PARAMETERS[p.name].units).map((u) => [u, u]), p.unit, { "aria-label": "Unit" });
  const value = h("input", { type: "text", inputmode: "decimal", value: p.value ?? "", "aria-label": "Reading", placeholder: "Reading" });
  const notes = h("div", { "aria-live": "polite" });
  const check = () => {
    const problem = p.value === "" ? null : valueProblem(p.name, p.value, p.unit);
    const warnings = actionWarnings(p.name, p.value, p.unit, levels);
    mount(notes, problem ? h("div.banner.error", problem) : null,
      warnings.map((w) => h("div.banner.warn", { "data-test": "action-level" }, w)));
  };
  name.addEventListener("change", () => {
    p.name = name.value;
    p.unit = Object.keys(PARAMETERS[p.name].units)[0];
    mount(unit, Object.keys(PARAMETERS[p.name].units).map((u) => h("option", { value: u, selected: u === p.unit }, u)));
    check(); onChange();
  });
  unit.addEventListener("change", () => { p.unit = unit.value; check(); onChange(); });
  value.addEventListener("input", () => { p.value = value.value.trim(); check(); onChange(); });
  check();
  return h("div.item", { dataset: { parameter: p.name } },
    h("div.fields.cols3", field("Parameter", name), field("Reading", value), field("Unit", unit)),
    notes, h("button.small.danger", { type: "button", onclick: onRemove }, "Remove"));
}

export async function sampleScreen(main, { id: permitId, sid }) {
  const permit = await store.getPermit(permitId);
  let record = await store.getRecord("sample", sid);
  const back = h("p", h("a.back", { href: `#/site/${permitId}` }, "← Back to the site"));
  if (!record) {
    const { auth, problem } = await checkEntry(permitId, "sampling");
    if (problem || !permit || !canDoFieldWork(permit)) {
      mount(main, back, h("h1", "Cannot take a sample"), h("div.banner.error", { "data-test": "entry-problem" }, problem || "You are not assigned to this site."),
        problem ? h("a.button.primary", { href: `#/site/${permitId}/entry` }, "Record an entry authorization") : null);
      return;
    }
    const fix = bestFix();
    record = { id: sid, permit_id: permitId, entry_authorization_id: auth.id, sampled_at: nowIso(), sampler: currentUser().name,
      location: fix ? { lat: fix.lat, lon: fix.lon } : null, outfall_id: "", sample_type: "grab", analysis: "field", lab_name: "",
      parameters: [{ name: "turbidity", value: "", unit: "NTU" }], notes: "", device_created_at: nowIso(), _new: true };
  }
  const levels = (await meta.get("action_levels")) || DEFAULT_LEVELS;
  record.parameters = (record.parameters || []).map((p) => ({ name: PARAMETERS[p.name] ? p.name : "turbidity", value: p.value ?? "", unit: p.unit }));
  const sampledAt = h("input", { type: "datetime-local", value: toLocalInput(record.sampled_at) });
  const sampler = h("input", { type: "text", value: record.sampler || "" });
  const type = select([["grab", "Grab"], ["composite", "Composite"]], record.sample_type);
  const analysis = select([["field", "Field reading"], ["lab", "Sent to a lab"]], record.analysis);
  const outfall = h("input", { type: "text", value: record.outfall_id || "", placeholder: "e.g. OF-1" });
  const lab = h("input", { type: "text", value: record.lab_name || "" });
  const notes = h("textarea", { rows: 2 }, record.notes || "");
  const rows = h("div");
  const message = h("div", { "aria-live": "polite" });
  const drawRows = () => mount(rows, record.parameters.map((p, i) => parameterRow(p, levels, () => {}, () => { record.parameters.splice(i, 1); drawRows(); })));
  drawRows();

  async function save(event) {
    event.preventDefault();
    // The picker shows minutes: keep the stored instant unless the user changed the time.
    const when = sampledAt.value === toLocalInput(record.sampled_at) ? record.sampled_at : fromLocalInput(sampledAt.value);
    Object.assign(record, { sampled_at: when, sampler: sampler.value.trim(), sample_type: type.value,
      analysis: analysis.value, outfall_id: outfall.value.trim(), lab_name: lab.value.trim(), notes: notes.value.trim() });
    const problems = record.parameters.map((p) => valueProblem(p.name, p.value, p.unit)).filter(Boolean);
    if (!record.sampler) problems.push("Enter who took the sample.");
    if (!record.parameters.length) problems.push("Add at least one reading.");
    if (problems.length) { mount(message, h("div.banner.error", problems.map((p) => h("p", p)))); return; }
    const { _new, ...clean } = record;
    await store.saveLocal("sample", { ...clean, version: clean.version ?? null });
    await outbox.queueMutation("sample", record.id, samplePayload(record), `Sample at ${(permit.site || {}).address}`);
    go(`/site/${permitId}`);
    syncNow("saved");
  }

  const exceedances = (record.exceedances || []).map((e) => h("div.banner.warn", `${label(e.parameter)} ${e.value} ${e.unit}: exceeds the action level (${e.rule || "R-S2"}).`));
  mount(main, back, h("h1", record._new ? "New sample" : "Sample"), ceaseWarning(permit),
    h("form.card", { onsubmit: save, novalidate: true },
      h("div.fields.cols", field("Sampled at", sampledAt), field("Sampler", sampler), field("Type", type), field("Analysis", analysis),
        field("Discharge point (outfall)", outfall), field("Lab name", lab, "Only for lab analysis.")),
      h("p.hint", record.location ? `Location ${record.location.lat.toFixed(5)}, ${record.location.lon.toFixed(5)}` : "No location fix."),
      h("h2", "Readings"), rows,
      h("div.actions", h("button", { type: "button", onclick: () => { record.parameters.push({ name: "ph", value: "", unit: "SU" }); drawRows(); } }, "Add reading")),
      exceedances, field("Notes", notes), message,
      h("div.actions", h("button.primary", { type: "submit" }, "Save sample"), h("a.button", { href: `#/site/${permitId}` }, "Cancel"))));
}
