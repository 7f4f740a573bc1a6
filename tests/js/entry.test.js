// R-E2 on the device: the site-entry decision table, checked top to bottom, and its edges.
import { test } from "node:test";
import assert from "node:assert/strict";

import { coverageProblem, coverageReason, findCover, when } from "../../inspect_api/static/pwa/js/rules/entry.js";

const AUTH = { permit_id: "p1", valid_from: "2026-05-01T12:00:00Z", valid_to: "2026-05-31T12:00:00Z", revoked_at: null,
  scope: ["examination", "sampling"] };
const reason = (auth, at, activity = "examination", permit = "p1") => coverageReason(auth, permit, activity, at);

test("covered inside the window for an activity in scope", () => {
  assert.equal(reason(AUTH, "2026-05-10T09:00:00Z"), null);
  assert.equal(coverageProblem(AUTH, "p1", "sampling", "2026-05-10T09:00:00Z"), null);
});

test("each row of the table, in order", () => {
  assert.equal(reason(null, "2026-05-10T09:00:00Z"), "none");
  assert.equal(reason(AUTH, "2026-05-10T09:00:00Z", "examination", "p2"), "other_site");
  assert.equal(reason(AUTH, "2026-04-30T09:00:00Z"), "not_yet_valid");
  assert.equal(reason({ ...AUTH, revoked_at: "2026-05-05T00:00:00Z" }, "2026-05-10T09:00:00Z"), "revoked");
  assert.equal(reason(AUTH, "2026-06-01T09:00:00Z"), "expired");
  assert.equal(reason(AUTH, "2026-05-10T09:00:00Z", "survey"), "scope");
});

test("the window starts at valid_from and ends at valid_to and revoked_at (half-open)", () => {
  assert.equal(reason(AUTH, "2026-05-01T12:00:00Z"), null);
  assert.equal(reason(AUTH, "2026-05-01T11:59:59.999Z"), "not_yet_valid");
  assert.equal(reason(AUTH, "2026-05-31T11:59:59.999Z"), null);
  assert.equal(reason(AUTH, "2026-05-31T12:00:00Z"), "expired");
  const revoked = { ...AUTH, revoked_at: "2026-05-10T09:00:00Z" };
  assert.equal(reason(revoked, "2026-05-10T08:59:59Z"), null);
  assert.equal(reason(revoked, "2026-05-10T09:00:00Z"), "revoked");
  // Revocation is checked before expiry; an open-ended authorization never expires.
  assert.equal(reason(revoked, "2026-07-01T00:00:00Z"), "revoked");
  assert.equal(reason({ ...AUTH, valid_to: null }, "2030-01-01T00:00:00Z"), null);
});

test("the sentences name the instants as the server writes them", () => {
  assert.equal(coverageProblem(AUTH, "p1", "examination", "2026-04-30T09:00:00.5Z"),
    "The site-entry authorization is not yet valid at 2026-04-30T09:00:00.500000Z; it starts at 2026-05-01T12:00:00Z.");
  assert.equal(coverageProblem(AUTH, "p1", "survey", "2026-05-10T09:00:00Z"),
    "The site-entry authorization's scope (examination, sampling) lacks survey.");
  assert.equal(coverageProblem({ ...AUTH, scope: [] }, "p1", "survey", "2026-05-10T09:00:00Z"),
    "The site-entry authorization's scope (nothing) lacks survey.");
  assert.equal(when(new Date(Date.UTC(2026, 4, 1, 12, 0, 0, 7))), "2026-05-01T12:00:00.007000Z");
  assert.equal(when("2026-05-01T08:00:00-04:00"), "2026-05-01T12:00:00Z");
});

test("an unknown activity is a programming error, not a refusal", () => {
  assert.throws(() => coverageReason(AUTH, "p1", "demolition", "2026-05-10T09:00:00Z"), /unknown activity 'demolition'/);
});

test("findCover: the newest covering authorization of this site, else why the newest one does not cover", () => {
  const older = { ...AUTH, id: "a", valid_from: "2026-04-01T00:00:00Z" };
  const newer = { ...AUTH, id: "b", valid_from: "2026-05-05T00:00:00Z" };
  const elsewhere = { ...AUTH, id: "c", permit_id: "p2", valid_from: "2026-05-09T00:00:00Z" };
  assert.equal(findCover([older, elsewhere, newer], "p1", "examination", "2026-05-10T00:00:00Z").auth.id, "b");
  assert.equal(findCover([older, newer], "p1", "examination", "2026-05-02T00:00:00Z").auth.id, "a");
  const refused = findCover([older, newer], "p1", "survey", "2026-05-10T00:00:00Z");
  assert.equal(refused.auth, null);
  assert.match(refused.problem, /lacks survey/);
  const none = findCover([elsewhere], "p1", "examination", "2026-05-10T00:00:00Z");
  assert.equal(none.auth, null);
  assert.match(none.problem, /^No site-entry authorization covers examination at this site/);
});
