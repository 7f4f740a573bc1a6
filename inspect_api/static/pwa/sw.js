// Service worker: precaches the versioned app shell and serves it offline.
//
// Update rule (no mixed versions): a new VERSION installs into its own cache and then WAITS. The
// page announces it; only when the user taps "Update" does the page ask us to skipWaiting, and then
// every open page reloads at once. Old caches are deleted on activate. API calls are never cached:
// records live in IndexedDB, owned by the app. The base map's tiles kept for offline days have their
// own cache, answered first for the tile server's requests (js/sw_tiles.js).
//
// The server writes the current version into the import path below (it becomes the version's own
// folder), so a new version is a new worker script that imports only its own files. The version
// comes from that path too, not from version.js: an installing worker revalidates its imports with
// the server, and the page has loaded version.js already.
import { LATER_FILES, SHELL_FILES, SHELL_VERSION as VERSION } from "/static/pwa/shell.js";
import { fromTiles, handles, tilesChanged } from "/static/pwa/js/sw_tiles.js";

const PREFIX = "inspect-shell-";
const CACHE = PREFIX + VERSION;

// Each shell file crosses the network once: the page has just loaded most of them, and a versioned
// path never changes, so the copy in the HTTP cache is the one to keep (force-cache takes it without
// asking the server). A fixed address ("/", the manifest) is kept from there only when the server
// said it is this version's; otherwise it is fetched again, so an old file never enters a new cache.
// A stored failure is asked again too, or a retried install would meet it every time.
async function shellResponse(url) {
  let response = await fetch(url, { cache: "force-cache" });
  if (!response.ok || response.headers.get("X-App-Version") !== VERSION) response = await fetch(url, { cache: "reload" });
  if (!response.ok) throw new Error(`precache: ${url} answered ${response.status}`);
  return response;
}

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    // Every response first, then the cache: one failure leaves the install to be tried again.
    const responses = await Promise.all(SHELL_FILES.map(shellResponse));
    const cache = await caches.open(CACHE);
    await Promise.all(responses.map((response, i) => cache.put(SHELL_FILES[i], response)));
  })());
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith(PREFIX) && name !== CACHE) await caches.delete(name);
    }
    await self.clients.claim();
  })());
});

self.addEventListener("message", (event) => {
  const type = event.data && event.data.type;
  if (type === "map-tiles") tilesChanged();
  if (type === "refresh-page") event.waitUntil(refreshPage().catch(() => {}));
  if (type === "precache-later") event.waitUntil(precacheLater().catch(() => {}));
  if (type === "skip-waiting") self.skipWaiting();
  if (type === "version" && event.source) event.source.postMessage({ type: "version", version: VERSION });
});

// The page's Content-Security-Policy names the tile server the office configured (web/routes.py).
// When the page learns it changed (js/ui/tiles.js), the kept "/" is fetched again so the app opens
// next time with the new policy; only this version's page is kept.
async function refreshPage() {
  const response = await fetch("/", { cache: "reload" });
  if (response.ok && response.headers.get("X-App-Version") === VERSION) await (await caches.open(CACHE)).put("/", response);
}

// The rest of the version's files (shell.js LATER), asked for by a signed-in page after a sync: each
// one not kept yet is fetched once into this version's cache; a failure is tried at the next sync.
async function precacheLater() {
  const cache = await caches.open(CACHE);
  await Promise.all(LATER_FILES.map(async (url) => {
    if (!(await cache.match(url))) await cache.put(url, await shellResponse(url));
  }));
}

async function fromShell(request) {
  const cache = await caches.open(CACHE);
  const hit = await cache.match(request, { ignoreSearch: true });
  if (hit) return hit;
  return fetch(request);
}

self.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== "GET") return;
  if (url.origin !== self.location.origin) {
    // The base map's tiles kept for offline days (js/sw_tiles.js); nothing else of another origin.
    if (handles(url)) event.respondWith(fromTiles(event.request));
    return;
  }
  if (url.pathname.startsWith("/api/")) return;
  if (event.request.mode === "navigate") {
    event.respondWith(fromShell(new Request("/")));
    return;
  }
  event.respondWith(fromShell(event.request));
});
