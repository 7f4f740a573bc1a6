// Whether field work (an inspection, a sample) may be recorded: the user's assignment to the site,
// and the device's cached entry authorizations (R-E2), checked before the work starts.
import * as store from "../store.js";
import { currentUser } from "../auth.js";
import { coverageProblem } from "../rules/entry.js";

// R-E2 before an inspection or sample starts: the device's cached authorizations must cover it.
export async function checkEntry(permitId, activity, at = new Date()) {
  const auths = await store.recordsFor("entry_authorization", permitId);
  const covering = auths.find((a) => !coverageProblem(a, permitId, activity, at));
  if (covering) return { auth: covering, problem: null };
  const best = auths.sort((a, b) => Date.parse(b.valid_from) - Date.parse(a.valid_from))[0] || null;
  return { auth: null, problem: coverageProblem(best, permitId, activity, at) };
}

export function canDoFieldWork(permit) {
  const user = currentUser();
  if (user.role === "supervisor") return true;
  return (permit.assigned_inspector_ids || []).includes(user.id);
}
