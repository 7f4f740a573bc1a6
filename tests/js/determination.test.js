// The review level shown live on the application form (R-A1..R-A4, R-B1, R-B2): thresholds, their
// edges, the order of the checks and the sentences (the same as inspect_api/permits/rules.py).
import { test } from "node:test";
import assert from "node:assert/strict";

import { determine, exemptionStands, COVERAGE_THRESHOLD_SQFT, PERMIT_THRESHOLD_SQFT }
  from "../../inspect_api/static/pwa/js/rules/determination.js";

const level = (...args) => determine(...args).review_level;

test("R-A1: nothing draining to the MS4 or waters is not covered, whatever its size", () => {
  const result = determine(50000, false, false);
  assert.deepEqual(result.rules, ["R-A1"]);
  assert.equal(result.review_level, "not_covered");
  assert.match(result.explanation, /drains neither to the MS4 nor to waters/);
});

test("R-A1: under 5,000 sq ft is not covered; exactly 5,000 is", () => {
  assert.equal(COVERAGE_THRESHOLD_SQFT, 5000);
  const under = determine(4999.99, true, false);
  assert.equal(under.review_level, "not_covered");
  assert.equal(under.explanation, "Part 3 does not apply: 4,999.99 sq ft is under the 5,000 sq ft threshold.");
  assert.equal(level(5000, true, false), "administrative_review");
  assert.equal(level(5000, false, true), "administrative_review");
});

test("R-A2 up to and including 20,000 sq ft; R-A3 above it", () => {
  assert.equal(PERMIT_THRESHOLD_SQFT, 20000);
  const at = determine(20000, true, false);
  assert.deepEqual([at.review_level, at.rules], ["administrative_review", ["R-A1", "R-A2"]]);
  assert.equal(at.explanation, "20,000 sq ft is from 5,000 up to and including 20,000 sq ft: an administrative land "
    + "disturbance review is required.");
  const over = determine(20000.5, true, false);
  assert.deepEqual([over.review_level, over.rules], ["land_disturbance_permit", ["R-A1", "R-A3"]]);
  assert.equal(over.explanation, "20,000.5 sq ft is more than 20,000 sq ft: a land disturbance permit is required.");
});

test("R-A4: a higher-pollutant land use needs a permit at any covered size, but not under the threshold", () => {
  const small = determine(6000, true, false, "marina");
  assert.deepEqual([small.review_level, small.rules], ["land_disturbance_permit", ["R-A1", "R-A4"]]);
  assert.match(small.explanation, /\(a marina or boatyard\); it needs a land disturbance permit whatever its size \(6,000 sq ft\)\./);
  assert.equal(level(4000, true, false, "marina"), "not_covered");
  const other = determine(6000, true, false, "other", [], "a scrap yard");
  assert.match(other.explanation, /\(a scrap yard\)/);
  assert.match(determine(6000, true, false, "other").explanation, /\(another higher-pollutant land use\)/);
});

test("R-B2: a standing exemption makes the project exempt, naming each exemption once, in order", () => {
  const result = determine(30000, true, true, null, [{ kind: "B3" }, { kind: "B1" }, { kind: "B3" }]);
  assert.deepEqual([result.review_level, result.rules], ["exempt", ["R-A1", "R-B2"]]);
  assert.equal(result.explanation, "Part 3 applies (30,000 sq ft draining to the MS4 or waters), but the project is exempt "
    + "under bylaw §B: B1 (maintenance of existing landscaping of a single-family dwelling); B3 (utilities other than "
    + "drainage). No review is required.");
  // An exemption beats even a higher-pollutant land use.
  assert.equal(level(30000, true, false, "marina", [{ kind: "B2" }]), "exempt");
});

test("R-B1: a document exemption without a valid document does not stand and the review rules apply", () => {
  assert.equal(exemptionStands({ kind: "B5", document_valid: true }), true);
  assert.equal(exemptionStands({ kind: "B5", document_valid: false }), false);
  assert.equal(exemptionStands({ kind: "B6" }), false);
  assert.equal(exemptionStands({ kind: "B9" }), false);
  const result = determine(12000, true, false, null, [{ kind: "B6", document_valid: false }, { kind: "B5" }]);
  assert.deepEqual([result.review_level, result.rules], ["administrative_review", ["R-A1", "R-B1", "R-A2"]]);
  assert.ok(result.explanation.startsWith("The claimed exemption B5, B6 does not stand without a valid, unexpired "
    + "document, so the project falls back to the review rules. 12,000 sq ft is from 5,000"), result.explanation);
  assert.equal(level(12000, true, false, null, [{ kind: "B5", document_valid: true }]), "exempt");
});

test("a disturbed area must be a number of zero or more", () => {
  assert.throws(() => determine(-1, true, false), RangeError);
  assert.throws(() => determine(Number.NaN, true, false), RangeError);
  assert.throws(() => determine(null, true, false), RangeError);
  assert.equal(level(0, true, false), "not_covered");
});
