// The base map kept for offline days: the tiles covering each assigned site's area at the office's
// zoom levels, in one Cache Storage cache the service worker answers tile requests from (cache
// first). The download never keeps more bytes than the office's budget: it stops before the tile
// that would go over. Signing out deletes the cache with the rest of the user's data (auth.js).
import { meta } from "../db.js";
import { assignedSites, getPermit } from "../store.js";
import { estimateBytes, siteBox, tilesFor, tileUrl } from "./tilemath.js";

export const TILE_CACHE = "map-tiles";
// The tile template, kept in the cache itself: the service worker reads it to know which requests
// are tiles (js/sw_tiles.js), and it goes with the cache.
export const TEMPLATE_KEY = "/map-tiles/template";
const KEPT_KEY = "offline_tiles";
// What a tile weighs before this device has kept any (street maps ~10-20 kB, aerial photos 20-40 kB);
// afterwards the estimate uses the average of the tiles kept.
export const AVERAGE_TILE_BYTES = 25 * 1024;
const PARALLEL = 4;

const siteName = (permit) => (permit.site && permit.site.address) || permit.number || permit.id;

// The assigned sites on this device with coordinates, each with its area and name.
async function assignedAreas() {
  const areas = [];
  for (const { permit_id: id } of await assignedSites()) {
    const permit = await getPermit(id);
    const box = permit && permit.site ? siteBox(permit.site) : null;
    if (box) areas.push({ permit_id: id, name: siteName(permit), box });
  }
  return areas.sort((a, b) => a.name.localeCompare(b.name));
}

// What is kept now: { tiles, bytes, sites: [{permit_id, name}], url, at } or null.
export async function kept() {
  return (await meta.get(KEPT_KEY).catch(() => null)) || null;
}

// The download to offer: the tiles, the estimate and the sites, against the budget.
export async function plan(settings) {
  const areas = await assignedAreas();
  const zooms = (settings.offline && settings.offline.zooms) || [];
  const tiles = tilesFor(areas.map((a) => a.box), zooms);
  const before = await kept();
  const average = before && before.tiles ? before.bytes / before.tiles : AVERAGE_TILE_BYTES;
  return { sites: areas.map(({ permit_id: id, name }) => ({ permit_id: id, name })), zooms, tiles,
    average, estimate: estimateBytes(tiles.length, average), budget: settings.offline.budget_bytes || 0 };
}

async function tellWorker() {
  const registration = navigator.serviceWorker && await navigator.serviceWorker.getRegistration().catch(() => null);
  const worker = registration && registration.active;
  if (worker) worker.postMessage({ type: "map-tiles" });
}

const isTemplateKey = (request) => new URL(request.url).pathname === TEMPLATE_KEY;

// Keeps the planned tiles, reusing those kept before. onProgress({done, total, bytes}) after each.
// Answers { tiles, bytes, total, failed, stopped: null | "budget" | "unreachable" | "cancelled" }.
export async function download(settings, planned, { onProgress = () => {}, signal } = {}) {
  const template = settings.tiles.url;
  const cache = await caches.open(TILE_CACHE);
  await cache.put(TEMPLATE_KEY, new Response(template));
  const urls = [...new Set(planned.tiles.map((t) => tileUrl(template, t)))];
  const budget = planned.budget;
  const keptUrls = new Set();
  let bytes = 0, done = 0, failed = 0, next = 0, stopped = null;

  // Reads or fetches one tile; its bytes count before anything is written and with no await between
  // the check and the sum, so the parallel downloads together never pass the budget.
  const keepOne = async (url) => {
    const hit = await cache.match(url, { ignoreVary: true });
    let blob = hit ? await hit.blob() : null, type = null;
    if (!hit) {
      const response = await fetch(url, { mode: "cors", credentials: "omit", signal });
      if (!response.ok) { failed += 1; return; }
      type = response.headers.get("Content-Type");
      blob = await response.blob();
    }
    if (bytes + blob.size > budget) { stopped = stopped || "budget"; return; }
    bytes += blob.size;
    keptUrls.add(url);
    if (!hit) await cache.put(url, new Response(blob, { headers: { "Content-Type": type || blob.type || "image/png" } }));
  };
  const worker = async () => {
    while (!stopped && next < urls.length) {
      try {
        await keepOne(urls[next++]);
      } catch (err) {
        stopped = stopped || (err && err.name === "AbortError" ? "cancelled" : "unreachable");
        return;
      }
      done += 1;
      onProgress({ done, total: urls.length, bytes });
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, urls.length) }, worker));

  // What the loop did not count goes: tiles no assigned site needs now, and any beyond the budget. A
  // wanted tile kept before and not reached (the download cut short) stays while it fits.
  const wanted = new Set(urls);
  for (const request of await cache.keys()) {
    if (isTemplateKey(request) || keptUrls.has(request.url)) continue;
    const hit = wanted.has(request.url) && stopped !== "budget" ? await cache.match(request) : null;
    const size = hit ? (await hit.blob()).size : Infinity;
    if (bytes + size <= budget) { bytes += size; keptUrls.add(request.url); } else await cache.delete(request);
  }
  await meta.set(KEPT_KEY, { tiles: keptUrls.size, bytes, sites: planned.sites, url: template, zooms: planned.zooms,
    at: new Date().toISOString(), complete: keptUrls.size === urls.length });
  await tellWorker();
  return { tiles: keptUrls.size, bytes, total: urls.length, failed, stopped };
}

// Deletes every kept tile and the record of them.
export async function remove() {
  if (globalThis.caches) await caches.delete(TILE_CACHE);
  await meta.remove(KEPT_KEY);
  await tellWorker();
}

// Sites assigned now that the kept tiles do not cover (assigned after the download).
export async function uncovered(keptNow) {
  if (!keptNow) return [];
  const covered = new Set(keptNow.sites.map((s) => s.permit_id));
  return (await assignedAreas()).filter((a) => !covered.has(a.permit_id));
}
