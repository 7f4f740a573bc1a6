// A sample (R-S): when, who, grab or composite, field or lab, where, and parameters with unit
// pickers; a reading past an action level (R-S2) is flagged the moment it is typed. Its chain of
// custody (ui/custody.js): containers and preservatives, hand-overs signed on the tablet, the lab's
// receipt, holding times counting down, and the custody form for the lab.
import { h, mount, field, select, nowIso, toLocalInput, fromLocalInput, label } from "../dom.js";
import * as store from "../store.js";
import * as outbox from "../outbox.js";
import { meta } from "../db.js";
import { currentUser } from "../auth.js";
import { bestFix } from "../geo.js";
import { go } from "../router.js";
import { syncNow } from "../sync.js";
import { DEFAULT_LEVELS } from "../rules/samples.js";
import { sha256Hex } from "../hash.js";
import { formParameter, parameterPayload, parameterProblems, parameterRow } from "../ui/sample_params.js";
import { holdingPanel, transferList, handOverForm, labReceipt, custodyLink } from "../ui/custody.js";
import { ceaseWarning } from "../ui/status.js";
import { checkEntry, canDoFieldWork } from "../ui/fieldwork.js";
import { recentDistinct } from "../rules/carry.js";

// The device's recent distinct values of a sample field, newest first, as a <datalist> of choices.
async function recentList(id, recordId, valueOf) {
  const others = (await store.allOf("sample")).filter((r) => r.id !== recordId);
  return h("datalist", { id }, recentDistinct(others, (r) => (valueOf(r) || "").trim() || null, (r) => r.sampled_at).map((v) => h("option", { value: v })));
}

