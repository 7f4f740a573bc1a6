// Sample parameters, their units and the action levels (R-S1..R-S3) for instant warnings on site.
// Units mirror inspect_api/sampling/units.py (exact spellings; turbidity in NTU only). Levels come
// from GET /action-levels when the device has synced, else the defaults of R-S2. The server judges.
export const PARAMETERS = {
  turbidity: { label: "Turbidity", units: { NTU: 1 }, canonical: "NTU", min: 0, max: null },
  tss: { label: "Total suspended solids", units: { "mg/L": 1, "g/L": 1000, "ug/L": 0.001 }, canonical: "mg/L", min: 0, max: null },
  ph: { label: "pH", units: { SU: 1 }, canonical: "SU", min: 0, max: 14 },
  temperature: { label: "Temperature", units: { C: 1, F: "F", K: "K" }, canonical: "C", min: -5, max: 100 },
  dissolved_oxygen: { label: "Dissolved oxygen", units: { "mg/L": 1, "ug/L": 0.001 }, canonical: "mg/L", min: 0, max: null },
  conductivity: { label: "Conductivity", units: { "uS/cm": 1, "mS/cm": 1000 }, canonical: "uS/cm", min: 0, max: null },
  oil_and_grease: { label: "Oil and grease", units: { "mg/L": 1, "g/L": 1000, "ug/L": 0.001 }, canonical: "mg/L", min: 0, max: null },
};

export const DEFAULT_LEVELS = [
  { parameter: "turbidity", basis: "weekly_average", unit: "NTU", min: null, max: 50,
    citation: "EPA CGP dewatering benchmark (weekly average per discharge point)" },
  { parameter: "ph", basis: "per_sample", unit: "SU", min: 6.5, max: 8.3, citation: "314 CMR 4.05" },
];

export function toCanonical(name, value, unit) {
  const p = PARAMETERS[name];
  if (!p) return value;
  const rule = p.units[unit];
  if (rule === "F") return ((value - 32) * 5) / 9;
  if (rule === "K") return value - 273.15;
  return value * rule;
}

// Problems a value has on its own (impossible, unknown unit): the server refuses these with 422.
export function valueProblem(name, raw, unit) {
  if (raw === "" || raw === null || raw === undefined) return "Enter the reading.";
  const value = Number(raw);
  if (!Number.isFinite(value)) return "Must be a number.";
  const p = PARAMETERS[name];
  if (!p) return null;
  if (!(unit in p.units)) return `Unknown unit '${unit}' for ${name}; use one of: ${Object.keys(p.units).join(", ")}.`;
  const v = toCanonical(name, value, unit);
  if ((p.min !== null && v < p.min) || (p.max !== null && v > p.max)) return `${raw} ${unit} is not possible for ${p.label}.`;
  return null;
}

// Warnings against the action levels, in words an inspector acts on at once.
export function actionWarnings(name, raw, unit, levels = DEFAULT_LEVELS) {
  const value = Number(raw);
  if (raw === "" || !Number.isFinite(value) || valueProblem(name, raw, unit)) return [];
  const v = toCanonical(name, value, unit);
  const out = [];
  for (const level of levels.filter((l) => l.parameter === name)) {
    const low = level.min === null || level.min === undefined ? null : Number(level.min);
    const high = level.max === null || level.max === undefined ? null : Number(level.max);
    const weekly = level.basis === "weekly_average" ? " (the benchmark applies to the weekly average at this discharge point)" : "";
    if (high !== null && v > high) out.push(`Above the action level: ${raw} ${unit} is over ${high} ${level.unit}${weekly}. Act on the discharge now and note it.`);
    if (low !== null && v < low) out.push(`Below the action level: ${raw} ${unit} is under ${low} ${level.unit}${weekly}. Act on the discharge now and note it.`);
  }
  return out;
}

// Holding times (R-S1; practice: 40 CFR 136.3 Table II), in minutes: the limits of sampling/units.py.
export const HOLDING_MINUTES = { turbidity: 48 * 60, tss: 7 * 24 * 60, ph: 15, temperature: 15, dissolved_oxygen: 15,
  conductivity: 28 * 24 * 60, oil_and_grease: 28 * 24 * 60 };

// The bottle and preservation offered for each analysis (practice: 40 CFR 136.3 Table II); the inspector
// may write others, as the lab asks.
export const CUSTODY_DEFAULTS = {
  turbidity: { container: "500 mL HDPE", preservative: "ice ≤ 6 °C" },
  tss: { container: "1 L HDPE", preservative: "ice ≤ 6 °C" },
  ph: { container: "250 mL HDPE", preservative: "none (analyse within 15 min)" },
  temperature: { container: "250 mL HDPE", preservative: "none (analyse within 15 min)" },
  dissolved_oxygen: { container: "300 mL glass BOD bottle", preservative: "none (analyse within 15 min)" },
  conductivity: { container: "500 mL HDPE", preservative: "ice ≤ 6 °C" },
  oil_and_grease: { container: "1 L amber glass", preservative: "HCl or H2SO4 to pH<2, ice ≤ 6 °C" },
};

// The verdict for one analysis, as sampling/rules.py holding_status decides it: exactly at the limit is
// within; any time after it (one second, one minute) is exceeded. Not analysed: running while within.
export function holdingStatus(limitMs, elapsedMs, analyzed) {
  if (elapsedMs === null) return "not_judged";
  if (elapsedMs > limitMs) return "exceeded";
  return analyzed ? "within" : "running";
}

// Per analysis with a holding time: sampled_at to analyzed_at, or to `now` while a lab sample is not
// analysed (the clock runs); a field reading without analyzed_at is not judged (sampling/rules.py).
export function holdingTimes(parameters, sampledAt, analyzedAt, analysis, now = new Date()) {
  const start = Date.parse(sampledAt);
  const end = analyzedAt ? Date.parse(analyzedAt) : analysis === "lab" ? new Date(now).getTime() : null;
  return parameters.filter((p) => HOLDING_MINUTES[p.name]).map((p) => {
    const limitMs = HOLDING_MINUTES[p.name] * 60000;
    const elapsedMs = end === null ? null : end - start;
    const status = holdingStatus(limitMs, elapsedMs, Boolean(analyzedAt));
    return { parameter: p.name, limit_seconds: limitMs / 1000, deadline: new Date(start + limitMs).toISOString(),
      elapsed_seconds: elapsedMs === null ? null : Math.trunc(elapsedMs / 1000), analyzed: Boolean(analyzedAt),
      status, ok: elapsedMs === null ? null : status !== "exceeded",
      exceeded_by_seconds: status === "exceeded" ? Math.trunc((elapsedMs - limitMs) / 1000) : null };
  });
}

// "15 min", "1 h 12 min", "48 h", "7 days", "3 days 4 h": whole minutes rounded down (sampling/rules.py duration_words).
export function durationWords(seconds) {
  const minutes = Math.floor(Math.max(0, Math.trunc(seconds)) / 60);
  if (minutes === 0) return "under 1 min";
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  if (hours < 72) return `${hours} h${rest ? ` ${rest} min` : ""}`;
  const days = Math.floor(hours / 24);
  const left = hours % 24;
  return `${days} days${left ? ` ${left} h` : ""}`;
}
