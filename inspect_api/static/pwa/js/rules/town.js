// The Town's calendar on the device. The days bylaw deadlines are counted in are calendar days in the
// Town's time zone (America/New_York, the server's TIMEZONE), never the device's: at 21:30 in Fairhaven
// a device set to UTC is already on the next day. Flags that depend on today (a finding or an order
// overdue, R-I4, R-O1) are worked out here from the dates, never read from a synced copy, which holds
// them as of the moment the server wrote it. Mirrors inspect_api/clock.py and the rules it feeds.
export const TOWN_ZONE = "America/New_York";

const dayFormats = new Map();
function dayFormat(tz) {
  if (!dayFormats.has(tz)) {
    dayFormats.set(tz, new Intl.DateTimeFormat("en-US", { timeZone: tz, year: "numeric", month: "2-digit", day: "2-digit" }));
  }
  return dayFormats.get(tz);
}

// The Town's calendar day (YYYY-MM-DD) of an instant (a Date, ms or RFC 3339 text; now without one).
export function townDate(at = new Date(), tz = TOWN_ZONE) {
  const d = at instanceof Date ? at : new Date(at);
  const p = {};
  for (const part of dayFormat(tz).formatToParts(d)) p[part.type] = part.value;
  return `${p.year}-${p.month}-${p.day}`;
}

// R-I4, inspections/rules.py is_overdue: open past the close of its due day.
export function findingOverdue(finding, today = townDate()) {
  return finding.status === "open" && Boolean(finding.due_on) && finding.due_on < today;
}

// R-O1, enforcement/rules.py order_status: an open order is overdue from the day after its deadline.
export function orderStatus(order, today = townDate()) {
  const stored = order.status === "overdue" ? "open" : order.status;
  return stored === "open" && order.deadline && today > order.deadline ? "overdue" : stored;
}

const shownDays = new Map();
// A date as the Town writes it ("Dec 1, 2026"): a bare YYYY-MM-DD as written, an instant on the
// Town's calendar.
export function fmtTownDate(value, tz = TOWN_ZONE) {
  if (!value) return "—";
  if (!shownDays.has(tz)) shownDays.set(tz, new Intl.DateTimeFormat("en-US", { timeZone: tz, month: "short", day: "numeric", year: "numeric" }));
  const bare = /^\d{4}-\d{2}-\d{2}$/.test(value);
  const d = bare ? new Date(`${value}T12:00:00Z`) : new Date(value);
  if (Number.isNaN(d.getTime())) return String(value);
  return bare ? new Intl.DateTimeFormat("en-US", { timeZone: "UTC", month: "short", day: "numeric", year: "numeric" }).format(d)
    : shownDays.get(tz).format(d);
}
