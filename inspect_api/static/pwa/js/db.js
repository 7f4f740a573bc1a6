// A small promise wrapper over IndexedDB: one database, named stores, short transactions.
//
// Stores:
//   meta                 key -> value (auth session, device id, sync cursor, last sync)
//   permits              permit records (all the caller may see)
//   sites                the inspector's assigned sites (one row per permit id), listed first
//   templates            checklist templates (key + version)
//   entry_authorizations site-entry authorizations (R-E), by permit
//   records              every other record: [entity, id] -> record (inspections, findings, samples, ...)
//   outbox               unsent mutations and photos, in the order they were made
//   photo_bytes          each unsent photo's bytes (ArrayBuffer + type), kept apart from the outbox so
//                        listing the outbox never reads megabytes of images
const NAME = "inspect-field";
const SCHEMA_VERSION = 1;

let opening = null;

function upgrade(db) {
  db.createObjectStore("meta");
  db.createObjectStore("permits", { keyPath: "id" });
  db.createObjectStore("sites", { keyPath: "permit_id" });
  db.createObjectStore("templates", { keyPath: ["key", "version"] });
  const ea = db.createObjectStore("entry_authorizations", { keyPath: "id" });
  ea.createIndex("permit_id", "permit_id");
  const records = db.createObjectStore("records", { keyPath: ["entity", "id"] });
  records.createIndex("entity", "entity");
  records.createIndex("entity_permit", ["entity", "permit_id"]);
  const outbox = db.createObjectStore("outbox", { keyPath: "seq", autoIncrement: true });
  outbox.createIndex("record", ["entity", "id"]);
  db.createObjectStore("photo_bytes", { keyPath: "id" });
}

export function openDb() {
  if (!opening) {
    opening = new Promise((resolve, reject) => {
      const request = indexedDB.open(NAME, SCHEMA_VERSION);
      request.onupgradeneeded = () => upgrade(request.result);
      request.onsuccess = () => {
        const db = request.result;
        // Another tab running a newer version wants to upgrade: let it, and reload into it.
        db.onversionchange = () => { db.close(); location.reload(); };
        resolve(db);
      };
      request.onerror = () => { opening = null; reject(request.error); };
      request.onblocked = () => reject(new Error("The app is open in another tab that blocks an upgrade; close it."));
    });
  }
  return opening;
}

function done(request) {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

// Runs fn(stores) inside one transaction over `names`; resolves with fn's result once committed, so
// a caller that awaits it knows the data is on disk.
export async function tx(names, mode, fn) {
  const db = await openDb();
  const list = Array.isArray(names) ? names : [names];
  return new Promise((resolve, reject) => {
    const t = db.transaction(list, mode, { durability: "strict" });
    const stores = Object.fromEntries(list.map((n) => [n, t.objectStore(n)]));
    let result;
    t.oncomplete = () => resolve(result);
    t.onerror = () => reject(t.error);
    t.onabort = () => reject(t.error || new Error("transaction aborted"));
    Promise.resolve(fn(stores, done)).then((value) => { result = value; }, (err) => { t.abort(); reject(err); });
  });
}

export const get = (store, key) => tx(store, "readonly", (s) => done(s[store].get(key)));
export const put = (store, value, key) =>
  tx(store, "readwrite", (s) => done(key === undefined ? s[store].put(value) : s[store].put(value, key)));
export const del = (store, key) => tx(store, "readwrite", (s) => done(s[store].delete(key)));
export const clear = (store) => tx(store, "readwrite", (s) => done(s[store].clear()));
export const all = (store, query) => tx(store, "readonly", (s) => done(s[store].getAll(query)));
export const count = (store) => tx(store, "readonly", (s) => done(s[store].count()));

export function byIndex(store, index, query) {
  return tx(store, "readonly", (s) => done(s[store].index(index).getAll(query)));
}

export function putMany(store, values) {
  return tx(store, "readwrite", (s) => Promise.all(values.map((v) => done(s[store].put(v)))));
}

export const meta = {
  get: (key) => get("meta", key),
  set: (key, value) => put("meta", value, key),
  remove: (key) => del("meta", key),
};
