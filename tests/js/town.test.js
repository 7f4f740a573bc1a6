// The Town's calendar on the device (rules/town.js): today, overdue and shown dates follow
// America/New_York whatever zone the device is set to (R-I4, R-O1), as inspect_api/clock.py does.
import { test } from "node:test";
import assert from "node:assert/strict";

import { findingOverdue, fmtTownDate, orderStatus, townDate } from "../../inspect_api/static/pwa/js/rules/town.js";

// 21:30 on 30 November in Fairhaven (EST, UTC-5) is already 1 December in UTC.
const EVENING = new Date("2026-12-01T02:30:00Z");

test("today is the Town's day, not UTC's", () => {
  assert.equal(townDate(EVENING), "2026-11-30");
  assert.equal(townDate("2026-12-01T04:59:59Z"), "2026-11-30");
  assert.equal(townDate("2026-12-01T05:00:00Z"), "2026-12-01");
  assert.equal(townDate(EVENING.getTime(), "UTC"), "2026-12-01");
});

test("summer time moves the Town's midnight to 04:00 UTC", () => {
  assert.equal(townDate("2026-07-04T03:59:59Z"), "2026-07-03");
  assert.equal(townDate("2026-07-04T04:00:00Z"), "2026-07-04");
});

test("a finding is overdue from the day after its due day, and only while open", () => {
  const today = townDate(EVENING);
  assert.equal(findingOverdue({ status: "open", due_on: "2026-11-30" }, today), false);
  assert.equal(findingOverdue({ status: "open", due_on: "2026-11-29" }, today), true);
  assert.equal(findingOverdue({ status: "closed", due_on: "2026-11-29" }, today), false);
  // the synced copy's flag is never read: it was computed when the server wrote it
  assert.equal(findingOverdue({ status: "open", due_on: "2026-11-29", overdue: false }, today), true);
  assert.equal(findingOverdue({ status: "open", due_on: "2026-11-30", overdue: true }, today), false);
});

test("an open order is overdue the day after its deadline; the deadline day is still in time", () => {
  assert.equal(orderStatus({ status: "open", deadline: "2026-11-30" }, "2026-11-30"), "open");
  assert.equal(orderStatus({ status: "open", deadline: "2026-11-30" }, "2026-12-01"), "overdue");
  assert.equal(orderStatus({ status: "overdue", deadline: "2026-12-05" }, "2026-12-01"), "open");
  assert.equal(orderStatus({ status: "complied", deadline: "2026-11-01" }, "2026-12-01"), "complied");
});

test("dates are shown on the Town's calendar", () => {
  assert.equal(fmtTownDate("2026-12-01"), "Dec 1, 2026");
  assert.equal(fmtTownDate(EVENING.toISOString()), "Nov 30, 2026");
  assert.equal(fmtTownDate(""), "—");
  assert.equal(fmtTownDate("not a date"), "not a date");
});
