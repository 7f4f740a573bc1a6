// R-E2 on the device: does a site-entry authorization cover this activity at this site now?
// Mirrors inspect_api/entry/rules.py `coverage_problem` / `coverage_reason` (via `_check`) line for
// line: the same decision table, checked top to bottom, the same sentences. Keep the two identical.
//
//   1. auth is null                                -> "none"
//   2. auth.permit_id != permitId                  -> "other_site"
//   3. at < auth.valid_from                        -> "not_yet_valid"
//   4. auth.revoked_at set and at >= revoked_at    -> "revoked"
//   5. auth.valid_to set and at >= valid_to        -> "expired"
//   6. activity not in auth.scope                  -> "scope"
//   7. otherwise                                   -> null (covered)
export const ACTIVITIES = ["examination", "survey", "sampling"];
export const BASES = ["owner_consent", "permit_condition", "court_warrant", "emergency"];

const t = (value) => (value instanceof Date ? value.getTime() : Date.parse(value));

// Python's isoformat() of a UTC instant with "+00:00" written as "Z" (microseconds only when set).
export function when(value) {
  const d = new Date(t(value));
  const base = d.toISOString().slice(0, 19);
  const ms = d.getUTCMilliseconds();
  return ms ? `${base}.${String(ms * 1000).padStart(6, "0")}Z` : `${base}Z`;
}

function check(auth, permitId, activity, at) {
  if (!ACTIVITIES.includes(activity)) throw new Error(`unknown activity '${activity}'`);
  if (auth === null || auth === undefined) {
    return ["none", `No site-entry authorization covers ${activity} at this site: record the owner's `
      + "consent, a permit condition, a warrant or an emergency first."];
  }
  if (String(auth.permit_id) !== String(permitId)) {
    return ["other_site", "The site-entry authorization is for another site, not this permit."];
  }
  if (t(at) < t(auth.valid_from)) {
    return ["not_yet_valid", `The site-entry authorization is not yet valid at ${when(at)}; `
      + `it starts at ${when(auth.valid_from)}.`];
  }
  if (auth.revoked_at !== null && auth.revoked_at !== undefined && t(at) >= t(auth.revoked_at)) {
    return ["revoked", `The site-entry authorization was revoked at ${when(auth.revoked_at)}.`];
  }
  if (auth.valid_to !== null && auth.valid_to !== undefined && t(at) >= t(auth.valid_to)) {
    return ["expired", `The site-entry authorization expired at ${when(auth.valid_to)}.`];
  }
  if (!(auth.scope || []).includes(activity)) {
    const scope = (auth.scope || []).join(", ") || "nothing";
    return ["scope", `The site-entry authorization's scope (${scope}) lacks ${activity}.`];
  }
  return null;
}

export function coverageProblem(auth, permitId, activity, at) {
  const result = check(auth, permitId, activity, at);
  return result ? result[1] : null;
}

export function coverageReason(auth, permitId, activity, at) {
  const result = check(auth, permitId, activity, at);
  return result ? result[0] : null;
}

// Of a site's cached authorizations, the one that covers (newest start first), else the refusal of
// the best candidate so the inspector reads what is missing.
export function findCover(auths, permitId, activity, at) {
  const mine = auths.filter((a) => String(a.permit_id) === String(permitId))
    .sort((a, b) => t(b.valid_from) - t(a.valid_from));
  for (const auth of mine) if (!coverageProblem(auth, permitId, activity, at)) return { auth, problem: null };
  const best = mine[0] || null;
  return { auth: null, problem: coverageProblem(best, permitId, activity, at) };
}
