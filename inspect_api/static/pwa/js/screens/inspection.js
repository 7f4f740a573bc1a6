// An inspection (R-I2): kind, weather, phase, location, the checklist of the current template,
// notes, photos per item, findings with due dates; saved on the device at every tap and submitted
// for review. The R-E2 check runs on the device before it starts.
import { h, mount, field, select, uuid, nowIso, label, fmtDate, fmtTime, localDate, confirmAction, tellNext } from "../dom.js";
import * as store from "../store.js";
import * as outbox from "../outbox.js";
import { bestFix } from "../geo.js";
import { go } from "../router.js";
import { syncNow } from "../sync.js";
import { ceaseWarning, statusChip, pendingChip } from "../ui/status.js";
import { checkEntry, canDoFieldWork } from "../ui/fieldwork.js";
import { checklistView, unanswered } from "../ui/checklist.js";
import { owedAtAssignedSites } from "../ui/owed.js";
import { carryAnswers, stillCarried, recentDistinct, weatherValue, weatherWords } from "../rules/carry.js";

export const KINDS = ["routine", "pre_construction", "post_installation", "storm_event", "follow_up", "final", "complaint"];
const EDITABLE = ["draft", "returned"];

// The fields the API takes for an inspection (InspectionCreateSchema); sync strips the create-only
// ones (id, permit_id, device_created_at) when the change is an edit.
export function inspectionPayload(r) {
  return { id: r.id, permit_id: r.permit_id, entry_authorization_id: r.entry_authorization_id, kind: r.kind,
    started_at: r.started_at, ended_at: r.ended_at || null, location: r.location || null, weather: r.weather || null,
    phase: r.phase || null, unsafe_areas: r.unsafe_areas || [], notes: r.notes || null,
    disturbance_observed: Boolean(r.disturbance_observed), checklist: r.checklist,
    device_created_at: r.device_created_at };
}

// The kind a new inspection starts as: what the site owes soonest (a storm-event inspection after a storm,
// a follow-up of a finding), else routine. The inspector may still change it.
async function owedKind(permitId) {
  const { items } = await owedAtAssignedSites(Date.now());
  const owed = items.filter((o) => o.permit_id === permitId).sort((a, b) => a.due_at - b.due_at);
  return owed.length ? owed[0].kind : "routine";
}

function fixLocation() {
  const fix = bestFix();
  return fix ? { lat: fix.lat, lon: fix.lon, accuracy_m: Math.round(fix.accuracy_m * 10) / 10 } : null;
}

// `from` (the route /site/:id/inspection/from/:from): the inspection whose answers are carried over.
export async function startInspectionScreen(main, { id: permitId, from = null }) {
  const permit = await store.getPermit(permitId);
  const started = new Date();
  const { auth, problem } = await checkEntry(permitId, "examination", started);
  if (!permit || problem || !canDoFieldWork(permit)) {
    mount(main, h("p", h("a.back", { href: `#/site/${permitId}` }, "← Back to the site")), h("h1", "Cannot start the inspection"),
      h("div.banner.error", { "data-test": "entry-problem" }, problem || "You are not assigned to this site."),
      problem ? h("a.button.primary", { href: `#/site/${permitId}/entry` }, "Record an entry authorization") : null);
    return;
  }
  const template = await store.currentTemplate("esc") || await store.currentTemplate();
  const source = from ? await store.getRecord("inspection", from) : null;
  if (from && !(source && source.permit_id === permitId && ["submitted", "approved"].includes(source.status))) {
    mount(main, h("p", h("a.back", { href: `#/site/${permitId}` }, "← Back to the site")), h("h1", "Cannot start from that inspection"),
      h("div.banner.error", { "data-test": "carry-problem" }, "That inspection is not on this device as a submitted or approved inspection of this site."),
      h("a.button.primary", { href: `#/site/${permitId}/inspection/new` }, "Start a blank inspection"));
    return;
  }
  const carried = source ? { carried_from_id: source.id, items: carryAnswers(source, template ? template.items : []) } : { items: [] };
  const record = { id: uuid(), permit_id: permitId, entry_authorization_id: auth.id, kind: await owedKind(permitId), started_at: started.toISOString(),
    location: fixLocation(), weather: { conditions: null, temperature_f: null, rainfall_in_24h: null }, phase: null, notes: null,
    unsafe_areas: [], disturbance_observed: false, device_created_at: nowIso(), status: "draft",
    checklist: { template: template ? template.key : "esc", template_version: template ? template.version : null, ...carried } };
  await store.saveLocal("inspection", { ...record, version: null, _server_version: null });
  await outbox.queueMutation("inspection", record.id, inspectionPayload(record), `Inspection at ${(permit.site || {}).address}`);
  location.replace(`#/site/${permitId}/inspection/${record.id}`);
}

