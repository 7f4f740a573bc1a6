// Sync issues: changes the server answered with `conflict` or `rejected`, kept on the device with
// the server's message until the user decides; plus, for supervisors, every open conflict.
// Conflicts resolve through POST /sync/conflicts/{id}/resolve (keep the server's or use mine);
// any item can also be discarded from the device.
import { h, mount, label, fmtTime, plural } from "../dom.js";
import * as outbox from "../outbox.js";
import * as store from "../store.js";
import { api, listAll, plain } from "../api.js";
import { currentUser } from "../auth.js";
import { syncNow, settleRecord, onSynced } from "../sync.js";

const WHAT = { entry_authorization: "Entry authorization", inspection: "Inspection", sample: "Sample", finding: "Finding",
  completion_notice: "Completion notice", permit: "Application", photo: "Photo" };

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

function itemCard(item) {
  const box = h("div", { "aria-live": "polite" });
  const conflict = item.state === "conflict";
  const differ = conflict ? fieldsDiffer(item) : [];
  return h("section.card", { dataset: { issue: item.state } },
    h("div.split", h("h2", `${WHAT[item.entity] || label(item.entity)}: ${item.label || ""}`),
      h(`span.chip.${conflict ? "warn" : "bad"}`, conflict ? "Conflict" : "Refused")),
    h("p", { "data-test": "server-message" }, item.message || "The server did not accept this change."),
    item.errors ? h("pre.muted", JSON.stringify(item.errors, null, 1)) : null,
    differ.length ? h("p.muted", `Fields that differ: ${differ.map(label).join(", ")}.`) : null,
    h("p.hint", `Made ${fmtTime(item.created_at)}; answered ${fmtTime(item.answered_at)}.`),
    h("div.actions",
      conflict ? h("button.primary", { type: "button", onclick: () => resolve(item, "take_device", box) }, "Use mine") : null,
      conflict ? h("button", { type: "button", onclick: () => resolve(item, "keep_server", box) }, "Keep the server's") : null,
      !conflict ? h("button.primary", { type: "button", onclick: () => retry(item) }, "Try again") : null,
      h("button.danger", { type: "button", onclick: () => discard(item) }, "Discard my change")),
    box);
}

function serverConflictCard(c, reload) {
  const box = h("div", { "aria-live": "polite" });
  const act = async (resolution) => {
    try {
      await api(`/api/v1/sync/conflicts/${c.id}/resolve`, { method: "POST", body: { resolution } });
      reload();
    } catch (err) { mount(box, h("div.banner.error", plain(err))); }
  };
  return h("section.card", { dataset: { conflict: c.id } },
    h("div.split", h("h2", `${WHAT[c.entity] || label(c.entity)} ${c.record_id.slice(0, 8)}`), h("span.chip.warn", "Open conflict")),
    h("p", `Fields that differ: ${(c.fields || []).map(label).join(", ") || "—"}. Raised ${fmtTime(c.created_at)}.`),
    h("div.actions",
      h("button.primary", { type: "button", onclick: () => act("take_device") }, "Take the device's"),
      h("button", { type: "button", onclick: () => act("keep_server") }, "Keep the server's")), box);
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
    mount(main, h("h1", "Sync issues"),
      list.length ? list.map(itemCard) : h("p.card", { "data-test": "no-issues" }, "Nothing needs your decision."),
      h("section.card", h("h2", "Waiting to be sent"),
        waiting.length ? h("ul", waiting.map((i) => h("li", `${WHAT[i.entity] || label(i.entity)}: ${i.label || i.id.slice(0, 8)}`,
          i.message ? h("span.muted", ` — ${i.message}`) : null))) : h("p.muted", "Nothing.")),
      others.length ? h("div.banner.info", `${plural(others.length, "change")} of another user kept on this device; they are sent when that user signs in.`) : null,
      server.length ? h("h2.section-title", "Open conflicts from all devices") : null,
      server.map((c) => serverConflictCard(c, draw)));
  };
  await draw();
  const stopOutbox = outbox.onOutboxChange(() => draw());
  const stopSync = onSynced(draw);
  return () => { stopOutbox(); stopSync(); };
}
