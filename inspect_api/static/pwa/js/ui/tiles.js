// The base map's tiles: the office's settings (GET /api/v1/map-settings), kept on the device so a map
// drawn offline knows them, and the Leaflet tile layer built from them. No tile server is contacted
// unless the office configured one.
import { get } from "../api.js";
import { meta } from "../db.js";

const META_KEY = "map_settings";
const NONE = { tiles: null, offline: { zooms: [], budget_bytes: 0 } };

// The settings from the server when it answers, else the last kept copy, else "no tiles".
export async function mapSettings() {
  try {
    const settings = await get("map-settings");
    const before = await meta.get(META_KEY).catch(() => null);
    await meta.set(META_KEY, settings).catch(() => {});
    if (before && originOf(before) !== originOf(settings)) refreshPage();
    return settings;
  } catch {
    const kept = await meta.get(META_KEY).catch(() => null);
    return kept || NONE;
  }
}

const originOf = (settings) => (settings && settings.tiles ? new URL(settings.tiles.url.replace(/[{}]/g, "")).origin : null);

// The app's page names the tile server in its Content-Security-Policy: when the office changed the
// server, the service worker fetches the page again, so the app opens next time with the new policy.
function refreshPage() {
  const worker = navigator.serviceWorker && navigator.serviceWorker.controller;
  if (worker) worker.postMessage({ type: "refresh-page" });
}

// Leaflet's attribution control takes HTML; the operator's attribution is plain text.
export function escapeText(text) {
  return String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

// An L.tileLayer for the configured server, or null when none is configured.
export function tileLayerFor(L, settings) {
  const tiles = settings && settings.tiles;
  if (!tiles || !tiles.url) return null;
  return L.tileLayer(tiles.url, {
    attribution: escapeText(tiles.attribution || ""),
    minZoom: tiles.min_zoom ?? 0,
    maxZoom: tiles.max_zoom ?? 19,
    crossOrigin: true,
  });
}
