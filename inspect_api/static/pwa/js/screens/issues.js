// Sync issues: changes the server answered with `conflict` or `rejected`, kept on the device with
// the server's message until the user decides; plus, for supervisors, every open conflict.
// Conflicts resolve through POST /sync/conflicts/{id}/resolve (keep the server's or use mine);
// any item can also be discarded from the device.
import { h, mount, label, fmtTime, fmtDate, plural } from "../dom.js";
import * as outbox from "../outbox.js";
import * as store from "../store.js";
import { api, listAll, plain } from "../api.js";
import { currentUser } from "../auth.js";
import { syncNow, settleRecord, onSynced } from "../sync.js";
import { navLabel } from "../ui/nav.js";

const WHAT = { entry_authorization: "Entry authorization", inspection: "Inspection", sample: "Sample", finding: "Finding",
  completion_notice: "Completion notice", permit: "Application", photo: "Photo",
  photo_annotation: "Photo markup" };

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;

// Equal as the user means it: times as instants, numbers as numbers, and only the fields the
// device sent (the server adds computed ones such as normalized values).
function same(mine, theirs) {
  if (mine === theirs) return true;
  if (mine === null || theirs === null || mine === undefined || theirs === undefined) return (mine ?? null) === (theirs ?? null);
  if (typeof mine === "string" && ISO_TIME.test(mine) && typeof theirs === "string") return Date.parse(mine) === Date.parse(theirs);
  if (typeof mine === "number" || typeof theirs === "number") return Number(mine) === Number(theirs);
  if (Array.isArray(mine)) return Array.isArray(theirs) && mine.length === theirs.length && mine.every((v, i) => same(v, theirs[i]));
  if (typeof mine === "object") return typeof theirs === "object" && Object.keys(mine).every((k) => same(mine[k], theirs[k]));
  return false;
}

function fieldsDiffer(item) {
  const server = item.server_record || {};
  return Object.keys(item.data || {}).filter((k) => k in server && !same(item.data[k], server[k]));
}

async function resolve(item, resolution, box) {
  mount(box, h("p.muted", "Working…"));
  try {
    if (item.conflict_id) {
      const body = await api(`/api/v1/sync/conflicts/${item.conflict_id}/resolve`, { method: "POST", body: { resolution } });
      await outbox.removeItem(item.seq);
      if (body && body.record) await settleRecord(item.entity, item.id, body.record, body.record.version);
    } else if (resolution === "keep_server") {
      await outbox.removeItem(item.seq);
      if (item.server_record) await settleRecord(item.entity, item.id, item.server_record, item.server_record.version);
    } else {
      // No server-side conflict record: send my version again on top of the server's.
      const record = await store.getRecord(item.entity, item.id);
      if (record && item.server_record) await store.saveLocal(item.entity, { ...record, _server_version: item.server_record.version });
      await outbox.saveItem({ ...item, state: "pending", sent: false, mutation_id: crypto.randomUUID(), message: null });
    }
    syncNow("resolved");
  } catch (err) {
    mount(box, h("div.banner.error", plain(err)));
  }
}

async function discard(item) {
  await outbox.removeItem(item.seq);
  const record = await store.getRecord(item.entity, item.id);
  const left = await outbox.forRecord(item.entity, item.id);
  if (record && !left.length) {
    if (record._server_version === null || record._server_version === undefined) await store.forget(item.entity, item.id);
    else await store.saveLocal(item.entity, record, { pending: false });
  }
  syncNow("discarded");
}

async function retry(item) {
  // A mutation id keeps its first outcome forever: a retry is a new mutation.
  const fresh = { ...item, state: "pending", sent: false, message: null, error: null };
  if (item.kind === "mutation") fresh.mutation_id = crypto.randomUUID();
  await outbox.saveItem(fresh);
  syncNow("retry");
}

// ---- Plain words for what the server answered --------------------------------------------------
const ISO_IN_TEXT = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?/g;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

// Times inside a server sentence in the device's local time, without seconds or microseconds.
export function localized(text) {
  return String(text || "").replace(ISO_IN_TEXT, (m) => fmtTime(m));
}

