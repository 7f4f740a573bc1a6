// Starting an inspection from the last one (R-I3): which inspection answers are carried from, the
// answers as carried (marked until the inspector confirms or changes each), what still blocks a
// submission, and the device's recent values offered as choices. Pure functions; the server keeps the
// same submission rule (inspections/rules.py still_carried_over).

const DONE = ["submitted", "approved"];

// The newest submitted or approved inspection of the permit among the records the device holds.
export function lastInspection(records, permitId) {
  return records
    .filter((r) => r.permit_id === permitId && DONE.includes(r.status) && !r.deleted_at && r.checklist
      && (r.checklist.items || []).length)
    .sort((a, b) => Date.parse(b.started_at) - Date.parse(a.started_at))[0] || null;
}

// Each answer of `source` whose item the new checklist still asks, as it was (answer, note, severity,
// new-control call: a deficient answer stays deficient), marked carried over. Photos stay with the
// inspection that took them: the new answer starts with none.
export function carryAnswers(source, templateItems) {
  const asked = new Set(templateItems.map((i) => i.key));
  return ((source.checklist && source.checklist.items) || []).filter((a) => asked.has(a.key)).map((a) => {
    const answer = { key: a.key, answer: a.answer, note: a.note ?? null, photo_ids: [], carried_over: true };
    if (a.answer === "deficient") {
      answer.severity = a.severity || "moderate";
      if (a.needs_new_control !== null && a.needs_new_control !== undefined) answer.needs_new_control = a.needs_new_control;
    }
    return answer;
  });
}

// Keys of the answers still as carried over, in checklist order.
export function stillCarried(answers) {
  return answers.filter((a) => a.carried_over).map((a) => a.key);
}

// The inspector stands by the answer as it is ("Still so"), or has changed it: either way it is now
// this visit's answer.
export function settle(answer) {
  if (answer) answer.carried_over = false;
  return answer;
}

// Confirms every answer still carried over, unchanged; returns the keys confirmed.
export function confirmAll(answers) {
  const keys = stillCarried(answers);
  for (const a of answers) settle(a);
  return keys;
}

// The newest `limit` distinct non-empty values `valueOf(record)` gives, newest first by `timeOf`.
// Values are compared by their JSON form, so objects (a whole weather reading) count once.
export function recentDistinct(records, valueOf, timeOf, limit = 5) {
  const sorted = [...records].sort((a, b) => Date.parse(timeOf(b) || 0) - Date.parse(timeOf(a) || 0));
  const seen = new Set();
  const out = [];
  for (const r of sorted) {
    const value = valueOf(r);
    if (value === null || value === undefined || value === "") continue;
    const key = JSON.stringify(value);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(value);
    if (out.length >= limit) break;
  }
  return out;
}

// A recorded weather reading worth offering again: at least one of its parts filled in.
export function weatherValue(w) {
  if (!w) return null;
  const value = { conditions: w.conditions || null, temperature_f: w.temperature_f ?? null, rainfall_in_24h: w.rainfall_in_24h ?? null };
  return value.conditions === null && value.temperature_f === null && value.rainfall_in_24h === null ? null : value;
}

// A weather reading as one short phrase: "Overcast, 58 °F, 0.4 in rain".
export function weatherWords(w) {
  const parts = [];
  if (w.conditions) parts.push(w.conditions[0].toUpperCase() + w.conditions.slice(1));
  if (w.temperature_f !== null && w.temperature_f !== undefined) parts.push(`${w.temperature_f} °F`);
  if (w.rainfall_in_24h !== null && w.rainfall_in_24h !== undefined) parts.push(`${w.rainfall_in_24h} in rain`);
  return parts.join(", ");
}
