// The sync engine: push the outbox in order, upload photos, then pull what changed since the cursor.
//
// Runs from the page (iOS Safari has no Background Sync): on load, on `online`, when the app
// becomes visible, on a timer and from "Sync now". One run at a time; every step is safe to repeat
// (mutation ids and record ids make resends `duplicate`, tus resumes at the server's offset).
import { api, raw, listAll, plain, ApiError } from "./api.js";
import { currentUser, deviceId, clearUserData } from "./auth.js";
import { meta } from "./db.js";
import { VERSION } from "../version.js";
import * as outbox from "./outbox.js";
import { nextRound, recordKey } from "./outbox_order.js";
import * as store from "./store.js";
import { uploadPhoto } from "./upload.js";
import { busyRetry, pullProgress } from "./sync_progress.js";

const state = { running: false, progress: "", error: "", unreachable: false, lastSync: null, received: 0, firstSync: false, counts: { pending: 0, photos: 0, problems: 0 } };
const listeners = new Set();
let running = null;

// Pages of a pull as they land. A first sync of a county is tens of thousands of records, a minute
// or more: screens that list the device's copy (Sites, a site not on the device yet) fill in from
// each page instead of waiting for the run to end, so the app is usable before the first sync ends.
// At most one call per PULLED_EVERY_MS, so a redraw never runs for every page; onSynced still
// fires at the end. Each call gets the entities that landed since the previous one, so a screen can
// skip pages that hold nothing it shows.
const PULLED_EVERY_MS = 1500;
const pulled = new Set();
let lastPulled = 0;
let landed = new Set();
export function onPulled(fn) { pulled.add(fn); return () => pulled.delete(fn); }
function pageLanded(changes) {
  for (const c of changes) landed.add(c.entity);
  const now = Date.now();
  if (now - lastPulled < PULLED_EVERY_MS) return;
  lastPulled = now;
  const entities = landed;
  landed = new Set();
  for (const fn of pulled) fn(entities);
}

export function onSyncState(fn) { listeners.add(fn); fn(state); return () => listeners.delete(fn); }

// Runs `fn` after every finished sync run (screens redraw with what it brought); returns a remover.
const finished = new Set();
export function onSynced(fn) { finished.add(fn); return () => finished.delete(fn); }
function emit(patch) { Object.assign(state, patch); for (const fn of listeners) fn(state); }
export const syncState = () => state;

export async function refreshCounts() {
  const list = await outbox.items();
  emit({ counts: outbox.summary(list), lastSync: (await meta.get("last_sync")) || null });
  return list;
}
outbox.onOutboxChange(() => { refreshCounts(); });

export function syncNow(reason = "manual") {
  if (!running) running = run(reason).finally(() => { running = null; });
  return running;
}

async function run(reason) {
  if (!currentUser()) return;
  if (!navigator.onLine) {
    emit({ error: "", progress: "" });
    return;
  }
  emit({ running: true, error: "", progress: reason === "manual" ? "Starting…" : "" });
  try {
    await pushAll();
    await uploadPhotos();
    await pushAll();  // what waited for a photo just uploaded (its markup: outbox_order.js)
    await pull();
    await refreshReference();
    const now = new Date().toISOString();
    await meta.set("last_sync", now);
    await refreshCounts();
    emit({ error: "", unreachable: false });
  } catch (err) {
    // The device may be online while the office server is not (down, or a proxy answering 502-504):
    // the bar then says so rather than "Online".
    emit({ error: plain(err), unreachable: Boolean(err.offline || [502, 503, 504].includes(err.status)) });
  } finally {
    emit({ running: false, progress: "", firstSync: false });
    await refreshCounts();
    for (const fn of finished) fn();
  }
}

async function pushAll() {
  for (let round = 0; round < 50; round += 1) {
    const { batch, call } = nextRound(await outbox.items());
    if (batch.length) await pushBatch(batch);
    else if (call) await sendCall(call);
    else return;
  }
}

async function baseVersion(item) {
  if (item.base_version !== undefined) return item.base_version;  // a deletion (outbox.queueDelete)
  const record = await store.getRecord(item.entity, item.id);
  return record && record._server_version != null ? record._server_version : null;
}

// An edit (base_version set) carries only what the entity's PATCH takes: not the fields that are
// fixed at creation (a markup's photo among them).
const CREATE_ONLY = ["id", "permit_id", "device_created_at", "supersedes_id", "photo_id"];
function dataFor(item, base) {
  if (base === null) return item.data;
  return Object.fromEntries(Object.entries(item.data).filter(([k]) => !CREATE_ONLY.includes(k)));
}

