// The outbox: every change made on the device, in order, until the server has answered for it.
//
// An item leaves only when the server's answer for it was read and says `applied` or `duplicate`.
// `conflict` and `rejected` items stay, with the server's message, until the user resolves them.
// Items: {kind: "mutation", entity, id, data, mutation_id, ...} | {kind: "photo", id, sha256, size, ...}
// (the photo's bytes wait in the photo_bytes store) | {kind: "call", method, path, body, ...}
//        | {kind: "call", method, path, body, ...} (an action such as "submit this inspection").
import { all, byIndex, get, put, tx } from "./db.js";
import { currentUser } from "./auth.js";
import { sha256Hex } from "./hash.js";
import { uuid, nowIso } from "./dom.js";

const listeners = new Set();
export function onOutboxChange(fn) { listeners.add(fn); return () => listeners.delete(fn); }
export function changed() { for (const fn of listeners) fn(); }

const mine = (item) => { const u = currentUser(); return u && item.user_id === u.id; };

export async function items() {
  return (await all("outbox")).filter(mine);
}

export async function itemsOtherUsers() {
  return (await all("outbox")).filter((i) => !mine(i));
}

export const getItem = (seq) => get("outbox", seq);
export async function saveItem(item) { await put("outbox", item); changed(); }

export async function removeItem(seq) {
  await tx(["outbox", "photo_bytes"], "readwrite", async (s, done) => {
    const item = await done(s.outbox.get(seq));
    if (item && item.kind === "photo") await done(s.photo_bytes.delete(item.id));
    await done(s.outbox.delete(seq));
  });
  changed();
}

export async function forRecord(entity, id) {
  return (await byIndex("outbox", "record", [entity, id])).filter(mine);
}

// Queues an upsert of `data` (the exact fields the API takes). An edit to a record whose last
// queued change has not been sent yet replaces that change's data (same mutation id); once a change
// may have reached the server it is never altered, and the edit becomes a new mutation after it.
export async function queueMutation(entity, id, data, label, op = "upsert") {
  const user = currentUser();
  const result = await tx("outbox", "readwrite", async (s, done) => {
    const queued = (await done(s.outbox.index("record").getAll([entity, id]))).filter(mine);
    const last = queued[queued.length - 1];
    if (last && last.kind === "mutation" && last.state === "pending" && !last.sent && last.op === op) {
      Object.assign(last, { data, label, updated_at: nowIso() });
      await done(s.outbox.put(last));
      return last;
    }
    const item = { kind: "mutation", user_id: user.id, entity, id, op, data, label, mutation_id: uuid(),
      state: "pending", sent: false, created_at: nowIso() };
    item.seq = await done(s.outbox.add(item));
    return item;
  });
  changed();
  return result;
}

// Queues the deletion of a record the server holds at `baseVersion`: the device forgets the record now,
// so the version it deletes is kept with the change (sync reads it from there, not from the record).
export async function queueDelete(entity, id, baseVersion, label) {
  const item = await queueMutation(entity, id, {}, label, "delete");
  await saveItem({ ...item, base_version: baseVersion });
  return item;
}

// Queues an action the API offers as its own endpoint (submit, review). `entity`/`id` tie it to the
// record, so it is sent only after that record's earlier changes were answered.
// `expect` ({path, field, values}) says how to tell, after a lost answer, that the action took place.
export async function queueCall(entity, id, method, path, body, label, expect = null) {
  const user = currentUser();
  const item = { kind: "call", user_id: user.id, entity, id, method, path, body, label, expect, state: "pending", created_at: nowIso() };
  item.seq = await tx("outbox", "readwrite", (s, done) => done(s.outbox.add(item)));
  changed();
  return item;
}

// Stores a photo's bytes (ArrayBuffer + type: Safari loses Blobs in IndexedDB) and reads them back
// once: the stored copy must hash to the digest taken at capture, or the photo is refused here.
export async function queuePhoto(bytes, meta) {
  const user = currentUser();
  const sha256 = meta.sha256 || (await sha256Hex(bytes));
  const id = meta.id || uuid();
  // A held photo belongs to a form not saved yet (a completion notice): it is not sent until the
  // form is saved (releasePhotos), and goes with the form when the form is cancelled (dropPhotos).
  const item = { ...meta, kind: "photo", user_id: user.id, entity: "photo", id, size: bytes.byteLength, sha256,
    state: meta.held ? "held" : "pending", created_at: nowIso() };
  delete item.held;
  item.seq = await tx(["outbox", "photo_bytes"], "readwrite", async (s, done) => {
    await done(s.photo_bytes.put({ id, bytes, type: meta.content_type }));
    return done(s.outbox.add(item));
  });
  const stored = await get("photo_bytes", id);
  const check = stored && stored.bytes ? await sha256Hex(stored.bytes) : null;
  if (check !== sha256) {
    await removeItem(item.seq);
    throw new Error("The photo could not be stored safely on this device (its check did not match). Take it again.");
  }
  changed();
  return item;
}

async function heldPhotos(filter) {
  return (await items()).filter((i) => i.kind === "photo" && i.state === "held" && filter(i));
}

// The form was saved: its photos may now be sent.
export async function releasePhotos(ids) {
  for (const item of await heldPhotos((i) => ids.includes(i.id))) await put("outbox", { ...item, state: "pending" });
  changed();
}

// The form was cancelled (or left unsaved): its photos and their bytes leave the device.
export async function dropPhotos(filter) {
  for (const item of await heldPhotos(filter)) await removeItem(item.seq);
}

// The bytes of a photo still on the device, or null once it has been uploaded.
export async function photoBytes(photoId) {
  const found = await get("photo_bytes", photoId);
  return found ? { bytes: found.bytes, type: found.type } : null;
}

export function summary(list) {
  const problems = list.filter((i) => i.state === "conflict" || i.state === "rejected");
  const waiting = list.filter((i) => i.state === "pending");
  return {
    pending: waiting.length,
    photos: waiting.filter((i) => i.kind === "photo").length,
    problems: problems.length,
    total: list.length,
  };
}
