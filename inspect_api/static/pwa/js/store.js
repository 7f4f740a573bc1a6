// The device's copy of the records: what the last pull brought, plus the user's unsent edits
// (marked _pending, never overwritten by a pull while their outbox item waits).
import { all, byIndex, del, get, putMany, tx } from "./db.js";

const STORE_OF = { permit: "permits", entry_authorization: "entry_authorizations", assignment: "sites" };
export const storeOf = (entity) => STORE_OF[entity] || "records";

function keyOf(entity, id) {
  return storeOf(entity) === "records" ? [entity, id] : id;
}

export async function getRecord(entity, id) {
  if (entity === "assignment") return null;
  return (await get(storeOf(entity), keyOf(entity, id))) || null;
}

// Writes the device's copy. `_server_version` (the version the server last confirmed, null for a
// record it has never seen) is carried over from the stored row unless the caller sets it.
export async function saveLocal(entity, record, { pending = true } = {}) {
  const name = storeOf(entity);
  return tx(name, "readwrite", async (s, done) => {
    const existing = await done(s[name].get(keyOf(entity, record.id)));
    const serverVersion = "_server_version" in record ? record._server_version
      : existing ? existing._server_version ?? null : null;
    const row = { ...record, entity, _pending: pending, _server_version: serverVersion };
    await done(s[name].put(row));
    return row;
  });
}

export async function saveServer(entity, record) {
  return saveLocal(entity, record, { pending: false });
}

export const allPermits = () => all("permits");
export const getPermit = (id) => get("permits", id);
export const assignedSites = () => all("sites");
export const allOf = (entity) => byIndex("records", "entity", entity);
export const recordsFor = (entity, permitId) =>
  entity === "entry_authorization" ? byIndex("entry_authorizations", "permit_id", permitId)
    : byIndex("records", "entity_permit", [entity, permitId]);

export async function templates() {
  return all("templates");
}

// The template an inspection answers now: the newest published version of the default checklist.
export async function currentTemplate(key) {
  const list = (await templates()).filter((t) => !key || t.key === key);
  return list.sort((a, b) => b.version - a.version)[0] || null;
}

export async function saveTemplates(list) {
  await putMany("templates", list);
}

export async function replaceSites(permitIds) {
  await tx("sites", "readwrite", async (s, done) => {
    await done(s.sites.clear());
    await Promise.all(permitIds.map((id) => done(s.sites.put({ permit_id: id }))));
  });
}

function assignmentRow(change, userId) {
  const data = change.data || {};
  if (change.op === "delete" || data.removed_at || (userId && data.inspector_id && data.inspector_id !== userId)) return null;
  return { permit_id: data.permit_id, assignment_id: change.id };
}

// Applies one page of pulled changes in one transaction. `pendingKeys` holds "entity:id" of records
// with unsent edits: those keep the device's version until the push answers for them.
export async function applyChanges(changes, pendingKeys, userId) {
  const names = ["permits", "sites", "entry_authorizations", "records"];
  await tx(names, "readwrite", async (s, done) => {
    for (const change of changes) {
      if (pendingKeys.has(`${change.entity}:${change.id}`)) continue;
      const store = s[storeOf(change.entity)];
      if (change.entity === "assignment") {
        const row = assignmentRow(change, userId);
        if (row && row.permit_id) await done(store.put(row));
        else {
          const rows = await done(store.getAll());
          for (const r of rows) if (r.assignment_id === change.id) await done(store.delete(r.permit_id));
        }
        continue;
      }
      if (change.op === "delete") {
        await done(store.delete(keyOf(change.entity, change.id)));
        if (change.entity === "permit") await dropPermitRecords(s, done, change.id);
        continue;
      }
      const version = change.version ?? (change.data || {}).version ?? null;
      const row = { ...(change.data || {}), id: change.id, version, entity: change.entity, _pending: false, _server_version: version };
      await done(store.put(row));
    }
  });
}

async function dropPermitRecords(s, done, permitId) {
  await done(s.sites.delete(permitId));
  for (const ea of await done(s.entry_authorizations.index("permit_id").getAll(permitId))) {
    await done(s.entry_authorizations.delete(ea.id));
  }
  const rows = await done(s.records.getAll());
  for (const r of rows) if (r.permit_id === permitId) await done(s.records.delete([r.entity, r.id]));
}

export async function forget(entity, id) {
  await del(storeOf(entity), keyOf(entity, id));
}
