// Prints, as JSON, the request bodies the field app builds with its own payload code, one per
// operation it sends them to, for tests/contract/test_app_payloads.py to check against the published
// OpenAPI document. The records are the shapes the screens keep (the values a form gives: numbers
// from number inputs, booleans from checkboxes, trimmed text); each edit is the create payload as
// sync sends it once the record has a server version (create-only fields stripped).
import { permitPayload } from "../../inspect_api/static/pwa/js/screens/application.js";
import { inspectionPayload } from "../../inspect_api/static/pwa/js/screens/inspection.js";
import { samplePayload } from "../../inspect_api/static/pwa/js/screens/sample.js";
import { mutationOf, pushBody } from "../../inspect_api/static/pwa/js/sync.js";
import { entryPayload, RELATIONS } from "../../inspect_api/static/pwa/js/screens/entry.js";
import { noticePayload } from "../../inspect_api/static/pwa/js/screens/completion.js";
import { KINDS, requestPayload } from "../../inspect_api/static/pwa/js/screens/requests.js";
import { ACTIVITIES, BASES } from "../../inspect_api/static/pwa/js/rules/entry.js";
import { localDate } from "../../inspect_api/static/pwa/js/dom.js";
import { addDays, localDay, settingsOf } from "../../inspect_api/static/pwa/js/rules/program.js";
import { annotationPayload } from "../../inspect_api/static/pwa/js/ui/annotations.js";

const PERMIT = "5f0c1e52-8f7e-4a47-9b1c-2d7f0a3b9c11";
const AUTH = "0b6f3c2e-4d1a-4f5e-8a9b-1c2d3e4f5a6b";
const PHOTO = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d";
const at = "2026-05-04T14:03:00.000Z";

// screens/application.js values(): an application as typed, and one with every optional field empty
const forms = [
  { address: "12 Main Street", parcel_id: "24-117", lat: 41.6376, lon: -70.9036, owner_name: "Pat Owner",
    owner_email: "pat@example.org", owner_phone: "508-555-0100", area: 12000, ms4: true, waters: false,
    use: "single-family dwelling", luhppl: "other", luhppl_description: "Fuel storage", description: "New house",
    // as the map pick gives it (ui/map_pick.js): one closed ring of [lon, lat], 6 decimals
    limit_of_work: { type: "Polygon", coordinates: [[[-70.9042, 41.6372], [-70.9029, 41.6372], [-70.9029, 41.6381],
      [-70.9042, 41.6381], [-70.9042, 41.6372]]] } },
  { address: "3 Shore Road", parcel_id: "", lat: 41.6, lon: -70.9, owner_name: "Sam Owner", owner_email: "",
    owner_phone: "", area: 0, ms4: false, waters: true, use: "garage", luhppl: null, luhppl_description: "",
    description: "", limit_of_work: null },
];

// screens/inspection.js: a started inspection, then one with answers, a deficient item and weather
const inspections = [
  { id: "1d2c3b4a-5f6e-4d7c-8b9a-0f1e2d3c4b5a", permit_id: PERMIT, entry_authorization_id: AUTH, kind: "routine",
    started_at: at, location: { lat: 41.6376, lon: -70.9036, accuracy_m: 4.2 },
    weather: { conditions: null, temperature_f: null, rainfall_in_24h: null }, phase: null, notes: null,
    unsafe_areas: [], disturbance_observed: false, device_created_at: at, status: "draft",
    checklist: { template: "esc", template_version: 1, items: [] } },
  { id: "2d2c3b4a-5f6e-4d7c-8b9a-0f1e2d3c4b5a", permit_id: PERMIT, entry_authorization_id: AUTH, kind: "storm_event",
    started_at: at, ended_at: "2026-05-04T15:00:00.000Z", location: null,
    weather: { conditions: "light rain", temperature_f: 61, rainfall_in_24h: 0.5 }, phase: "Clearing",
    notes: "Silt fence down at the north corner", unsafe_areas: [], disturbance_observed: true, device_created_at: at,
    checklist: { template: "esc", template_version: 2, items: [
      { key: "silt_fence", answer: "deficient", note: "Down at the north corner", photo_ids: [PHOTO],
        severity: "high", needs_new_control: true },
      { key: "construction_entrance", answer: "ok", note: null },
      { key: "inlet_protection", answer: "n/a" }] } },
  // started from the last inspection (rules/carry.js carryAnswers): one answer confirmed, two still carried over
  { id: "5d2c3b4a-5f6e-4d7c-8b9a-0f1e2d3c4b5a", permit_id: PERMIT, entry_authorization_id: AUTH, kind: "routine",
    started_at: at, location: null, weather: { conditions: "overcast", temperature_f: 58, rainfall_in_24h: 0.4 },
    phase: null, notes: null, unsafe_areas: [], disturbance_observed: false, device_created_at: at, status: "draft",
    checklist: { template: "esc", template_version: 2, carried_from_id: "2d2c3b4a-5f6e-4d7c-8b9a-0f1e2d3c4b5a", items: [
      { key: "silt_fence", answer: "deficient", note: "Down at the north corner", photo_ids: [], carried_over: true,
        severity: "high", needs_new_control: true },
      { key: "construction_entrance", answer: "ok", note: null, photo_ids: [], carried_over: false },
      { key: "inlet_protection", answer: "n/a", note: null, photo_ids: [], carried_over: true }] } },
];

