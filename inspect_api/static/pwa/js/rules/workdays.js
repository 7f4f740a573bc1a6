// Business days in Massachusetts, for the due dates a device shows before the server has answered.
// Mirrors inspect_api/workdays.py (legal holidays of MGL c.4 §7 cl. 18; fixed-date holidays on a
// Sunday also kept the Monday after, on a Saturday the Friday before) and the due-date rule of
// inspect_api/inspections/rules.py `finding_due_on` (R-I4). The server's due_on is authoritative.
const MONDAY = 1, THURSDAY = 4, SATURDAY = 6, SUNDAY = 0;
const FIXED = [[1, 1], [6, 19], [7, 4], [11, 11], [12, 25]];
const JUNETEENTH_FROM = 2021;
export const NEW_CONTROL_DAYS = 7;

// Dates are plain calendar days, handled at UTC midnight so no time zone shifts them.
const day = (y, m, d) => new Date(Date.UTC(y, m - 1, d));
const addDays = (d, n) => new Date(d.getTime() + n * 86400000);
export const iso = (d) => d.toISOString().slice(0, 10);
export const parse = (s) => { const [y, m, d] = s.split("-").map(Number); return day(y, m, d); };

function nthWeekday(year, month, weekday, n) {
  const first = day(year, month, 1);
  return addDays(first, ((weekday - first.getUTCDay() + 7) % 7) + 7 * (n - 1));
}

function lastWeekday(year, month, weekday) {
  const last = addDays(day(year + (month === 12 ? 1 : 0), (month % 12) + 1, 1), -1);
  return addDays(last, -((last.getUTCDay() - weekday + 7) % 7));
}

function actualDays(year) {
  const days = FIXED.filter(([m, d]) => !(m === 6 && d === 19) || year >= JUNETEENTH_FROM).map(([m, d]) => day(year, m, d));
  days.push(nthWeekday(year, 1, MONDAY, 3), nthWeekday(year, 2, MONDAY, 3), nthWeekday(year, 4, MONDAY, 3),
    lastWeekday(year, 5, MONDAY), nthWeekday(year, 9, MONDAY, 1), nthWeekday(year, 10, MONDAY, 2),
    nthWeekday(year, 11, THURSDAY, 4));
  return days;
}

const cache = new Map();
function holidaysOf(year) {
  if (!cache.has(year)) {
    const set = new Set();
    for (const y of [year - 1, year, year + 1]) {
      for (const d of actualDays(y)) {
        set.add(iso(d));
        if (d.getUTCDay() === SUNDAY) set.add(iso(addDays(d, 1)));
        else if (d.getUTCDay() === SATURDAY) set.add(iso(addDays(d, -1)));
      }
    }
    cache.set(year, new Set([...set].filter((s) => s.startsWith(String(year)))));
  }
  return cache.get(year);
}

export const isHoliday = (d) => holidaysOf(d.getUTCFullYear()).has(iso(d));
export const isBusinessDay = (d) => d.getUTCDay() !== SATURDAY && d.getUTCDay() !== SUNDAY && !isHoliday(d);

export function nextBusinessDay(d) {
  let next = addDays(d, 1);
  while (!isBusinessDay(next)) next = addDays(next, 1);
  return next;
}

// R-I4: maintenance by the next business day; a new or replaced control within 7 calendar days.
export function findingDueOn(observedOn, needsNewControl) {
  const d = parse(observedOn);
  return iso(needsNewControl ? addDays(d, NEW_CONTROL_DAYS) : nextBusinessDay(d));
}
