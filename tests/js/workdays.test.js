// The business-day calendar the device uses for due dates before the server answers (R-I4).
// Expected holidays are those of inspect_api/workdays.py (MGL c.4 §7 cl. 18) for the same years.
import { test } from "node:test";
import assert from "node:assert/strict";

import { findingDueOn, isBusinessDay, isHoliday, iso, nextBusinessDay, parse, NEW_CONTROL_DAYS }
  from "../../inspect_api/static/pwa/js/rules/workdays.js";

function holidaysIn(year) {
  const found = [];
  for (let d = parse(`${year}-01-01`); d.getUTCFullYear() === year; d = new Date(d.getTime() + 86400000)) {
    if (isHoliday(d)) found.push(iso(d));
  }
  return found;
}

test("2026: every legal holiday, with July 4 on a Saturday also kept on Friday July 3", () => {
  assert.deepEqual(holidaysIn(2026), ["2026-01-01", "2026-01-19", "2026-02-16", "2026-04-20", "2026-05-25",
    "2026-06-19", "2026-07-03", "2026-07-04", "2026-09-07", "2026-10-12", "2026-11-11", "2026-11-26",
    "2026-12-25"]);
});

test("New Year's Day on a Saturday is kept on Dec 31 of the year before", () => {
  // Jan 1 2022 was a Saturday: the observed day falls in 2021; Sunday holidays move to Monday.
  assert.deepEqual(holidaysIn(2021), ["2021-01-01", "2021-01-18", "2021-02-15", "2021-04-19", "2021-05-31",
    "2021-06-18", "2021-06-19", "2021-07-04", "2021-07-05", "2021-09-06", "2021-10-11", "2021-11-11",
    "2021-11-25", "2021-12-24", "2021-12-25", "2021-12-31"]);
  assert.deepEqual(holidaysIn(2022), ["2022-01-01", "2022-01-17", "2022-02-21", "2022-04-18", "2022-05-30",
    "2022-06-19", "2022-06-20", "2022-07-04", "2022-09-05", "2022-10-10", "2022-11-11", "2022-11-24",
    "2022-12-25", "2022-12-26"]);
});

test("Juneteenth is a holiday from 2021 on only", () => {
  assert.equal(isHoliday(parse("2020-06-19")), false);
  assert.equal(isBusinessDay(parse("2020-06-19")), true); // a Friday
  assert.equal(isHoliday(parse("2021-06-18")), true); // observed: June 19 2021 was a Saturday
});

test("weekends and holidays are not business days; ordinary weekdays are", () => {
  assert.equal(isBusinessDay(parse("2026-05-23")), false); // Saturday
  assert.equal(isBusinessDay(parse("2026-05-24")), false); // Sunday
  assert.equal(isBusinessDay(parse("2026-05-25")), false); // Memorial Day
  assert.equal(isBusinessDay(parse("2026-05-26")), true);
  assert.equal(isBusinessDay(parse("2026-11-27")), true); // the day after Thanksgiving is not a legal holiday
});

test("the next business day skips weekends and holiday runs", () => {
  assert.equal(iso(nextBusinessDay(parse("2026-05-21"))), "2026-05-22"); // Thursday -> Friday
  assert.equal(iso(nextBusinessDay(parse("2026-05-22"))), "2026-05-26"); // Friday before Memorial Day
  assert.equal(iso(nextBusinessDay(parse("2026-07-02"))), "2026-07-06"); // Fri 3 (observed), Sat 4, Sun 5
  assert.equal(iso(nextBusinessDay(parse("2026-12-31"))), "2027-01-04"); // into the next year: Jan 1 2027 is a Friday
});

test("R-I4 due dates: maintenance by the next business day, a new control within 7 calendar days", () => {
  assert.equal(NEW_CONTROL_DAYS, 7);
  assert.equal(findingDueOn("2026-05-22", false), "2026-05-26");
  assert.equal(findingDueOn("2026-05-22", true), "2026-05-29"); // calendar days: the holiday does not count
  assert.equal(findingDueOn("2026-12-28", true), "2027-01-04"); // across the year end
  assert.equal(findingDueOn("2026-03-06", true), "2026-03-13"); // across the spring clock change, no shift
  assert.equal(findingDueOn("2026-10-30", false), "2026-11-02"); // across the autumn clock change
});

test("dates round-trip as plain calendar days", () => {
  for (const text of ["2026-01-01", "2026-03-08", "2026-11-01", "2028-02-29"]) assert.equal(iso(parse(text)), text);
});
