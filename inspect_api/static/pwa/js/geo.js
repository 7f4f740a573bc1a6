// Location: a watchPosition that keeps the recent fixes, so a photo is stamped with the best one
// (smallest accuracy radius) of the last two minutes rather than whatever arrives next.
//
// The watch starts when a screen about a site opens (a site, an inspection, a sample, an application),
// not when the app loads: the browser asks the user then, when the question makes sense. The lists
// that order sites by distance use it where it was allowed before, and otherwise offer a button.
const KEEP_MS = 2 * 60 * 1000;
let fixes = [];
let watchId = null;
let lastError = null;
const listeners = new Set();

export function startWatching() {
  if (watchId !== null || !("geolocation" in navigator)) return;
  watchId = navigator.geolocation.watchPosition(
    (pos) => {
      lastError = null;
      fixes.push({ lat: pos.coords.latitude, lon: pos.coords.longitude, accuracy_m: pos.coords.accuracy, at: pos.timestamp || Date.now() });
      prune();
      for (const fn of listeners) fn(bestFix());
    },
    (err) => {
      lastError = err.code === 1 ? "Location is turned off for this app." : "No location fix yet.";
      for (const fn of listeners) fn(null);
    },
    { enableHighAccuracy: true, maximumAge: 10000, timeout: 30000 },
  );
}

// Starts the watch only where the user has allowed it already: no question is asked.
export async function startWatchingIfAllowed() {
  if (watchId !== null || !navigator.permissions) return;
  try {
    const status = await navigator.permissions.query({ name: "geolocation" });
    if (status.state === "granted") startWatching();
  } catch {
    // no permission state to read: the watch starts when a site opens
  }
}

export const watching = () => watchId !== null;

function prune() {
  const cutoff = Date.now() - KEEP_MS;
  fixes = fixes.filter((f) => f.at >= cutoff).slice(-50);
}

export function bestFix() {
  prune();
  if (!fixes.length) return null;
  return fixes.reduce((best, f) => (f.accuracy_m < best.accuracy_m ? f : best));
}

export const locationProblem = () => lastError;
export function onFix(fn) { listeners.add(fn); return () => listeners.delete(fn); }

// Great-circle distance in metres (haversine, mean Earth radius).
export function distanceM(a, b) {
  if (!a || !b) return null;
  const rad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * rad;
  const dLon = (b.lon - a.lon) * rad;
  const s = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * 6371008.8 * Math.asin(Math.sqrt(s));
}

export function fmtDistance(m) {
  if (m === null || m === undefined) return "";
  if (m < 1000) return `${Math.round(m)} m away`;
  const miles = m / 1609.344;
  return `${miles < 10 ? miles.toFixed(1) : Math.round(miles)} mi away`;
}
