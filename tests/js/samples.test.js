// Sample readings on site (R-S1..R-S3): units, impossible values and action-level warnings.
import { test } from "node:test";
import assert from "node:assert/strict";

import { actionWarnings, toCanonical, valueProblem, DEFAULT_LEVELS, holdingTimes, holdingStatus, durationWords,
  HOLDING_MINUTES, CUSTODY_DEFAULTS, PARAMETERS } from "../../inspect_api/static/pwa/js/rules/samples.js";

test("units convert to the canonical unit of each parameter", () => {
  assert.equal(toCanonical("tss", 2, "g/L"), 2000);
  assert.equal(toCanonical("tss", 500, "ug/L"), 0.5);
  assert.equal(toCanonical("temperature", 212, "F"), 100);
  assert.ok(Math.abs(toCanonical("temperature", 273.15, "K")) < 1e-9);
  assert.equal(toCanonical("conductivity", 1.5, "mS/cm"), 1500);
  assert.equal(toCanonical("not_a_parameter", 7, "x"), 7);
});

test("a reading must be given and be a number", () => {
  assert.equal(valueProblem("ph", "", "SU"), "Enter the reading.");
  assert.equal(valueProblem("ph", null, "SU"), "Enter the reading.");
  assert.equal(valueProblem("ph", "seven", "SU"), "Must be a number.");
  assert.equal(valueProblem("ph", "Infinity", "SU"), "Must be a number.");
});

test("units are spelled exactly; turbidity only in NTU", () => {
  assert.equal(valueProblem("turbidity", "5", "FNU"), "Unknown unit 'FNU' for turbidity; use one of: NTU.");
  assert.equal(valueProblem("tss", "5", "mg/l"), "Unknown unit 'mg/l' for tss; use one of: mg/L, g/L, ug/L.");
});

test("impossible values are refused at the edges of what the parameter allows", () => {
  assert.equal(valueProblem("ph", "14", "SU"), null);
  assert.equal(valueProblem("ph", "14.01", "SU"), "14.01 SU is not possible for pH.");
  assert.equal(valueProblem("ph", "-0.1", "SU"), "-0.1 SU is not possible for pH.");
  assert.equal(valueProblem("temperature", "23", "F"), null); // -5 C, the lowest allowed
  assert.equal(valueProblem("temperature", "22", "F"), "22 F is not possible for Temperature.");
  assert.equal(valueProblem("turbidity", "-1", "NTU"), "-1 NTU is not possible for Turbidity.");
  assert.equal(valueProblem("turbidity", "4000", "NTU"), null); // no upper bound
});