const CONDITIONS = ["clear", "partly cloudy", "overcast", "light rain", "heavy rain", "snow", "fog"];

// `recent`: the device's recent distinct weather readings, offered as one-tap choices.
function weatherFields(record, editable, save, recent = []) {
  const w = record.weather || (record.weather = {});
  const known = w.conditions && !CONDITIONS.includes(w.conditions) ? [...CONDITIONS, w.conditions] : CONDITIONS;
  const conditions = select([["", "Choose…"], ...known.map((c) => [c, label(c)])],
    w.conditions || "", { disabled: !editable });
  const temp = h("input", { type: "number", inputmode: "decimal", step: "1", value: w.temperature_f ?? "", disabled: !editable });
  const rain = h("input", { type: "number", inputmode: "decimal", step: "0.01", min: "0", value: w.rainfall_in_24h ?? "", disabled: !editable });
  conditions.addEventListener("change", () => { w.conditions = conditions.value || null; save(); });
  temp.addEventListener("input", () => { w.temperature_f = temp.value === "" ? null : Number(temp.value); save({ debounce: true }); });
  rain.addEventListener("input", () => { w.rainfall_in_24h = rain.value === "" ? null : Number(rain.value); save({ debounce: true }); });
  const use = (value) => {
    Object.assign(w, value);
    if (value.conditions && ![...conditions.options].some((o) => o.value === value.conditions)) {
      conditions.append(h("option", { value: value.conditions }, label(value.conditions)));
    }
    conditions.value = value.conditions || "";
    temp.value = value.temperature_f ?? "";
    rain.value = value.rainfall_in_24h ?? "";
    save();
  };
  const choices = editable && recent.length ? h("div.recent", { "data-test": "recent-weather" }, h("span.hint", "Recent weather:"),
    recent.map((value) => h("button.small", { type: "button", onclick: () => use(value) }, weatherWords(value)))) : null;
  return [h("div.fields.cols3", field("Weather", conditions), field("Temperature (°F)", temp), field("Rain in last 24 h (in)", rain)), choices];
}

function serverFindings(record) {
  const list = record.findings || [];
  if (!list.length) return null;
  return h("section.card", h("h2", "Findings recorded by the office"),
    h("ul.plain", list.map((f) => h("li.item", h("div.split", h("span.label", f.description),
      h("span.chip.warn", `Due ${fmtDate(f.due_on)}`)), f.required_action ? h("p.muted", f.required_action) : null))));
}

// The authorization the visit rests on, as the inspector knows it: basis, who granted it, until when.
function entryWords(ea) {
  if (!ea) return "Entry authorization: not on this device.";
  return `Entry by ${label(ea.basis).toLowerCase()}${ea.granted_by_name ? ` from ${ea.granted_by_name}` : ""}`
    + `${ea.valid_to ? `, valid until ${fmtDate(ea.valid_to)}` : ""}.`;
}

