// The service worker's part of the offline base map (ui/offline_tiles.js keeps the tiles): requests
// to the tile server are answered from the kept tiles first, then the network. Offline, a finer tile
// than any kept (a site's map drawn closer than the kept zoom levels) is cut from the nearest kept
// coarser tile and enlarged, so the map never turns blank when zoomed in.
//
// The page writes the tile template into the cache under TEMPLATE_KEY and posts {type: "map-tiles"}
// when it changed. Reading it takes a moment after the worker starts: until then every request to
// another origin waits for it; afterwards only the tile server's are touched.
import { ancestorOf, tileOfUrl, tileUrl } from "./ui/tilemath.js";

export const TILE_CACHE = "map-tiles";
const TEMPLATE_KEY = "/map-tiles/template";
const COARSER = 4;  // levels looked up for a stand-in: a kept 17 serves down to 21

let template;  // undefined while reading; null when no tiles are kept
let origin = null;
let reading = readTemplate();

const originOf = (t) => new URL(t.replace(/[{}]/g, "")).origin;

async function readTemplate() {
  template = undefined;
  let kept;
  try {
    // cacheName: a removed cache is not made again by looking in it.
    const hit = await caches.match(TEMPLATE_KEY, { cacheName: TILE_CACHE });
    kept = hit ? (await hit.text()).trim() || null : null;
    origin = kept ? originOf(kept) : null;
  } catch {
    kept = null;
    origin = null;
  }
  template = kept;
  return kept;
}

export function tilesChanged() {
  reading = readTemplate();
}

// Whether the worker answers this request (decided at once, as respondWith must be).
export const handles = (url) => template === undefined || (template !== null && url.origin === origin);

async function enlarged(tile) {
  if (typeof OffscreenCanvas === "undefined" || typeof createImageBitmap === "undefined") return null;
  for (let up = 1; up <= COARSER && tile.z - up >= 0; up++) {
    const a = ancestorOf(tile, up);
    const hit = await caches.match(tileUrl(template, a), { cacheName: TILE_CACHE, ignoreVary: true });
    if (!hit) continue;
    const bitmap = await createImageBitmap(await hit.blob());
    const part = bitmap.width / a.parts;
    const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
    canvas.getContext("2d").drawImage(bitmap, a.col * part, a.row * part, part, part, 0, 0, bitmap.width, bitmap.height);
    return new Response(await canvas.convertToBlob({ type: "image/png" }), { headers: { "Content-Type": "image/png" } });
  }
  return null;
}

export async function fromTiles(request) {
  const kept = await reading;
  if (kept && new URL(request.url).origin === origin) {
    const hit = await caches.match(request.url, { cacheName: TILE_CACHE, ignoreVary: true });
    if (hit) return hit;
  }
  try {
    return await fetch(request);
  } catch (err) {
    const tile = kept ? tileOfUrl(kept, request.url) : null;
    const standIn = tile ? await enlarged(tile).catch(() => null) : null;
    if (standIn) return standIn;
    throw err;
  }
}
