// A record's state as a chip, and the banners that say whether work may go on here: shared by the
// field, office and applicant screens so each reads a permit the same way.
import { h, label } from "../dom.js";

const GOOD = ["approved", "issued", "active", "work_complete", "closed"];
const BAD = ["denied", "withdrawn"];

export function statusChip(status) {
  // An enforcement case on land disturbed with no application (R-O0).
  if (status === "unpermitted") return h("span.chip.bad", { "data-test": "status" }, "Enforcement case: no application");
  const kind = GOOD.includes(status) ? "good" : BAD.includes(status) ? "bad" : "info";
  return h(`span.chip.${kind}`, { "data-test": "status" }, label(status || "unknown"));
}

// The server cites the rule, "(R-D1)"; the person on site reads the reason in words.
export function reasonInWords(message) {
  return String(message || "").replace(/\s*\((?:R-[A-Z]\d+[a-z]?(?:, )?)+\)/g, "");
}

// Why work may not be recorded as started (R-O1a, R-A6, R-D1), as the server says it.
export function commencementNotice(permit) {
  const blocked = permit && permit.commencement_blocked;
  if (!blocked) return null;
  return h("div.banner.warn", { "data-test": "commencement-blocked" }, "Work may not start yet. ", reasonInWords(blocked.message));
}

export function pendingChip(record) {
  return record && record._pending ? h("span.chip.warn", "Not sent yet") : null;
}

export function ceaseWarning(permit) {
  if (!permit || !permit.cease_and_desist) return null;
  return h("div.banner.danger", { "data-test": "cease-and-desist" },
    "Cease-and-desist order open on this site. No land-disturbing activity may continue (R-O1(a)). ",
    "Record what you see; do not direct work to go on.");
}