// The mutation a queued change is sent as, and the body of POST /sync/push (tests/js/payloads.js
// checks both against the published document).
export const mutationOf = (item, base) => ({ mutation_id: item.mutation_id, entity: item.entity, id: item.id,
  op: item.op, base_version: base, data: dataFor(item, base) });
export const pushBody = (device, pendingCount, mutations) => ({ device_id: device, app_version: VERSION,
  pending_count: pendingCount, mutations });

async function pushBatch(batch) {
  const mutations = [];
  for (const item of batch) {
    const base = await baseVersion(item);
    mutations.push(mutationOf(item, base));
    // Marked before sending: an answer lost on the way must never let a later edit alter this mutation.
    if (!item.sent) await outbox.saveItem({ ...item, sent: true });
  }
  emit({ progress: `Sending ${mutations.length} change${mutations.length === 1 ? "" : "s"}…` });
  const pending = await outbox.items();
  const body = await sendPush(pushBody(await deviceId(), pending.length, mutations));
  const results = new Map((body.results || []).map((r) => [r.mutation_id, r]));
  for (const item of batch) {
    const result = results.get(item.mutation_id);
    if (result) await applyResult(await outbox.getItem(item.seq), result);
  }
}

// The batch as POST /sync/push; a server busy with other devices' batches asks for it again later.
async function sendPush(body) {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await api("/api/v1/sync/push", { method: "POST", body });
    } catch (err) {
      const busy = busyRetry(err, attempt);
      if (!busy) throw err;
      emit({ progress: busy.progress });
      await new Promise((resolve) => { setTimeout(resolve, busy.ms); });
    }
  }
}

// The outcome of a mutation: a resend of one the server answered before comes back `duplicate`
// carrying that first outcome, which decides.
function outcomeOf(result) {
  const first = result.outcome || result.original_status;
  if (result.status === "duplicate" && (first === "conflict" || first === "rejected")) return first;
  return result.status;
}

async function applyResult(item, result) {
  if (!item) return;
  const outcome = outcomeOf(result);
  if ((outcome === "applied" || outcome === "duplicate") && item.op === "delete") {
    await outbox.removeItem(item.seq);
    await store.forget(item.entity, item.id);  // deleted: the device holds no copy (as a pulled tombstone does)
  } else if (outcome === "applied" || outcome === "duplicate") {
    await outbox.removeItem(item.seq);
    await settleRecord(item.entity, item.id, result.server_record || result.record, result.version);
  } else if (outcome === "conflict" || outcome === "rejected") {
    await outbox.saveItem({ ...item, state: outcome, error: result.error || outcome, message: result.message || defaultMessage(outcome), errors: result.errors || null,
      server_record: result.server_record || null, conflict_id: result.conflict_id || null, answered_at: new Date().toISOString(),
      // Who and what (conflict API): the differing fields side by side, the author and device of the server's side.
      differences: result.differences || null, server_author: result.raised_by || null, server_device: result.device || null });
  }
}

function defaultMessage(outcome) {
  return outcome === "conflict" ? "Someone else changed this record since this device last saw it." : "The server refused this change.";
}

// After the server accepted a change: remember the version it made, and take the server's record
// unless later local edits of it still wait in the outbox.
export async function settleRecord(entity, id, serverRecord, version) {
  const later = await outbox.forRecord(entity, id);
  const local = await store.getRecord(entity, id);
  if (serverRecord && !later.length) {
    await store.saveServer(entity, { ...serverRecord, _server_version: serverRecord.version });
  } else if (local) {
    const v = serverRecord ? serverRecord.version : version ?? local._server_version;
    await store.saveLocal(entity, { ...local, version: v ?? local.version, _server_version: v ?? null }, { pending: later.length > 0 });
  }
}

async function sendCall(item) {
  emit({ progress: item.label ? `${item.label}…` : "Sending…" });
  try {
    const record = await api(item.path, { method: item.method, body: item.body });
    await outbox.removeItem(item.seq);
    if (record && record.id && item.entity) await settleRecord(item.entity, item.id, record, record.version);
  } catch (err) {
    if (err.offline || err.status >= 500 || err.status === 401) throw err;
    if (await alreadyDone(item, err)) return;
    await outbox.saveItem({ ...item, state: "rejected", error: err.key, message: err.message, answered_at: new Date().toISOString() });
  }
}

