// The inspection program on the device (R-I1, R-I4): Town-time deadlines and the inspector's day list.
// tests/browser/test_program_mirror.py checks the same module against inspect_api/program/rules.py, and
// the cases of tests/program/due_vectors.json are run here and by tests/program/test_due_vectors.py.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import { dayList, due, endOfDay, isLate, isMissed, isOverdue, localDay, obligations, zoned }
  from "../../inspect_api/static/pwa/js/rules/program.js";

const VECTORS = JSON.parse(readFileSync(new URL("../program/due_vectors.json", import.meta.url), "utf8"));

const TZ = "America/New_York";
const at = (iso) => new Date(iso).getTime();
const site = { id: "p", status: "active", decided_at: "2026-04-20T14:00:00Z", work_commenced_on: "2026-05-04",
  work_completed_on: null };

test("a day's deadline is 23:59:59 Town time, on both sides of the clock changes", () => {
  assert.equal(new Date(endOfDay("2026-05-05", TZ)).toISOString(), "2026-05-06T03:59:59.000Z");
  assert.equal(new Date(endOfDay("2026-12-01", TZ)).toISOString(), "2026-12-02T04:59:59.000Z");
  assert.equal(new Date(zoned("2026-11-01", 20, 0, 0, TZ)).toISOString(), "2026-11-02T01:00:00.000Z");
  assert.equal(localDay(at("2026-05-06T03:59:59Z"), TZ), "2026-05-05");
  assert.equal(localDay(at("2026-05-06T04:00:00Z"), TZ), "2026-05-06");
});

test("exactly 0.25 in obliges a storm inspection within 24 h; 0.24 does not; one minute late is overdue", () => {
  const storms = [{ id: "s1", ended_at: "2026-05-06T03:59:00Z", inches: "0.25" },
    { id: "s2", ended_at: "2026-05-07T15:00:00Z", inches: "0.24" }];
  const owed = obligations(site, [], storms, [], [], null).filter((o) => o.kind === "storm_event");
  assert.deepEqual(owed.map((o) => [o.source_id, new Date(o.due_at).toISOString()]), [["s1", "2026-05-07T03:59:00.000Z"]]);
  assert.equal(due(owed, "active", at("2026-05-07T03:59:00Z"))[0].overdue, false);
  assert.equal(due(owed, "active", at("2026-05-07T04:00:00Z"))[0].overdue, true);
  const late = obligations(site, [{ id: "v", kind: "storm_event", started_at: "2026-05-07T04:00:00Z", status: "submitted" }],
    storms, [], [], null).filter((o) => o.kind === "storm_event");
  assert.equal(late[0].inspection_id, "v");
  assert.equal(late[0].done_at > late[0].due_at, true);
});

test("a draft inspection meets nothing; a site that commences after the storm owes nothing for it", () => {
  const storms = [{ id: "s", ended_at: "2026-05-04T03:59:00Z", inches: "1.00" }];  // 23:59 on 3 May
  assert.deepEqual(obligations(site, [], storms, [], [], null).filter((o) => o.kind === "storm_event"), []);
  const draft = [{ id: "v", kind: "pre_construction", started_at: "2026-05-01T12:00:00Z", status: "draft" }];
  assert.equal(obligations(site, draft, [], [], [], null).find((o) => o.kind === "pre_construction").done_at, null);
});

test("the day list: overdue and due today, by due time and then nearest site first", () => {
  const now = at("2026-05-06T13:00:00Z");
  const items = [
    { permit_id: "far", kind: "storm_event", due_at: at("2026-05-07T03:59:59Z"), overdue: false },
    { permit_id: "near", kind: "storm_event", due_at: at("2026-05-07T03:59:59Z"), overdue: false },
    { permit_id: "near", kind: "routine", due_at: at("2026-05-19T03:59:59Z"), overdue: false },
    { permit_id: "far", kind: "pre_construction", due_at: at("2026-05-05T03:59:59Z"), overdue: true },
  ];
  const distance = { near: 120, far: 5400 };
  const day = dayList(items, now, null, (id) => distance[id]);
  assert.deepEqual(day.map((o) => [o.permit_id, o.kind]), [["far", "pre_construction"], ["near", "storm_event"],
    ["far", "storm_event"]]);
  assert.equal(dayList(items, now, null, (id) => distance[id], 14).length, 4);
});

// The shared cases: every obligation, in order, due at the same instant, in the same state as on the server.
const stateOf = (o, nowMs) => {
  if (o.done_at !== null) return isLate(o) ? "late" : "on_time";
  if (isMissed(o, nowMs)) return "missed";
  return isOverdue(o, nowMs) ? "overdue" : "due";
};

for (const c of VECTORS.cases) {
  test(`vector: ${c.name}`, () => {
    const now = at(c.now);
    const inspections = (c.inspections || []).map((i) => ({ status: "submitted", ...i }));
    const found = obligations(c.site, inspections, c.storms || [], c.findings || [], c.requests || [], c.settings || null);
    assert.deepEqual(found.map((o) => [o.kind, o.source, o.source_id, o.due_at, stateOf(o, now), o.inspection_id]),
      c.expect.map(([kind, source, sourceId, dueAt, state, by]) => [kind, source, sourceId, at(dueAt), state, by]));
    assert.deepEqual(due(found, c.site.status, now).map((o) => stateOf(o, now)),
      c.expect.map((row) => row[4]).filter((state) => state === "due" || state === "overdue"));
  });
}