// screens/sample.js: a field reading and a lab sample
const samples = [
  { id: "3d2c3b4a-5f6e-4d7c-8b9a-0f1e2d3c4b5a", permit_id: PERMIT, entry_authorization_id: AUTH, sampled_at: at,
    sampler: "Ivy Inspector", location: { lat: 41.6376, lon: -70.9036 }, outfall_id: "", sample_type: "grab",
    analysis: "field", lab_name: "", parameters: [{ name: "turbidity", value: "42.5", unit: "NTU" }], notes: "",
    device_created_at: at },
  { id: "4d2c3b4a-5f6e-4d7c-8b9a-0f1e2d3c4b5a", permit_id: PERMIT, entry_authorization_id: AUTH, sampled_at: at,
    sampler: "Ivy Inspector", location: null, outfall_id: "OF-1", sample_type: "composite", analysis: "lab",
    lab_name: "Bay Labs", parameters: [{ name: "tss", value: 80, unit: "mg/L" }, { name: "ph", value: "7.1", unit: "SU" }],
    notes: "Sent by courier", device_created_at: at },
  // a lab sample awaiting its results, with containers, two hand-overs (one signed) and the lab's receipt
  { id: "8d2c3b4a-5f6e-4d7c-8b9a-0f1e2d3c4b5a", permit_id: PERMIT, entry_authorization_id: AUTH, sampled_at: at,
    sampler: "Ivy Inspector", location: null, outfall_id: "OF-2", sample_type: "grab", analysis: "lab", lab_name: "Bay Labs",
    parameters: [{ name: "turbidity", value: "", unit: "NTU", container: "500 mL HDPE", preservative: "ice ≤ 6 °C" },
      { name: "tss", value: "", unit: "mg/L", container: " ", preservative: "" }],
    chain_of_custody: [{ from_name: "Ivy Inspector", to_name: "Casey Courier", at: "2026-05-04T15:00:00.000Z", signature_photo_id: PHOTO },
      { from_name: "Casey Courier", to_name: "Lee Lab", at: "2026-05-04T16:00:00.000Z" }],
    received_by_lab_at: "2026-05-04T16:00:00.000Z", lab_received_by: "Lee Lab", lab_receipt_temperature_c: 4.5,
    analyzed_at: null, notes: "", device_created_at: at },
];

const records = [
  ...forms.map((f, i) => ["permit", `6d2c3b4a-5f6e-4d7c-8b9a-0f1e2d3c4b5${i}`, (id) => permitPayload(f, id),
    (id) => permitPayload(f, id, false)]),
  ...inspections.map((r) => ["inspection", r.id, () => inspectionPayload(r), () => inspectionPayload(r)]),
  ...samples.map((r) => ["sample", r.id, () => samplePayload(r), () => samplePayload(r)]),
  // ui/markup.js: every kind of mark, as the editor gives them (fractions of the image, thinned lines)
  ["photo_annotation", "bd2c3b4a-5f6e-4d7c-8b9a-0f1e2d3c4b50", (id) => annotationPayload({ id, photoId: PHOTO,
    createdAt: at, shapes: [
      { kind: "arrow", points: [[0.1, 0.2], [0.45, 0.5]], colour: "#ff2a1a" },
      { kind: "circle", points: [[0.5, 0.5], [0.8, 0.9]], colour: "#ffe600" },
      { kind: "freehand", points: [[0, 0], [0.25, 0.3], [1, 1]], colour: "#00e5ff" },
      { kind: "text", points: [[0.3, 0.7]], text: "Silt fence down", colour: "#ffffff" }] }),
  (id) => annotationPayload({ id, photoId: PHOTO, createdAt: at, shapes: [] })],
];