// An action whose first answer was lost comes back "invalid transition": if the record already is
// where the action would take it, the action happened.
async function alreadyDone(item, err) {
  if (err.status !== 409 || !item.expect || !item.entity) return false;
  const record = await api(item.expect.path).catch(() => null);
  if (!record || record[item.expect.field] === undefined || !item.expect.values.includes(record[item.expect.field])) return false;
  await outbox.removeItem(item.seq);
  await settleRecord(item.entity, item.id, record, record.version);
  return true;
}

async function uploadPhotos() {
  const photos = (await outbox.items()).filter((i) => i.kind === "photo" && i.state === "pending");
  let n = 0;
  for (const summary of photos) {
    n += 1;
    const item = await outbox.getItem(summary.seq);
    const stored = item ? await outbox.photoBytes(item.id) : null;
    if (!item || !stored) continue;
    item.bytes = stored.bytes;
    const label = `Uploading photo ${n} of ${photos.length}`;
    emit({ progress: label });
    try {
      const photo = await uploadPhoto(item, {
        save: ({ bytes, ...it }) => outbox.saveItem(it),
        onProgress: (f) => emit({ progress: `${label} (${Math.round(f * 100)}%)` }),
      });
      if (photo.sha256 && photo.sha256 !== item.sha256) {
        throw new ApiError("The server holds different bytes for this photo.", { status: 409, key: "conflict" });
      }
      await outbox.removeItem(item.seq);
      await store.saveServer("photo", { ...photo, _server_version: photo.version ?? null });
    } catch (err) {
      if (err.offline || err.status >= 500 || err.status === 401) throw err;
      // The record the photo belongs to has not reached the server yet: try again next time.
      if (err.status === 404 || err.key === "entry_not_authorized") {
        const { bytes, ...rest } = item;
        await outbox.saveItem({ ...rest, message: "Waiting for its record to be sent first." });
        continue;
      }
      const { bytes, ...rest } = item;
      await outbox.saveItem({ ...rest, state: "rejected", error: err.key, message: err.message, answered_at: new Date().toISOString() });
    }
  }
}

async function pendingKeys() {
  return new Set((await outbox.items()).filter((i) => i.kind !== "photo").map(recordKey));
}

async function pull() {
  const user = currentUser();
  let cursor = await meta.get("cursor");
  // A device that never finished a sync run is on its first, even when an interrupted run left a cursor.
  let first = !cursor || !(await meta.get("last_sync"));
  let received = 0;
  emit({ received: 0, firstSync: first });
  for (let page = 0; page < 1000; page += 1) {
    emit({ progress: pullProgress(first, received, true) });
    const query = new URLSearchParams({ limit: "500", ...(cursor ? { cursor } : {}) });
    const response = await raw(`/api/v1/sync/pull?${query}`, { allow: [410] });
    if (response.status === 410) {  // the server no longer keeps changes that old: start from scratch
      await clearUserData();
      cursor = null;
      first = true;
      received = 0;
      continue;
    }
    const body = await response.json();
    const changes = body.changes || [];
    await store.applyChanges(changes, await pendingKeys(), user.id);
    cursor = body.cursor;
    await meta.set("cursor", cursor);
    await meta.set("last_pull", new Date().toISOString());
    received += changes.length;
    emit({ received, progress: pullProgress(first, received, body.has_more) });
    if (!body.has_more) return;
    pageLanded(changes);
  }
}

async function refreshReference() {
  const user = currentUser();
  if (user.role === "inspector" || user.role === "supervisor") {
    await store.saveTemplates(await api("/api/v1/checklist-templates?all=true"));
  }
  const levels = await api("/api/v1/action-levels");
  await meta.set("action_levels", levels.levels);
  if (user.role === "inspector" || user.role === "supervisor") {
    // The Town's program settings (routine interval, storm threshold and window): the day list needs them offline.
    await meta.set("program_settings", await api("/api/v1/inspections/program-settings"));
  }
  if (user.role === "inspector") {
    const mine = await listAll("/api/v1/permits?assigned_to=me");
    await store.replaceSites(mine.map((p) => p.id));
    await store.applyChanges(mine.map((p) => ({ entity: "permit", id: p.id, op: "upsert", version: p.version, data: p })), await pendingKeys());
  }
}
