// What each assigned site owes and has not done (R-I1), worked out on the device from what the last sync
// brought: the inspector's day lists it, and a new inspection starts as the kind owed soonest.
import { meta } from "../db.js";
import * as store from "../store.js";
import { due, obligations } from "../rules/program.js";

function groupBy(list, key) {
  const out = new Map();
  for (const item of list) {
    if (!out.has(item[key])) out.set(item[key], []);
    out.get(item[key]).push(item);
  }
  return out;
}

// Everything each assigned site owes and has not done, from the device's copy of the records.
export async function owedAtAssignedSites(nowMs) {
  const settings = (await meta.get("program_settings")) || null;
  const assigned = new Set((await store.assignedSites()).map((s) => s.permit_id));
  const permits = (await store.allPermits()).filter((p) => assigned.has(p.id));
  const by = async (entity) => groupBy(await store.allOf(entity), "permit_id");
  const [inspections, findings, requests] = await Promise.all([by("inspection"), by("finding"), by("inspection_request")]);
  const storms = await store.allOf("storm_event");
  const items = permits.flatMap((p) => due(obligations(p, inspections.get(p.id) || [], storms, findings.get(p.id) || [],
    requests.get(p.id) || [], settings), p.status, nowMs));
  // Inspections a supervisor returned to be corrected (R-I5): the inspector's work, due before any new visit.
  const returned = permits.flatMap((p) => (inspections.get(p.id) || []).filter((i) => i.status === "returned" && !i.deleted_at));
  return { items, returned, permits: new Map(permits.map((p) => [p.id, p])), settings };
}