const out = [];
const mutations = [];
let n = 0;
for (const [entity, id, create, edit] of records) {
  const created = mutationOf({ mutation_id: `7d2c3b4a-5f6e-4d7c-8b9a-${String(n++).padStart(12, "0")}`, entity, id,
    op: "upsert", data: create(id) }, null);
  const edited = mutationOf({ mutation_id: `7d2c3b4a-5f6e-4d7c-8b9a-${String(n++).padStart(12, "0")}`, entity, id,
    op: "upsert", data: edit(id) }, 3);
  out.push({ entity, kind: "create", body: created.data }, { entity, kind: "edit", body: edited.data });
  mutations.push(created, edited);
}
// The screens' own builders, given what their forms hold: an owner's consent with its signature photo
// and the other bases without one (notes blank or padded), every relation the form offers.
const entryData = (id, basis, n) => entryPayload({ id, permitId: PERMIT, basis, grantedBy: " Pat Owner ",
  relation: RELATIONS[n % RELATIONS.length], scope: ACTIVITIES.filter((a) => n % 2 ? a !== "survey" : true),
  from: "2026-05-04T09:30", to: "2026-06-03T09:30", signatureId: basis === "owner_consent" ? PHOTO : null,
  notes: n % 2 ? "  Keep out of the fenced wetland buffer. " : "" });

// A new notice is sent whole; a returned one is corrected with its body alone.
const notice = (photoIds, completedOn, existing) => noticePayload({ noticeId: "9d2c3b4a-5f6e-4d7c-8b9a-0f1e2d3c4b50",
  permitId: PERMIT, statement: " All work is complete and matches the approved plan. ", photoIds, completedOn }, existing);

// Preferred days between today and a year on (the inputs' min and max), blanks and repeats included.
const today = localDay(Date.now(), settingsOf(null).tz);
const requestData = (id, kind, days, note) => requestPayload({ id, permitId: PERMIT, kind, days, note });

const screens = [
  ...BASES.map((basis, i) => ["entry_authorization", `8d2c3b4a-5f6e-4d7c-8b9a-0f1e2d3c4b5${i}`,
    [["create", null, (id) => entryData(id, basis, i)]]]),
  ["completion_notice", "9d2c3b4a-5f6e-4d7c-8b9a-0f1e2d3c4b50", [
    ["create", null, () => notice([PHOTO], localDate(), null).data],
    ["edit", 2, () => notice([PHOTO, "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6e"], "", { status: "returned" }).data]]],
  ...KINDS.map(([kind], i) => [kind, [[today, "", addDays(today, 1)], [], [addDays(today, 365), today, today]][i % 3],
    ["The silt fence on the east line was replaced on Monday.", "", "  "][i % 3]]).map(([kind, days, note], i) =>
    ["inspection_request", `ad2c3b4a-5f6e-4d7c-8b9a-0f1e2d3c4b5${i}`,
      [["create", null, (id) => requestData(id, kind, days, note)]]]),
];
for (const [entity, id, sends] of screens) {
  for (const [kind, base, build] of sends) {
    const mutation = mutationOf({ mutation_id: `7d2c3b4a-5f6e-4d7c-8b9a-${String(n++).padStart(12, "0")}`, entity, id,
      op: "upsert", data: build(id) }, base);
    out.push({ entity, kind, body: mutation.data });
    mutations.push(mutation);
  }
}

out.push({ entity: "sync", kind: "push", body: pushBody("tablet-7", mutations.length, mutations) });
process.stdout.write(JSON.stringify(out));
