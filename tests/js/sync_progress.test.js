// The sync bar's words while pull pages arrive: a count of what landed, whether more is coming, and
// whether this is the device's first sync (a first sync shows its progress).
import { test } from "node:test";
import assert from "node:assert/strict";

import { pullProgress } from "../../inspect_api/static/pwa/js/sync_progress.js";

test("a first sync counts the records received, with thousands separated", () => {
  assert.equal(pullProgress(true, 12000, true), "First sync: 12,000 records received, more coming…");
  assert.equal(pullProgress(true, 60001, false), "First sync: 60,001 records received");
});

test("before the first page lands it says it is asking, not that nothing came", () => {
  assert.equal(pullProgress(true, 0, true), "First sync: asking the server…");
  assert.equal(pullProgress(false, 0, false), "Receiving updates: nothing new");
});

test("a later sync says updates, and one record is singular", () => {
  assert.equal(pullProgress(false, 1, false), "Receiving updates: 1 record received");
  assert.equal(pullProgress(false, 500, true), "Receiving updates: 500 records received, more coming…");
});
