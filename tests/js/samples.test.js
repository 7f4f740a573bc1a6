// Sample readings on site (R-S1..R-S3): units, impossible values and action-level warnings.
import { test } from "node:test";
import assert from "node:assert/strict";

import { actionWarnings, toCanonical, valueProblem, DEFAULT_LEVELS }
  from "../../inspect_api/static/pwa/js/rules/samples.js";

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
