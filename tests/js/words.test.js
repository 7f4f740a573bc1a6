// Codes read as words on every screen: the kinds and documents whose words are not the code with spaces.
import { test } from "node:test";
import assert from "node:assert/strict";

import { label } from "../../inspect_api/static/pwa/js/dom.js";

test("hyphenated kinds and named documents read as people write them", () => {
  assert.equal(label("pre_construction"), "Pre-construction");
  assert.equal(label("post_installation"), "Post-installation");
  assert.equal(label("follow_up"), "Follow-up");
  assert.equal(label("re_inspection"), "Re-inspection");
  assert.equal(label("as_built_plan"), "As-built plan");
  assert.equal(label("om_plan"), "O&M plan");
  assert.equal(label("esc_plan"), "ESC plan");
});

test("any other code is its words with a capital", () => {
  assert.equal(label("storm_event"), "Storm event");
  assert.equal(label("routine"), "Routine");
  assert.equal(label("substantial_compliance"), "Substantial compliance");
  assert.equal(label(""), "");
  assert.equal(label(null), "");
});