// A stored value as a person reads it (never JSON).
export function shown(value) {
  if (value === null || value === undefined || value === "") return "—";
  if (typeof value === "boolean") return value ? "Yes" : "No";
  if (typeof value === "string" && ISO_TIME.test(value)) return fmtTime(value);
  if (typeof value === "string" && ISO_DATE.test(value)) return fmtDate(value);
  if (Array.isArray(value)) {
    if (value.every((v) => typeof v !== "object" || v === null)) return value.map(shown).join(", ") || "none";
    return plural(value.length, "entry", "entries");
  }
  if (typeof value === "object") {
    if (Array.isArray(value.items)) {
      const deficient = value.items.filter((i) => i.answer === "deficient").length;
      return `${plural(value.items.length, "answer")}${deficient ? `, ${deficient} deficient` : ""}`;
    }
    if ("lat" in value && "lon" in value) return `${Number(value.lat).toFixed(5)}, ${Number(value.lon).toFixed(5)}`;
    return Object.entries(value).filter(([, v]) => v !== null && typeof v !== "object").map(([k, v]) => `${label(k)}: ${shown(v)}`).join("; ") || "—";
  }
  return String(value);
}

// Field errors {"valid_to": ["..."], "parameters": {"0": {"unit": ["..."]}}} as sentences.
function errorLines(errors, prefix = "") {
  const out = [];
  for (const [key, value] of Object.entries(errors || {})) {
    if (key === "current") continue;
    const name = /^\d+$/.test(key) ? `${prefix}#${Number(key) + 1}` : `${prefix}${prefix ? " " : ""}${label(key.replace(/_ids?$/, ""))}`;
    if (Array.isArray(value)) out.push(...value.map((v) => (typeof v === "object" ? errorLines(v, name) : [`${name}: ${localized(v)}`])).flat());
    else if (value && typeof value === "object") out.push(...errorLines(value, name));
    else out.push(`${name}: ${localized(value)}`);
  }
  return out;
}

// What the person should do next, by the refusal's key. "Try again" is offered only where trying
// again can succeed.
function nextStep(item) {
  const permitId = (item.data && item.data.permit_id) || null;
  switch (item.error) {
    case "entry_not_authorized":
      return { text: "No entry authorization on this device covered the time of this visit. Record a new entry authorization for the site (owner's consent, warrant or permit condition), then send this again.",
        link: permitId ? [`#/site/${permitId}/entry`, "Record an entry authorization"] : null, retry: true, retryText: "Send again after recording it" };
    case "validation_error":
      return { text: "Something in the record is not accepted (see below). Correct it on the record's screen and save it again, or discard this change.", retry: false };
    case "forbidden":
    case "not_found":
      return { text: "Your role or assignment no longer lets you change this record. Ask the Stormwater office; you can discard the change here.", retry: false };
    case "record_locked":
    case "permit_locked":
    case "invalid_transition":
      return { text: "The record has moved on (decided, approved or closed) and cannot take this change. Discard it, or tell the office what you meant to change.", retry: false };
    case "payload_too_large":
    case "image_invalid":
    case "unsupported_media_type":
      return { text: "The file could not be used. Take the photo again and discard this one.", retry: false };
    default:
      return { text: "Try again. If it is refused again, discard it and tell the Stormwater office.", retry: true, retryText: "Try again" };
  }
}

function differencesTable(rows) {
  return h("table.diff", { "data-test": "differences" },
    h("thead", h("tr", h("th", { scope: "col" }, "Field"), h("th", { scope: "col" }, "On the server"), h("th", { scope: "col" }, "On this device"))),
    h("tbody", rows.map((d) => h("tr", { dataset: { field: d.field } }, h("th", { scope: "row" }, label(d.field)), h("td", shown(d.server)), h("td", shown(d.device))))));
}

function localDifferences(item) {
  if (Array.isArray(item.differences) && item.differences.length) return item.differences;
  const server = item.server_record || {};
  return fieldsDiffer(item).map((field) => ({ field, server: server[field], device: item.data[field] }));
}

function who(person, fallback) {
  return person && (person.name || person.email) ? person.name || person.email : fallback;
}