export async function inspectionScreen(main, { id: permitId, iid }) {
  const permit = await store.getPermit(permitId);
  const record = await store.getRecord("inspection", iid);
  if (!record) {
    mount(main, h("h1", "Inspection not on this device"), h("p", h("a", { href: `#/site/${permitId}` }, "Back to the site")));
    return null;
  }
  const editable = EDITABLE.includes(record.status) && canDoFieldWork(permit || {});
  const ea = record.entry_authorization_id ? await store.getRecord("entry_authorization", record.entry_authorization_id) : null;
  const template = (await store.templates()).find((t) => t.key === record.checklist.template && t.version === record.checklist.template_version)
    || await store.currentTemplate(record.checklist.template);
  const state = { answers: record.checklist.items || [] };
  const carriedFrom = record.checklist.carried_from_id;
  const source = carriedFrom ? await store.getRecord("inspection", carriedFrom) : null;
  const carried = carriedFrom ? { date: source ? fmtDate(source.started_at) : "the last inspection",
    photosOf: (key) => { const a = source && ((source.checklist || {}).items || []).find((x) => x.key === key); return a ? a.photo_ids || [] : []; } } : null;
  const recentWeather = editable ? recentDistinct((await store.allOf("inspection")).filter((r) => r.id !== record.id),
    (r) => weatherValue(r.weather), (r) => r.started_at) : [];
  const message = h("div", { "aria-live": "polite" });
  let timer = null;

  async function persist() {
    timer = null;
    if (!EDITABLE.includes(record.status)) return;  // submitted: later edits wait for a return
    record.checklist = { ...record.checklist, items: state.answers };
    await store.saveLocal("inspection", record);
    await outbox.queueMutation("inspection", record.id, inspectionPayload(record), `Inspection at ${(permit.site || {}).address}`);
  }
  // Taps save at once; typing saves after a short pause.
  function save({ debounce = false } = {}) {
    clearTimeout(timer);
    timer = null;
    if (debounce) timer = setTimeout(persist, 500);
    else persist();
  }

  const kind = select(KINDS.map((k) => [k, label(k)]), record.kind, { disabled: !editable });
  kind.addEventListener("change", () => { record.kind = kind.value; save(); });
  const phases = (permit.phases || []).map((p) => p.name);
  const phase = h("input", { type: "text", list: "phase-list", value: record.phase || "", disabled: !editable });
  phase.addEventListener("input", () => { record.phase = phase.value || null; save({ debounce: true }); });
  const notes = h("textarea", { rows: 3, disabled: !editable }, record.notes || "");
  notes.addEventListener("input", () => { record.notes = notes.value || null; save({ debounce: true }); });
  const disturbance = h("input", { type: "checkbox", checked: record.disturbance_observed, disabled: !editable });
  disturbance.addEventListener("change", () => { record.disturbance_observed = disturbance.checked; save(); });
  const where = h("span", record.location ? `${record.location.lat.toFixed(5)}, ${record.location.lon.toFixed(5)} (±${Math.round(record.location.accuracy_m || 0)} m)` : "No location fix");
  const relocate = editable ? h("button.small", { type: "button", onclick: () => {
    const loc = fixLocation();
    if (loc) { record.location = loc; where.textContent = `${loc.lat.toFixed(5)}, ${loc.lon.toFixed(5)} (±${Math.round(loc.accuracy_m)} m)`; save(); }
  } }, "Use current location") : null;

  const photoMeta = () => ({ permit_id: permitId, parent_type: "inspection", parent_id: record.id });
  const checklist = template ? checklistView(template, state, { editable, photoMeta, change: save, observedOn: localDate(new Date(record.started_at)), carried })
    : h("div.banner.warn", "The checklist template is not on this device yet. Sync once while online.");

  async function submit() {
    const missing = template ? unanswered(template.items, state.answers) : ["checklist"];
    if (missing.length) {
      mount(message, h("div.banner.error", `Answer every checklist item before submitting (${missing.length} left; use N/A where it does not apply).`));
      return;
    }
    // Carried-over answers say what was seen last time, not today: each is confirmed or changed first
    // (the server refuses the submission too).
    const left = stillCarried(state.answers);
    if (left.length) {
      const names = template.items.map((item, n) => (left.includes(item.key) ? `${n + 1}. ${item.label}` : null)).filter(Boolean);
      mount(message, h("div.banner.error", { "data-test": "carried-problem" },
        `Confirm (“Still so”) or change each answer carried over from the last inspection before submitting. Still carried over: ${names.join("; ")}.`));
      return;
    }
    clearTimeout(timer);
    timer = null;
    record.ended_at = record.ended_at || nowIso();
    await persist();
    record.status = "submitted";
    await store.saveLocal("inspection", record);
    await outbox.queueCall("inspection", record.id, "POST", `/api/v1/inspections/${record.id}/submit`, {},
      `Submitting the inspection at ${(permit.site || {}).address}`,
      { path: `/api/v1/inspections/${record.id}`, field: "status", values: ["submitted", "approved"] });
    go(`/site/${permitId}`);
    syncNow("submitted");
  }

  // A draft started by mistake (the wrong site, a visit that did not happen) leaves the device, and the
  // office too once it was sent; its photos not yet sent go with it. Only a draft: a submitted
  // inspection stays on record (the server refuses to delete one).
  async function discard() {
    // The stored copy, not the one this screen opened with: a sync since may have sent the draft.
    const stored = await store.getRecord("inspection", record.id);
    const serverVersion = stored ? stored._server_version : record._server_version;
    const sent = serverVersion != null;
    const ok = await confirmAction({ title: "Discard this draft inspection?", confirm: "Discard draft", danger: true,
      body: ["Its answers, notes and the photos not yet sent are removed from this device.",
        sent ? "It reached the office as a draft: it is deleted there at the next sync." : "It was never sent: nothing of it reaches the office."] });
    if (!ok) return;
    clearTimeout(timer);
    timer = null;
    for (const item of await outbox.items()) {
      if (item.kind === "photo" && item.parent_id === record.id) await outbox.removeItem(item.seq);
    }
    for (const item of await outbox.forRecord("inspection", record.id)) {
      if (!item.sent) await outbox.removeItem(item.seq);
    }
    if (sent) await outbox.queueDelete("inspection", record.id, serverVersion, `Discarding the draft inspection at ${(permit.site || {}).address}`);
    await store.forget("inspection", record.id);
    tellNext("ok", sent ? "Draft inspection discarded: it is deleted at the office at the next sync." : "Draft inspection discarded.");
    go(`/site/${permitId}`);
    if (sent) syncNow("discarded");
  }

  const review = record.status === "returned" && record.review_comment
    ? h("div.banner.warn", "Returned by the supervisor: ", record.review_comment) : null;
  // A read-only inspection says why it cannot be changed.
  const why = editable ? null : !canDoFieldWork(permit || {})
    ? "You are not assigned to this site: you can read this inspection, not change it."
    : record.status === "submitted" ? "Submitted for review: it can be changed again only if the supervisor returns it."
      : record.status === "approved" ? "Approved and locked (R-I5): a later change is a new inspection that refers to this one."
        : null;
  mount(main,
    h("p", h("a.back", { href: `#/site/${permitId}` }, "← Back to the site")),
    h("div.split", h("h1", `Inspection — ${(permit && permit.site && permit.site.address) || ""}`), h("span", statusChip(record.status), " ", pendingChip(record))),
    ceaseWarning(permit), review, why ? h("p.banner.info", { "data-test": "read-only" }, why) : null,
    carried && editable && stillCarried(state.answers).length ? h("p.banner.info", { "data-test": "carried-from" },
      `Started from the inspection of ${carried.date}${source ? ` (${label(source.kind).toLowerCase()})` : ""}: its answers and notes are filled in and marked. `
      + "Confirm each (“Still so”) or change it; photos are not carried over.") : null,
    h("section.card",
      h("div.fields.cols", field("Kind", kind), field("Construction phase", phase)),
      h("datalist", { id: "phase-list" }, phases.map((p) => h("option", { value: p }))),
      weatherFields(record, editable, save, recentWeather),
      h("div.field", h("span.label", "Location"), h("div.split", where, relocate)),
      h("label.check", disturbance, "Land disturbance observed at the site"),
      h("p.hint", `Started ${fmtTime(record.started_at)}. `, entryWords(ea))),
    h("section.card", checklist),
    h("section.card", field("Notes", notes)),
    serverFindings(record),
    message,
    editable ? h("div.actions",
      h("button.primary", { type: "button", onclick: submit }, "Submit for review"),
      h("a.button", { href: `#/site/${permitId}/sample/${uuid()}` }, "Take a sample"),
      h("a.button", { href: `#/site/${permitId}` }, "Save and close"),
      record.status === "draft" ? h("button.danger", { type: "button", onclick: discard }, "Discard draft") : null) : null);
  return () => { if (timer) { clearTimeout(timer); persist(); } };
}
