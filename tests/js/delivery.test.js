// The office's reading of a message's delivery (ui/delivery.js): the time in the Town's zone whatever
// the device's, and each state in words.
import { test } from "node:test";
import assert from "node:assert/strict";

import { deliveryWords, townTime } from "../../inspect_api/static/pwa/js/ui/delivery.js";

const norm = (s) => s.replace(/\u202f/g, " ");

test("times are the Town's (America/New_York), with its zone, in summer and winter", () => {
  assert.equal(norm(townTime("2026-07-04T16:05:00Z")), "Jul 4, 2026, 12:05 PM EDT");
  assert.equal(norm(townTime("2026-12-01T03:30:00Z")), "Nov 30, 2026, 10:30 PM EST");
  assert.equal(townTime(null), "—");
});

test("each state in words: sent, waiting, retrying with the server's answer, failed with its reason", () => {
  const base = { created_at: "2026-05-04T16:00:00Z", attempts: 0, smtp_reply: null };
  assert.deepEqual(deliveryWords({ ...base, status: "sent", attempts: 1, sent_at: "2026-05-04T16:01:00Z" }).map(norm),
    ["good", "E-mailed", "Sent May 4, 2026, 12:01 PM EDT."]);
  assert.equal(deliveryWords({ ...base, status: "queued" })[1], "Waiting to send");
  const retry = deliveryWords({ ...base, status: "queued", attempts: 2, smtp_reply: "451 4.3.0 try later",
    next_attempt_at: "2026-05-04T16:04:00Z" });
  assert.equal(retry[1], "Retrying");
  assert.equal(norm(retry[2]), "Tried 2 times; the mail server answered “451 4.3.0 try later”. Next try May 4, 2026, 12:04 PM EDT.");
  assert.deepEqual(deliveryWords({ ...base, status: "failed", failure_reason: "No e-mail address on file for X." }),
    ["bad", "Not delivered", "No e-mail address on file for X."]);
});