test("action levels: at the level no warning, past it a warning in plain words", () => {
  assert.deepEqual(actionWarnings("ph", "8.3", "SU"), []);
  assert.deepEqual(actionWarnings("ph", "6.5", "SU"), []);
  assert.deepEqual(actionWarnings("ph", "8.31", "SU"),
    ["Above the action level: 8.31 SU is over 8.3 SU. Act on the discharge now and note it."]);
  assert.deepEqual(actionWarnings("ph", "6.4", "SU"),
    ["Below the action level: 6.4 SU is under 6.5 SU. Act on the discharge now and note it."]);
  const [turbid] = actionWarnings("turbidity", "51", "NTU");
  assert.match(turbid, /^Above the action level: 51 NTU is over 50 NTU \(the benchmark applies to the weekly average/);
  assert.deepEqual(actionWarnings("turbidity", "50", "NTU"), []);
});

test("levels from the server (strings, no minimum) replace the defaults; bad readings give no warnings", () => {
  const levels = [{ parameter: "tss", basis: "per_sample", unit: "mg/L", min: null, max: "100" }];
  assert.equal(actionWarnings("tss", "0.2", "g/L", levels).length, 1); // 200 mg/L
  assert.deepEqual(actionWarnings("tss", "99", "mg/L", levels), []);
  assert.deepEqual(actionWarnings("ph", "9", "SU", levels), []); // no level for pH in this list
  assert.deepEqual(actionWarnings("ph", "", "SU"), []);
  assert.deepEqual(actionWarnings("ph", "15", "SU"), []); // impossible: valueProblem speaks instead
  assert.equal(DEFAULT_LEVELS.length, 2);
});

// Holding times (R-S1): the same edges as tests/sampling/test_custody.py.

const T0 = "2026-05-04T13:00:00.000Z";
const plus = (ms) => new Date(Date.parse(T0) + ms).toISOString();
const MIN = 60000;
const HOUR = 60 * MIN;

test("analysed exactly at the limit is within; one minute (or one second) over is exceeded", () => {
  for (const [name, limit] of [["turbidity", 48 * HOUR], ["ph", 15 * MIN], ["tss", 7 * 24 * HOUR]]) {
    const [atLimit] = holdingTimes([{ name }], T0, plus(limit), "lab", new Date(plus(30 * 24 * HOUR)));
    assert.deepEqual([atLimit.status, atLimit.ok, atLimit.exceeded_by_seconds, atLimit.deadline], ["within", true, null, plus(limit)]);
    const [minuteOver] = holdingTimes([{ name }], T0, plus(limit + MIN), "lab", new Date(T0));
    assert.deepEqual([minuteOver.status, minuteOver.ok, minuteOver.exceeded_by_seconds], ["exceeded", false, 60]);
    const [secondOver] = holdingTimes([{ name }], T0, plus(limit + 1000), "lab", new Date(T0));
    assert.deepEqual([secondOver.status, secondOver.exceeded_by_seconds], ["exceeded", 1]);
  }
});

test("not analysed: the clock runs to now, and the flag comes once past the limit", () => {
  const both = [{ name: "turbidity" }, { name: "ph" }];
  assert.deepEqual(holdingTimes(both, T0, null, "lab", new Date(plus(48 * HOUR))).map((h) => [h.parameter, h.status, h.elapsed_seconds]),
    [["turbidity", "running", 172800], ["ph", "exceeded", 172800]]);
  const [later] = holdingTimes(both, T0, null, "lab", new Date(plus(48 * HOUR + MIN)));
  assert.deepEqual([later.status, later.exceeded_by_seconds, later.ok], ["exceeded", 60, false]);
  const [phEdge] = holdingTimes([{ name: "ph" }], T0, null, "lab", new Date(plus(15 * MIN)));
  assert.equal(phEdge.status, "running");
  const [field] = holdingTimes([{ name: "ph", value: "7" }], T0, null, "field", new Date(plus(48 * HOUR)));
  assert.deepEqual([field.status, field.ok, field.elapsed_seconds], ["not_judged", null, null]);
  assert.deepEqual(holdingTimes([{ name: "orp" }], T0, null, "lab", new Date(T0)), []);
  assert.equal(holdingStatus(1000, 1000, false), "running");
  assert.equal(holdingStatus(1000, 1001, true), "exceeded");
});

test("durations in words, as the custody form prints them", () => {
  const cases = [[0, "under 1 min"], [59, "under 1 min"], [60, "1 min"], [900, "15 min"], [3599, "59 min"], [3600, "1 h"],
    [4320, "1 h 12 min"], [172800, "48 h"], [259140, "71 h 59 min"], [259200, "3 days"], [604800, "7 days"],
    [273600, "3 days 4 h"], [-5, "under 1 min"]];
  for (const [seconds, words] of cases) assert.equal(durationWords(seconds), words, String(seconds));
});

test("every known parameter has a holding time and a default container and preservative", () => {
  assert.deepEqual(Object.keys(HOLDING_MINUTES).sort(), Object.keys(PARAMETERS).sort());
  for (const name of Object.keys(PARAMETERS)) {
    assert.ok(CUSTODY_DEFAULTS[name].container.length <= 100 && CUSTODY_DEFAULTS[name].preservative.length <= 100, name);
  }
});