function itemCard(item) {
  const box = h("div", { "aria-live": "polite" });
  const conflict = item.state === "conflict";
  const rows = conflict ? localDifferences(item) : [];
  const step = conflict ? null : nextStep(item);
  // Field errors that only repeat the message, or are machine keys ("revoked"), add nothing for a person.
  const message = localized(item.message);
  const errors = (item.errors ? errorLines(item.errors) : [])
    .filter((line) => !line.endsWith(`: ${message}`) && !/: [a-z_]+$/.test(line));
  const server = item.server_record || {};
  return h("section.card.refusal", { dataset: { issue: item.state } },
    h("div.split", h("h2", `${WHAT[item.entity] || label(item.entity)}: ${item.label || ""}`),
      h(`span.chip.${conflict ? "warn" : "bad"}`, conflict ? "Conflict" : "Refused")),
    h("p", { "data-test": "server-message" }, localized(item.message) || "The server did not accept this change."),
    errors.length ? h("ul", { "data-test": "field-errors" }, errors.map((e) => h("li", e))) : null,
    conflict ? h("p", { "data-test": "conflict-who" }, `Changed on the server by ${who(item.server_author || server.updated_by_user, "someone else")}`,
      item.server_device || server.device_name ? ` (${(item.server_device || {}).name || server.device_name})` : "",
      server.updated_at ? `, ${fmtTime(server.updated_at)}` : "", "; your change was made on this device.") : null,
    rows.length ? differencesTable(rows) : null,
    step ? h("div.banner.info", { "data-test": "next-step" }, h("strong", "What to do: "), step.text,
      step.link ? [" ", h("a", { href: step.link[0] }, step.link[1])] : null) : null,
    h("p.hint", `Made ${fmtTime(item.created_at)}; answered ${fmtTime(item.answered_at)}.`),
    h("div.actions",
      conflict ? h("button.primary", { type: "button", onclick: () => resolve(item, "take_device", box) }, "Use mine") : null,
      conflict ? h("button", { type: "button", onclick: () => resolve(item, "keep_server", box) }, "Keep the server's") : null,
      step && step.retry ? h("button.primary", { type: "button", onclick: () => retry(item) }, step.retryText) : null,
      h("button.danger", { type: "button", onclick: () => discard(item) }, "Discard my change")),
    box);
}

// A conflict from any device (supervisors): who raised it from which device, and each differing
// field's two values side by side. Older servers send only the field names.
function serverConflictCard(c, reload) {
  const box = h("div", { "aria-live": "polite" });
  const act = async (resolution) => {
    try {
      await api(`/api/v1/sync/conflicts/${c.id}/resolve`, { method: "POST", body: { resolution } });
      reload();
    } catch (err) { mount(box, h("div.banner.error", plain(err))); }
  };
  const rows = Array.isArray(c.differences) ? c.differences : [];
  return h("section.card.refusal", { dataset: { conflict: c.id } },
    h("div.split", h("h2", `${WHAT[c.entity] || label(c.entity)}${c.summary ? `: ${c.summary}` : ""}`), h("span.chip.warn", "Open conflict")),
    h("p", { "data-test": "conflict-who" }, `Raised by ${who(c.raised_by, "a field user")}`,
      c.device && c.device.name ? ` on “${c.device.name}”` : "", `, ${fmtTime(c.created_at)}.`),
    rows.length ? differencesTable(rows)
      : h("p", `Fields that differ: ${(c.fields || []).map(label).join(", ") || "—"}.`),
    h("div.actions",
      h("button.primary", { type: "button", onclick: () => act("take_device") }, "Take the device's"),
      h("button", { type: "button", onclick: () => act("keep_server") }, "Keep the server's")), box);
}

function waitingName(item) {
  if (item.kind === "photo") return `taken ${fmtTime(item.captured_at || item.created_at)}${item.parent_type ? ` for the ${(WHAT[item.parent_type] || label(item.parent_type)).toLowerCase()}` : ""}`;
  return `saved ${fmtTime(item.created_at)}`;
}

export async function issuesScreen(main) {
  const draw = async () => {
    const list = (await outbox.items()).filter((i) => i.state === "conflict" || i.state === "rejected");
    const waiting = (await outbox.items()).filter((i) => i.state === "pending");
    const others = await outbox.itemsOtherUsers();
    let server = [];
    if (currentUser().role === "supervisor" && navigator.onLine) {
      server = await listAll("/api/v1/sync/conflicts?status=open").catch(() => []);
    }
    mount(main, h("h1", navLabel("#/issues") || "Sync issues"),
      list.length ? list.map(itemCard) : h("p.card", { "data-test": "no-issues" }, "Nothing needs your decision."),
      h("section.card", h("h2", "Waiting to be sent"),
        waiting.length ? h("ul", waiting.map((i) => h("li", `${WHAT[i.entity] || label(i.entity)}: ${i.label || waitingName(i)}`,
          i.message ? h("span.muted", ` — ${localized(i.message)}`) : null))) : h("p.muted", "Nothing.")),
      others.length ? h("div.banner.info", `${plural(others.length, "change")} of another user kept on this device; they are sent when that user signs in.`) : null,
      server.length ? h("h2.section-title", "Open conflicts from all devices") : null,
      server.map((c) => serverConflictCard(c, draw)));
  };
  await draw();
  const stopOutbox = outbox.onOutboxChange(() => draw());
  const stopSync = onSynced(draw);
  return () => { stopOutbox(); stopSync(); };
}