export function samplePayload(r) {
  return { id: r.id, permit_id: r.permit_id, entry_authorization_id: r.entry_authorization_id, sampled_at: r.sampled_at,
    sampler: r.sampler, location: r.location ? { lat: r.location.lat, lon: r.location.lon } : null, outfall_id: r.outfall_id || null,
    sample_type: r.sample_type, analysis: r.analysis, lab_name: r.analysis === "lab" ? r.lab_name || null : null,
    parameters: r.parameters.map(parameterPayload), notes: r.notes || null,
    chain_of_custody: (r.chain_of_custody || []).map((t) => ({ from_name: t.from_name, to_name: t.to_name, at: t.at,
      signature_photo_id: t.signature_photo_id || null })),
    received_by_lab_at: r.received_by_lab_at || null, lab_received_by: r.lab_received_by || null,
    lab_receipt_temperature_c: r.lab_receipt_temperature_c ?? null, analyzed_at: r.analyzed_at || null,
    device_created_at: r.device_created_at };
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
      parameters: [{ name: "turbidity", value: "", unit: "NTU" }], chain_of_custody: [], notes: "", device_created_at: nowIso(), _new: true };
  }
  const levels = (await meta.get("action_levels")) || DEFAULT_LEVELS;
  record.parameters = (record.parameters || []).map(formParameter);
  record.chain_of_custody = record.chain_of_custody || [];
  const sampledAt = h("input", { type: "datetime-local", value: toLocalInput(record.sampled_at) });
  const sampler = h("input", { type: "text", value: record.sampler || "", list: "recent-samplers" });
  const type = select([["grab", "Grab"], ["composite", "Composite"]], record.sample_type);
  const analysis = select([["field", "Field reading"], ["lab", "Sent to a lab"]], record.analysis);
  const outfall = h("input", { type: "text", value: record.outfall_id || "", placeholder: "e.g. OF-1" });
  const lab = h("input", { type: "text", value: record.lab_name || "", list: "recent-labs" });
  const recent = [await recentList("recent-samplers", record.id, (r) => r.sampler), await recentList("recent-labs", record.id, (r) => r.lab_name)];
  const notes = h("textarea", { rows: 2 }, record.notes || "");
  const rows = h("div");
  const message = h("div", { "aria-live": "polite" });
  const urls = [];
  // The picker shows minutes: keep the stored instant unless the user changed the time.
  const sampledAtNow = () => (sampledAt.value === toLocalInput(record.sampled_at) ? record.sampled_at : fromLocalInput(sampledAt.value)) || record.sampled_at;
  const receipt = labReceipt(record);
  const holding = holdingPanel(() => ({ ...record, sampled_at: sampledAtNow(), analysis: analysis.value,
    analyzed_at: receipt.values().values.analyzed_at }));
  const drawRows = () => mount(rows, record.parameters.map((p, i) => parameterRow(p, levels, holding.draw, () => { record.parameters.splice(i, 1); drawRows(); holding.draw(); })));
  drawRows();
  const showLab = () => { receipt.el.hidden = analysis.value !== "lab"; holding.draw(); };
  analysis.addEventListener("change", showLab);
  sampledAt.addEventListener("change", holding.draw);
  showLab();
  const transfers = h("div");
  const drawTransfers = () => mount(transfers, transferList(record.chain_of_custody));
  drawTransfers();

  // The form's values into the record; the problems that keep it from being saved.
  function collect() {
    const { values, problems } = receipt.values();
    Object.assign(record, { sampled_at: sampledAtNow(), sampler: sampler.value.trim(), sample_type: type.value,
      analysis: analysis.value, outfall_id: outfall.value.trim(), lab_name: lab.value.trim(), notes: notes.value.trim(),
      ...(analysis.value === "lab" ? values : { received_by_lab_at: null, lab_received_by: null, lab_receipt_temperature_c: null }) });
    problems.unshift(...parameterProblems(record.parameters, record.analysis));
    if (!record.sampler) problems.push("Enter who took the sample.");
    if (!record.parameters.length) problems.push("Add at least one reading.");
    return problems;
  }

  async function persist() {
    const { _new, ...clean } = record;
    await store.saveLocal("sample", { ...clean, version: clean.version ?? null });
    await outbox.queueMutation("sample", record.id, samplePayload(record), `Sample at ${(permit.site || {}).address}`);
  }

  async function save(event) {
    event.preventDefault();
    const problems = collect();
    if (problems.length) { mount(message, h("div.banner.error", problems.map((p) => h("p", p)))); return; }
    await persist();
    go(`/site/${permitId}`);
    syncNow("saved");
  }

  // A hand-over is recorded at once, offline too: the sample as it stands, the transfer, and the
  // signature as a photo of the sample (sent after the sample, like an entry authorization's).
  async function recordHandOver(transfer, png) {
    const problems = collect();
    if (problems.length) return `Complete the sample first: ${problems.join(" ")}`;
    const fix = bestFix();
    const photo = await outbox.queuePhoto(png, { permit_id: permitId, parent_type: "sample", parent_id: record.id,
      content_type: "image/png", filename: "signature.png", captured_at: nowIso(), sha256: await sha256Hex(png),
      device_lat: fix && fix.lat, device_lon: fix && fix.lon, device_accuracy_m: fix && fix.accuracy_m,
      label: `Signature of ${transfer.to_name} at hand-over` });
    record.chain_of_custody.push({ ...transfer, signature_photo_id: photo.id });
    await persist();
    drawTransfers();
    holding.draw();
    syncNow("saved");
    return null;
  }
  const lastHolder = () => {
    const list = record.chain_of_custody;
    return list.length ? list[list.length - 1].to_name : sampler.value.trim() || currentUser().name;
  };
  const earliest = () => {
    const list = record.chain_of_custody;
    return list.length ? { at: list[list.length - 1].at, what: "the last hand-over" } : { at: sampledAtNow(), what: "the time sampled" };
  };

  const exceedances = (record.exceedances || []).map((e) => h("div.banner.warn", `${label(e.parameter)} ${e.value} ${e.unit}: exceeds the action level (${e.rule || "R-S2"}).`));
  mount(main, back, h("h1", record._new ? "New sample" : "Sample"), ceaseWarning(permit),
    h("form.card", { onsubmit: save, novalidate: true },
      h("div.fields.cols", field("Sampled at", sampledAt), field("Sampler", sampler), field("Type", type), field("Analysis", analysis),
        field("Discharge point (outfall)", outfall), field("Lab name", lab, "Only for lab analysis.")), recent,
      h("p.hint", record.location ? `Location ${record.location.lat.toFixed(5)}, ${record.location.lon.toFixed(5)}` : "No location fix."),
      h("h2", "Readings"), rows,
      h("div.actions", h("button", { type: "button", onclick: () => { record.parameters.push(formParameter({ name: "ph", value: "", unit: "SU" })); drawRows(); holding.draw(); } }, "Add reading")),
      exceedances, holding.el,
      h("section", { "data-test": "custody" }, h("h2", "Chain of custody"), transfers,
        handOverForm({ defaultFrom: lastHolder, earliest, onRecord: recordHandOver }), custodyLink(record, permit, urls)),
      receipt.el, field("Notes", notes), message,
      h("div.actions", h("button.primary", { type: "submit" }, "Save sample"), h("a.button", { href: `#/site/${permitId}` }, "Cancel"))));
  return () => { holding.stop(); urls.forEach((u) => URL.revokeObjectURL(u)); };
}
