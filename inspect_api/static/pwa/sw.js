// Service worker: precaches the versioned app shell and serves it offline.
//
// Update rule (no mixed versions): a new VERSION installs into its own cache and then WAITS. The
// page announces it; only when the user taps "Update" does the page ask us to skipWaiting, and then
// every open page reloads at once. Old caches are deleted on activate. API calls are never cached:
// records live in IndexedDB, owned by the app.
import { VERSION } from "/static/pwa/version.js";
import { SHELL_FILES } from "/static/pwa/shell.js";

const PREFIX = "inspect-shell-";
const CACHE = PREFIX + VERSION;

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    // cache: "reload" skips the HTTP cache so a new version never precaches an old file.
    await cache.addAll(SHELL_FILES.map((url) => new Request(url, { cache: "reload" })));
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
  if (type === "skip-waiting") self.skipWaiting();
  if (type === "version" && event.source) event.source.postMessage({ type: "version", version: VERSION });
});

async function fromShell(request) {
  const cache = await caches.open(CACHE);
  const hit = await cache.match(request, { ignoreSearch: true });
  if (hit) return hit;
  return fetch(request);
}

self.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  if (url.origin !== self.location.origin || event.request.method !== "GET") return;
  if (url.pathname.startsWith("/api/")) return;
  if (event.request.mode === "navigate") {
    event.respondWith(fromShell(new Request("/")));
    return;
  }
  event.respondWith(fromShell(event.request));
});
