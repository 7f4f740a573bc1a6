// Starting an inspection from the last one (rules/carry.js): which inspection, the answers as carried,
// the confirm rule a submission needs (the server's inspections/rules.py still_carried_over), and the
// device's recent values offered as choices.
import { test } from "node:test";
import assert from "node:assert/strict";

import { lastInspection, carryAnswers, stillCarried, settle, confirmAll, recentDistinct, weatherValue, weatherWords }
  from "../../inspect_api/static/pwa/js/rules/carry.js";

const answered = { template: "esc", items: [{ key: "a", answer: "ok" }] };
const rec = (id, status, started_at, extra = {}) => ({ id, permit_id: "p1", status, started_at, checklist: answered, ...extra });

test("the last inspection is the newest submitted or approved one of the permit, never a draft, returned, deleted or another permit's", () => {
  const records = [
    rec("old", "approved", "2026-04-01T13:00:00Z"),
    rec("submitted", "submitted", "2026-04-20T13:00:00Z"),
    rec("draft", "draft", "2026-05-01T13:00:00Z"),
    rec("returned", "returned", "2026-05-02T13:00:00Z"),
    rec("deleted", "approved", "2026-05-03T13:00:00Z", { deleted_at: "2026-05-03T14:00:00Z" }),
    rec("empty", "submitted", "2026-05-03T15:00:00Z", { checklist: { template: "esc", items: [] } }),
    rec("elsewhere", "approved", "2026-05-04T13:00:00Z", { permit_id: "p2" }),
  ];
  assert.equal(lastInspection(records, "p1").id, "submitted");
  assert.equal(lastInspection(records, "p2").id, "elsewhere");
  assert.equal(lastInspection(records.filter((r) => r.id !== "submitted"), "p1").id, "old");
  assert.equal(lastInspection([rec("d", "draft", "2026-05-01T13:00:00Z")], "p1"), null);
  assert.equal(lastInspection([], "p1"), null);
});

test("answers and notes are carried marked; a deficient answer stays deficient with its severity; photos and dropped items stay behind", () => {
  const source = { checklist: { items: [
    { key: "fence", answer: "deficient", note: "Down on the east side", severity: "high", needs_new_control: true, photo_ids: ["ph1"] },
    { key: "entrance", answer: "ok", note: null, photo_ids: ["ph2"], severity: null, needs_new_control: null, carried_over: false },
    { key: "washout", answer: "deficient", note: "", photo_ids: [], severity: null, needs_new_control: null },
    { key: "retired_item", answer: "n/a", note: null, photo_ids: [] },
  ] } };
  const carried = carryAnswers(source, [{ key: "fence" }, { key: "entrance" }, { key: "washout" }, { key: "new_item" }]);
  assert.deepEqual(carried, [
    { key: "fence", answer: "deficient", note: "Down on the east side", photo_ids: [], carried_over: true, severity: "high", needs_new_control: true },
    { key: "entrance", answer: "ok", note: null, photo_ids: [], carried_over: true },
    { key: "washout", answer: "deficient", note: "", photo_ids: [], carried_over: true, severity: "moderate" },
  ]);
  assert.deepEqual(stillCarried(carried), ["fence", "entrance", "washout"]);
  assert.deepEqual(carryAnswers({ checklist: null }, [{ key: "fence" }]), []);
});

test("a submission waits for every carried answer: confirming or changing one settles only it, unchanged", () => {
  const answers = carryAnswers({ checklist: { items: [
    { key: "fence", answer: "deficient", note: "Down", severity: "high" }, { key: "entrance", answer: "ok" }, { key: "dust", answer: "ok" }] } },
  [{ key: "fence" }, { key: "entrance" }, { key: "dust" }]);
  settle(answers[1]);
  assert.deepEqual(stillCarried(answers), ["fence", "dust"]);
  assert.equal(answers[1].answer, "ok");
  assert.equal(settle(undefined), undefined);
  assert.deepEqual(confirmAll(answers), ["fence", "dust"]);
  assert.deepEqual(stillCarried(answers), []);
  // confirming never turns a deficiency into ok
  assert.deepEqual([answers[0].answer, answers[0].severity, answers[0].note], ["deficient", "high", "Down"]);
  assert.deepEqual(confirmAll(answers), []);
});

test("recent values: distinct, newest first, empty ones skipped, at most five by default", () => {
  const samples = ["Ines Ortiz", "Lab Tech", "", null, "Ines Ortiz", "A", "B", "C", "D"].map((sampler, n) =>
    ({ sampler, sampled_at: new Date(Date.UTC(2026, 4, 10 - n)).toISOString() }));
  const values = recentDistinct(samples.reverse(), (r) => r.sampler, (r) => r.sampled_at);
  assert.deepEqual(values, ["Ines Ortiz", "Lab Tech", "A", "B", "C"]);
  assert.deepEqual(recentDistinct(samples, (r) => r.sampler, (r) => r.sampled_at, 2), ["Ines Ortiz", "Lab Tech"]);
  assert.deepEqual(recentDistinct([], (r) => r.sampler, (r) => r.sampled_at), []);
});

test("recent weather counts a whole reading once and skips blank ones; said in words", () => {
  const inspections = [
    { started_at: "2026-05-04T13:00:00Z", weather: { conditions: "overcast", temperature_f: 58, rainfall_in_24h: 0.4 } },
    { started_at: "2026-05-04T15:00:00Z", weather: { conditions: null, temperature_f: null, rainfall_in_24h: null } },
    { started_at: "2026-05-04T11:00:00Z", weather: { conditions: "overcast", temperature_f: 58, rainfall_in_24h: 0.4 } },
    { started_at: "2026-05-03T11:00:00Z", weather: { conditions: "clear", temperature_f: 0, rainfall_in_24h: 0 } },
    { started_at: "2026-05-02T11:00:00Z", weather: null },
  ];
  const values = recentDistinct(inspections, (r) => weatherValue(r.weather), (r) => r.started_at);
  assert.deepEqual(values, [{ conditions: "overcast", temperature_f: 58, rainfall_in_24h: 0.4 },
    { conditions: "clear", temperature_f: 0, rainfall_in_24h: 0 }]);
  assert.equal(weatherWords(values[0]), "Overcast, 58 °F, 0.4 in rain");
  assert.equal(weatherWords(values[1]), "Clear, 0 °F, 0 in rain");
  assert.equal(weatherWords({ conditions: null, temperature_f: 41, rainfall_in_24h: null }), "41 °F");
});
