// The inspection program on the device: which inspections each site owes and by when (R-I1, R-I4).
// Mirrors inspect_api/program/rules.py `obligations` so the inspector's day works offline from synced
// permits, inspections, findings, storm events and requests. "Today", "overdue" and "missed" are worked
// out here, from dates and the Town's clock (America/New_York), never read from the synced copy. What
// satisfies each obligation (COVERED_BY) and when one can no longer be met (closes_at: missed, not
// overdue) are the server's rules, checked case by case against tests/program/due_vectors.json.
export const KINDS = ["pre_construction", "post_installation", "routine", "storm_event", "follow_up", "final", "complaint"];
export const REQUEST_KINDS = { post_installation: "post_installation", final: "final", re_inspection: "follow_up",
  complaint: "complaint" };
const DECIDED = ["approved", "issued", "active", "work_complete", "closed"];
const LISTED = ["approved", "issued", "active", "work_complete"];
// Where a complaint from the public is owed and listed until met (rules.py COMPLAINT_SITES): every site on record.
export const COMPLAINT_SITES = ["submitted", "under_review", "approved", "issued", "denied", "active", "work_complete",
  "closed", "unpermitted"];
const RUNNING = ["active", "work_complete", "closed"];
const RECORDED = ["submitted", "approved", "returned"];
// Which recorded inspections satisfy an obligation of each kind (rules.py COVERED_BY).
export const COVERED_BY = {
  pre_construction: ["pre_construction", "post_installation", "routine", "storm_event"],
  post_installation: ["post_installation", "routine", "storm_event", "final"],
  routine: ["routine", "post_installation", "storm_event", "final"],
  storm_event: ["storm_event", "routine", "post_installation", "final"],
  follow_up: ["follow_up"],
  final: ["final"],
  complaint: ["complaint"],
};
// Owed while work is under way: they close when work is reported complete.
const CONSTRUCTION = ["post_installation", "routine", "storm_event"];
const DAY_MS = 86400000;

export const DEFAULTS = { routine_days: 14, storm_threshold_inches: "0.25", storm_window_hours: 24, response_days: 5,
  timezone: "America/New_York" };

