// Applicant: ask for an inspection (post-installation, final, or a re-inspection after a correction)
// with preferred days and a note, and see when each request was met. The request travels in the outbox
// like any record; whether it is done is worked out on the device from the synced inspections.
import { h, mount, field, select, uuid, nowIso, fmtDate, fmtTime } from "../dom.js";
import { meta } from "../db.js";
import * as store from "../store.js";
import * as outbox from "../outbox.js";
import { onSynced, syncNow } from "../sync.js";
import { pendingChip } from "../ui/status.js";
import { addDays, localDay, obligations, settingsOf } from "../rules/program.js";

export const KINDS = [["post_installation", "Post-installation: perimeter controls are in"],
  ["final", "Final: the work is complete"], ["re_inspection", "Re-inspection after a correction"]];
// Which kinds may be asked for in which permit status (inspect_api/program/inspection_requests.py).
const ALLOWED = { post_installation: ["approved", "issued", "active"], final: ["active", "work_complete"],
  re_inspection: ["active", "work_complete"] };
const KIND_TEXT = Object.fromEntries(KINDS.map(([k, text]) => [k, text.split(":")[0]]));

// Each request of the permit with when it was met (or its due time), from the device's records.
async function requestsWithStatus(permit) {
  const settings = (await meta.get("program_settings")) || null;
  const [requests, inspections] = await Promise.all([store.recordsFor("inspection_request", permit.id),
    store.recordsFor("inspection", permit.id)]);
  const owed = new Map(obligations({ ...permit, status: permit.status === "closed" ? "closed" : permit.status },
    inspections, [], [], requests, settings).filter((o) => o.source === "request").map((o) => [o.source_id, o]));
  return requests.sort((a, b) => String(b.created_at || b.device_created_at || "").localeCompare(String(a.created_at || a.device_created_at || "")))
    .map((r) => ({ request: r, owed: owed.get(r.id) || null }));
}

function requestRow({ request, owed }) {
  const done = owed && owed.done_at !== null;
  return h("li.item", { dataset: { request: request.id } }, h("div.split",
    h("span", h("strong", KIND_TEXT[request.kind] || request.kind),
      (request.preferred_dates || []).length ? ` · preferred ${request.preferred_dates.map(fmtDate).join(", ")}` : "",
      request.note ? h("p.hint", request.note) : null),
    h("span", pendingChip(request), " ", done
      ? h("span.chip.good", { "data-test": "done" }, `Inspected ${fmtTime(new Date(owed.done_at).toISOString())}`)
      : h("span.chip.info", { "data-test": "open" }, owed ? `Expected by ${fmtDate(localDay(owed.due_at, settingsOf(null).tz))}` : "Waiting"))));
}

// The preferred days as sent: the filled ones, once each, in order.
export const preferredDays = (values) => [...new Set(values.filter(Boolean))].sort();

// The request as sent, from what its form holds.
export function requestPayload({ id, permitId, kind, days, note }) {
  return { id, permit_id: permitId, kind, preferred_dates: preferredDays(days), note: note.trim() || null,
    device_created_at: nowIso() };
}

export async function requestsScreen(main, { id: permitId }) {
  const message = h("div", { "aria-live": "polite" });
  const list = h("div");
  let permit = await store.getPermit(permitId);
  if (!permit) { mount(main, h("h1", "Not on this device"), h("a", { href: "#/permits" }, "My permits")); return null; }
  const allowed = KINDS.filter(([k]) => ALLOWED[k].includes(permit.status));
  const kind = select(allowed, allowed.length ? allowed[0][0] : "", { name: "kind" });
  const today = localDay(Date.now(), settingsOf(null).tz);
  const days = [0, 1, 2].map(() => h("input", { type: "date", min: today, max: addDays(today, 365) }));
  const note = h("textarea", { rows: 3, name: "note", maxlength: 2000 });

  async function drawList() {
    permit = (await store.getPermit(permitId)) || permit;
    const rows = await requestsWithStatus(permit);
    mount(list, rows.length ? h("ul.plain", { "data-test": "requests" }, rows.map(requestRow)) : h("p.muted", "No requests yet."));
  }

  async function send(event) {
    event.preventDefault();
    const preferred = preferredDays(days.map((d) => d.value));
    const late = preferred.filter((d) => d < today);
    if (late.length) { mount(message, h("div.banner.error", "Preferred days start today.")); return; }
    const id = uuid();
    const data = requestPayload({ id, permitId, kind: kind.value, days: preferred, note: note.value });
    await store.saveLocal("inspection_request", { ...data, created_at: data.device_created_at, version: null });
    await outbox.queueMutation("inspection_request", id, data, `${KIND_TEXT[kind.value]} inspection request for ${(permit.site || {}).address}`);
    days.forEach((d) => { d.value = ""; });
    note.value = "";
    mount(message, h("div.banner.ok", { role: "status" }, "Request saved; it is sent with your next sync."));
    await drawList();
    syncNow("saved");
  }

  mount(main, h("p", h("a", { href: `#/permit/${permitId}` }, "← Back to the permit")),
    h("h1", "Inspection requests"), h("p.muted", (permit.site || {}).address || ""),
    allowed.length ? h("form.card", { onsubmit: send, novalidate: true },
      field("Inspection", kind),
      h("fieldset.field", h("legend", "Preferred days (up to three)"), days),
      field("Note for the inspector", note, "For example: the silt fence on the east line was replaced on Monday."),
      message,
      h("div.actions", h("button.primary", { type: "submit" }, "Ask for the inspection")))
      : h("p.card.muted", "Inspections can be requested once the permit is approved or issued."),
    h("section.card", h("h2", "Your requests"), list));
  await drawList();
  return onSynced(drawList);
}
