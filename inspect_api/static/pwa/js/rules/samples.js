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
