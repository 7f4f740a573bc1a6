// The signed-in session: tokens and user, kept in IndexedDB (meta "session") so the app opens
// offline after a reload; logout deletes them. The device id stays: it names this tablet to the server.
import { meta, clear } from "./db.js";
import { uuid } from "./dom.js";

let session = null;
const listeners = new Set();

// A mark in localStorage that someone is signed in here, read by theme_boot.js before the first paint
// (IndexedDB, where the session is, cannot be read before it). It says nothing but yes.
const SIGNED_IN_MARK = "inspect-field.signed-in";
function markSignedIn(yes) {
  try {
    if (yes) localStorage.setItem(SIGNED_IN_MARK, "1");
    else localStorage.removeItem(SIGNED_IN_MARK);
  } catch {
    // Storage refused: the page's own sign-in form shows for a moment, then the app's screen.
  }
}

export function onSessionChange(fn) { listeners.add(fn); }
function emit() { for (const fn of listeners) fn(session); }

export async function loadSession() {
  session = (await meta.get("session")) || null;
  markSignedIn(Boolean(session));
  return session;
}

export const currentSession = () => session;
export const currentUser = () => (session ? session.user : null);

export async function deviceId() {
  let id = await meta.get("device_id");
  if (!id) {
    id = uuid();
    await meta.set("device_id", id);
  }
  return id;
}

function deviceName() {
  const ua = navigator.userAgent;
  const kind = /iPad|Tablet|Android(?!.*Mobile)/.test(ua) ? "tablet" : /Mobile|iPhone/.test(ua) ? "phone" : "computer";
  return `Field app on a ${kind}`;
}

async function errorFrom(response) {
  try {
    const body = await response.json();
    return Object.assign(new Error(body.message || response.statusText), { status: response.status, key: body.error });
  } catch {
    return Object.assign(new Error(response.statusText), { status: response.status });
  }
}

export async function login(email, password) {
  const response = await fetch("/api/v1/auth/login", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ email, password, device_id: await deviceId(), device_name: deviceName() }),
  });
  if (!response.ok) throw await errorFrom(response);
  const body = await response.json();
  // A tablet whose id belongs to another account gets an id of its own for this account.
  if (body.device_id) await meta.set("device_id", body.device_id);
  const previous = await meta.get("last_user_id");
  session = { access_token: body.access_token, refresh_token: body.refresh_token, user: body.user };
  await meta.set("session", session);
  if (previous && previous !== body.user.id) await clearUserData();  // another person's cached records go
  await meta.set("last_user_id", body.user.id);
  markSignedIn(true);
  emit();
  return session;
}

// A new access token from the refresh token; null when the session is over (sign in again).
// Single flight: several calls failing at once share one refresh.
let refreshing = null;
export function refresh() {
  if (!refreshing) refreshing = doRefresh().finally(() => { refreshing = null; });
  return refreshing;
}

async function doRefresh() {
  if (!session || !session.refresh_token) return null;
  const response = await fetch("/api/v1/auth/refresh", {
    method: "POST", headers: { Authorization: `Bearer ${session.refresh_token}` },
  });
  if (response.status === 401) return null;
  if (!response.ok) throw await errorFrom(response);
  session = { ...session, access_token: (await response.json()).access_token };
  await meta.set("session", session);
  return session.access_token;
}

export async function clearUserData() {
  for (const store of ["permits", "sites", "templates", "entry_authorizations", "records"]) await clear(store);
  for (const key of ["cursor", "last_sync", "last_pull", "offline_tiles"]) await meta.remove(key);
}

// Cache Storage holds the versioned app shell and nothing else the app puts there on purpose; any
// other cache (private media a browser or an older version kept) is dropped on sign-out.
const SHELL_CACHE_PREFIX = "inspect-shell-";
export async function clearPrivateCaches() {
  if (!globalThis.caches) return;
  for (const name of await caches.keys()) {
    if (!name.startsWith(SHELL_CACHE_PREFIX)) await caches.delete(name);
  }
}

// Ends the session here and on the server (when reachable). The outbox is the caller's decision.
export async function logout() {
  const ending = session;
  session = null;
  markSignedIn(false);
  await meta.remove("session");
  await clearUserData();
  await clearPrivateCaches();
  emit();
  if (ending) {
    try {
      await fetch("/api/v1/auth/logout", { method: "POST", headers: { Authorization: `Bearer ${ending.refresh_token}` } });
    } catch {
      // Offline: the refresh token still expires on its own; the device no longer holds it.
    }
  }
}

// Sign-in ended by the server (revoked or expired refresh token): keep data and outbox, ask to sign in.
export async function expire() {
  if (!session) return;
  session = { ...session, access_token: null, refresh_token: null, expired: true };
  await meta.set("session", session);
  emit();
}