// -- Town time ---------------------------------------------------------------------------------------
const formatters = new Map();
function parts(ms, tz) {
  if (!formatters.has(tz)) {
    formatters.set(tz, new Intl.DateTimeFormat("en-US", { timeZone: tz, hourCycle: "h23", year: "numeric",
      month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit" }));
  }
  const out = {};
  for (const p of formatters.get(tz).formatToParts(new Date(ms))) if (p.type !== "literal") out[p.type] = Number(p.value);
  return out;
}

// The instant (ms) of a wall-clock time in `tz`: guess, then correct by the zone's offset (twice, for DST edges).
export function zoned(dayIso, hh, mm, ss, tz) {
  const [y, m, d] = dayIso.split("-").map(Number);
  const wall = Date.UTC(y, m - 1, d, hh, mm, ss);
  let guess = wall;
  for (let i = 0; i < 3; i += 1) {
    const p = parts(guess, tz);
    const seen = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
    guess += wall - seen;
  }
  return guess;
}

export function localDay(ms, tz) {
  const p = parts(ms, tz);
  return `${String(p.year).padStart(4, "0")}-${String(p.month).padStart(2, "0")}-${String(p.day).padStart(2, "0")}`;
}

export function addDays(dayIso, n) {
  const [y, m, d] = dayIso.split("-").map(Number);
  return new Date(Date.UTC(y, m - 1, d) + n * DAY_MS).toISOString().slice(0, 10);
}

export const startOfDay = (dayIso, tz) => zoned(dayIso, 0, 0, 0, tz);
export const endOfDay = (dayIso, tz) => zoned(dayIso, 23, 59, 59, tz);
const ms = (value) => (value === null || value === undefined ? null : new Date(value).getTime());
// Inches compared in hundredths, as the server stores them, so 0.25 is never 0.2499999.
const hundredths = (value) => Math.round(Number(value) * 100);

export function settingsOf(raw) {
  const s = { ...DEFAULTS, ...(raw || {}) };
  return { routineDays: Number(s.routine_days), threshold: hundredths(s.storm_threshold_inches),
    windowHours: Number(s.storm_window_hours), responseDays: Number(s.response_days), tz: s.timezone };
}

// -- what a site owes ------------------------------------------------------------------------------------
function obligation(permit, kind, reason, dueAt, extra = {}) {
  return { permit_id: permit.id, kind, reason, due_at: dueAt, binding: true, closes_at: null, source: "program",
    source_id: null, done_at: null, inspection_id: null, ...extra };
}

function met(o, visit) {
  return visit ? { ...o, done_at: visit.started_at, inspection_id: visit.id } : o;
}

// The first visit that satisfies an obligation of `kind`, started after `after` (at or after unless
// `strictly`) and no later than `until`; kinds in `anyTime` need not wait for `after`.
function first(visits, kind, after, strictly = false, until = null, anyTime = []) {
  return visits.find((v) => COVERED_BY[kind].includes(v.kind) && (until === null || v.started_at <= until)
    && (after === null || anyTime.includes(v.kind) || (strictly ? v.started_at > after : v.started_at >= after))) || null;
}

// A construction-phase obligation of a site whose work is complete closes at the later of its due time and
// the end of the completion day; the others stay open until met.
function closes(site, kind, dueAt, s) {
  if (!CONSTRUCTION.includes(kind) || !site.work_completed_on) return null;
  return Math.max(dueAt, endOfDay(site.work_completed_on, s.tz));
}

function activeSpan(site, s) {
  if (!site.work_commenced_on || !RUNNING.includes(site.status)) return null;
  return [startOfDay(site.work_commenced_on, s.tz), site.work_completed_on ? endOfDay(site.work_completed_on, s.tz) : null];
}

export function requestDueAt(request, s) {
  const made = localDay(ms(request.created_at), s.tz);
  const preferred = (request.preferred_dates || []).filter((d) => d >= made).sort();
  return endOfDay(preferred.length ? preferred[0] : addDays(made, s.responseDays), s.tz);
}

function decidedAt(site) {
  return ms(site.decided_at) ?? ms(site.created_at);
}

export function visitsOf(inspections) {
  return inspections.filter((i) => RECORDED.includes(i.status) && !i.deleted_at)
    .map((i) => ({ id: i.id, kind: i.kind, started_at: ms(i.started_at), verifies: (i.verifies_finding_ids || []).map(String) }))
    .sort((a, b) => a.started_at - b.started_at || (a.id < b.id ? -1 : 1));
}

// Every obligation of one site, met or not. `site` is the synced permit; the others are synced records.
export function obligations(site, inspections, storms, findings, requests, rawSettings) {
  const s = settingsOf(rawSettings);
  if (!COMPLAINT_SITES.includes(site.status)) return [];
  const visits = visitsOf(inspections);
  // not (or not yet) in the program: only complaints are owed
  if (!DECIDED.includes(site.status)) return sorted(requestObligations(site, visits, requests.filter((r) => r.kind === "complaint"), s));
  const started = new Map(inspections.map((i) => [i.id, ms(i.started_at)]));
  const out = [];
  // pre-construction: no deadline until work commences; missed (never overdue) once the commencement day ends
  const decided = decidedAt(site);
  if (site.work_commenced_on) {
    const dueAt = endOfDay(site.work_commenced_on, s.tz);
    out.push(met(obligation(site, "pre_construction", `Before work commences (work commenced ${site.work_commenced_on})`,
      dueAt, { closes_at: dueAt }), first(visits, "pre_construction", null, false, dueAt)));
  } else if (decided !== null) {
    out.push(met(obligation(site, "pre_construction", "Before work commences", decided, { binding: false }),
      first(visits, "pre_construction", null)));
  }
  // post-installation: once perimeter controls are reported in
  const reports = requests.filter((r) => REQUEST_KINDS[r.kind] === "post_installation").map((r) => ms(r.created_at));
  if (site.work_commenced_on && RUNNING.includes(site.status)) reports.push(startOfDay(site.work_commenced_on, s.tz));
  if (reports.length) {
    const reported = Math.min(...reports);
    const day = localDay(reported, s.tz);
    const dueAt = endOfDay(addDays(day, s.responseDays), s.tz);
    const close = closes(site, "post_installation", dueAt, s);
    out.push(met(obligation(site, "post_installation", `Perimeter controls reported in on ${day}`, dueAt,
      { closes_at: close }), first(visits, "post_installation", reported, false, close, ["post_installation"])));
  }
  const span = activeSpan(site, s);
  if (span) {
    const [start, end] = span;
    // routine: every N days while active, counted again from the last inspection that met the one before
    let anchor = start, strictly = false, from = `work commenced ${site.work_commenced_on}`;
    for (let guard = 0; guard < 10000; guard += 1) {
      const due = endOfDay(addDays(localDay(anchor, s.tz), s.routineDays), s.tz);
      if (end !== null && due > end) break;
      const close = closes(site, "routine", due, s);
      const visit = first(visits, "routine", anchor, strictly, close);
      out.push(met(obligation(site, "routine", `Every ${s.routineDays} days while active (${from})`, due,
        { closes_at: close }), visit));
      if (!visit) break;
      let last = visit, next;
      while ((next = first(visits, "routine", last.started_at, true, due))) last = next;
      anchor = last.started_at; strictly = true; from = `last inspection ${localDay(anchor, s.tz)}`;
    }
    // storm-event: within the window after each storm at or over the threshold
    for (const storm of storms) {
      const ended = ms(storm.ended_at);
      if (hundredths(storm.inches) < s.threshold || ended < start || (end !== null && ended > end)) continue;
      const wall = new Date(ended);
      const p = parts(wall.getTime(), s.tz);
      const when = `${localDay(ended, s.tz)} ${String(p.hour).padStart(2, "0")}:${String(p.minute).padStart(2, "0")}`;
      const dueAt = ended + s.windowHours * 3600000;
      const close = closes(site, "storm_event", dueAt, s);
      out.push(met(obligation(site, "storm_event", `Storm of ${Number(storm.inches).toFixed(2)} in ended ${when} (within ${s.windowHours} h)`,
        dueAt, { source: "storm", source_id: storm.id, closes_at: close }), first(visits, "storm_event", ended, false, close)));
    }
  }
  // follow-up: at each open finding's due day (R-I4)
  for (const f of findings) {
    if (f.deleted_at) continue;
    const base = obligation(site, "follow_up", `Finding due to be corrected by ${f.due_on}`, endOfDay(f.due_on, s.tz),
      { source: "finding", source_id: f.id });
    const by = f.verified_by_inspection_id;
    if (by && started.has(by)) { out.push({ ...base, done_at: started.get(by), inspection_id: by }); continue; }
    if (f.status !== "open") continue;
    out.push(met(base, visits.find((v) => v.kind === "follow_up" && v.verifies.includes(String(f.id))) || null));
  }
  // final: once work is reported complete
  if (site.work_completed_on) {
    out.push(met(obligation(site, "final", `Work reported complete on ${site.work_completed_on}`,
      endOfDay(addDays(site.work_completed_on, s.responseDays), s.tz)), first(visits, "final", null)));
  }
  // applicants' requests, and complaints from the public
  out.push(...requestObligations(site, visits, requests, s));
  return sorted(out);
}

function sorted(list) {
  return list.sort((a, b) => a.due_at - b.due_at || KINDS.indexOf(a.kind) - KINDS.indexOf(b.kind)
    || String(a.source_id || "").localeCompare(String(b.source_id || "")));
}

function requestObligations(site, visits, requests, s) {
  const out = [];
  for (const r of requests) {
    const kind = REQUEST_KINDS[r.kind];
    if (!kind) continue;
    const wanted = [...(r.preferred_dates || [])].sort().join(", ");
    const reason = kind === "complaint" ? `Complaint from the public${r.note ? ` (${r.note})` : ""}`
      : `Requested by the applicant (${r.kind.replace(/_/g, "-")}${wanted ? `; preferred ${wanted})` : ")"}`;
    const made = ms(r.created_at);
    const dueAt = requestDueAt(r, s);
    const close = closes(site, kind, dueAt, s);
    out.push(met(obligation(site, kind, reason, dueAt, { source: "request", source_id: r.id, note: r.note || null, closes_at: close }),
      first(visits, kind, made, false, close)));
  }
  return out;
}

// Not met, and no longer can be (pre-construction once work has commenced; construction-phase inspections
// once work is complete): not listed, never overdue.
export const isMissed = (o, nowMs) => o.done_at === null && o.closes_at !== null && nowMs > o.closes_at;
export const isOverdue = (o, nowMs) => o.done_at === null && o.binding && nowMs > o.due_at && !isMissed(o, nowMs);
export const isLate = (o) => o.done_at !== null && o.binding && o.done_at - (o.done_at % 1000) > o.due_at;

// What is still owed at a site still in the program (elsewhere on record: its complaints), with `overdue`
// worked out against `nowMs`.
export function due(list, siteStatus, nowMs) {
  if (!COMPLAINT_SITES.includes(siteStatus)) return [];
  const listed = LISTED.includes(siteStatus);
  return list.filter((o) => o.done_at === null && !isMissed(o, nowMs) && (listed || o.kind === "complaint"))
    .map((o) => ({ ...o, overdue: isOverdue(o, nowMs) }));
}

export const keyOf = (o) => `${o.permit_id}|${o.kind}|${o.source}|${o.source_id || ""}|${o.due_at}`;

// The inspector's day: everything owed by the end of today (Town time), or `days` later, or already
// overdue, ordered by due time, then by distance from the device (nearest first; unknown last).
export function dayList(items, nowMs, rawSettings, distanceOf, days = 0) {
  const s = settingsOf(rawSettings);
  const until = endOfDay(addDays(localDay(nowMs, s.tz), days), s.tz);
  return items.filter((o) => o.due_at <= until || o.overdue)
    .map((o) => ({ ...o, distance_m: distanceOf ? distanceOf(o.permit_id) : null }))
    .sort((a, b) => a.due_at - b.due_at || (a.distance_m ?? Infinity) - (b.distance_m ?? Infinity)
      || KINDS.indexOf(a.kind) - KINDS.indexOf(b.kind));
}
