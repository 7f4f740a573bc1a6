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

import { busyRetry, BUSY_TRIES } from "../../inspect_api/static/pwa/js/sync_progress.js";

const busy = (errors = { retry_after_s: [3] }, status = 503, key = "sync_busy") => ({ status, key, errors });

test("a push the server was too busy for is sent again after its Retry-After, with up to half more at random", () => {
  assert.deepEqual(busyRetry(busy(), 0, () => 0), { ms: 3000, progress: "Server busy; sending again in 3 s…" });
  assert.equal(busyRetry(busy(), 0, () => 1).ms, 4500);
  assert.equal(busyRetry(busy({}), 0, () => 0).ms, 2000, "no Retry-After in the body: two seconds");
  assert.equal(busyRetry(busy({ retry_after_s: [3600] }), 0, () => 0).ms, 60000, "never more than a minute");
});

test("only sync_busy is waited on, and only BUSY_TRIES times in one run", () => {
  assert.equal(busyRetry(busy(), BUSY_TRIES - 2, () => 0).ms, 3000);
  assert.equal(busyRetry(busy(), BUSY_TRIES - 1, () => 0), null);
  assert.equal(busyRetry(busy({}, 503, "service_unavailable"), 0), null, "a server down is the bar's 'unreachable'");
  assert.equal(busyRetry(busy({}, 502, "sync_busy"), 0), null);
  assert.equal(busyRetry({ status: 0, key: "network", errors: {} }, 0), null, "offline: the run ends, the outbox keeps it");
});
