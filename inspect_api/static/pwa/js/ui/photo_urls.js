// The photos shown on the screen: object URLs of their bytes (the device's copy, else the server's
// small thumbnail), forgotten at sign-out; the words for a distance; the "Marked up" chip. Shared by the
// thumbnails (photos.js) and the viewer (viewer.js), which load apart.
//
// The server answers an upload before it has made the thumbnails: until then a thumbnail is 202 with
// Retry-After. Meanwhile the original stands in (JPEG, PNG, WebP; the browser scales it), or nothing
// for HEIC, which browsers cannot show (the caller says "Processing…"), and the thumbnail is asked
// for again after each Retry-After until it arrives.
import { h } from "../dom.js";
import * as outbox from "../outbox.js";
import * as store from "../store.js";
import { api, raw } from "../api.js";
import { onSessionChange } from "../auth.js";

const urls = new Map();
const standIns = new Set();
const SHOWABLE = ["image/jpeg", "image/png", "image/webp"];
const MAX_WAIT_S = 30;
const GIVE_UP_MS = 15 * 60 * 1000;
const sleep = (seconds) => new Promise((resolve) => { setTimeout(resolve, seconds * 1000); });

async function contentType(photoId) {
  const record = await store.getRecord("photo", photoId).catch(() => null);
  if (record && record.content_type) return record.content_type;
  const fetched = await api(`/api/v1/photos/${encodeURIComponent(photoId)}`).catch(() => null);
  return fetched ? fetched.content_type : null;
}

// The original as a Blob when a browser can show it; null for HEIC (or when it cannot be fetched).
async function originalBlob(photoId) {
  if (!SHOWABLE.includes(await contentType(photoId))) return null;
  return raw(`/api/v1/photos/${encodeURIComponent(photoId)}/original`).then((r) => r.blob()).catch(() => null);
}

// One look at a thumbnail ("small" or "display"): {blob, final: true} once the server has it;
// {blob: the original or null, final: false, retryAfter} while it is being made; {blob: the original
// or null, final: true} for an image the server could not decode (it never will have thumbnails).
export async function thumbnailOnce(photoId, size) {
  const response = await raw(`/api/v1/photos/${encodeURIComponent(photoId)}/thumbnail?size=${size}`, { allow: [404] });
  if (response.status === 202) {
    const retryAfter = Math.min(Math.max(Number(response.headers.get("Retry-After")) || 2, 1), MAX_WAIT_S);
    return { blob: await originalBlob(photoId), final: false, retryAfter };
  }
  if (response.status === 404) {
    const body = await response.json().catch(() => ({}));
    if (body.error !== "thumbnail_failed") throw new Error(body.message || "No such photo.");
    return { blob: await originalBlob(photoId), final: true };
  }
  return { blob: await response.blob(), final: true };
}

// The thumbnail once it exists, asking again after each Retry-After (null if it never comes).
export async function thumbnailLater(photoId, size, retryAfter) {
  const until = Date.now() + GIVE_UP_MS;
  let wait = retryAfter;
  while (Date.now() < until) {
    await sleep(wait);
    const response = await raw(`/api/v1/photos/${encodeURIComponent(photoId)}/thumbnail?size=${size}`, { allow: [404] })
      .catch(() => null);
    if (response && response.ok && response.status !== 202) return response.blob();
    if (response && response.status === 404) return null;
    wait = response ? Math.min(Math.max(Number(response.headers.get("Retry-After")) || 2, 1), MAX_WAIT_S) : MAX_WAIT_S;
  }
  return null;
}

// Signing out forgets every photo shown: the next person on this device sees none of them, even
// by id. (The server marks photos `private, no-cache`, so the browser's HTTP cache asks again, with
// a sign-in, before it would show one.)
export function forgetPhotoUrls() {
  for (const url of [...urls.values(), ...standIns]) URL.revokeObjectURL(url);
  urls.clear();
  standIns.clear();
}
onSessionChange((session) => { if (!session) forgetPhotoUrls(); });

// An object URL for a photo: the device's copy if it is still in the outbox, else the server's thumbnail.
// While the server is still making the thumbnail, `onProcessing()` is called and the original's URL
// is answered (null for HEIC); `onReady(url)` gets the thumbnail's once it arrives.
export async function photoUrl(photoId, { onProcessing, onReady } = {}) {
  if (urls.has(photoId)) return urls.get(photoId);
  let blob;
  const local = await outbox.photoBytes(photoId);
  if (local) blob = new Blob([local.bytes], { type: local.type });
  else {
    let first;
    try { first = await thumbnailOnce(photoId, "small"); } catch { return null; }
    if (!first.final) {
      if (onProcessing) onProcessing();
      thumbnailLater(photoId, "small", first.retryAfter).then((later) => {
        if (!later || urls.has(photoId)) return;
        const url = URL.createObjectURL(later);
        urls.set(photoId, url);
        if (onReady) onReady(url);
      });
      if (!first.blob) return null;
      const standIn = URL.createObjectURL(first.blob);
      standIns.add(standIn);
      return standIn;
    }
    blob = first.blob;
    if (!blob) return null;
  }
  const url = URL.createObjectURL(blob);
  urls.set(photoId, url);
  return url;
}

// A distance as people say it: metres near the site, kilometres beyond.
export function distanceWords(metres) {
  if (metres == null) return null;
  if (metres < 1000) return `${Math.round(metres)} m`;
  const km = metres / 1000;
  return `${new Intl.NumberFormat("en-US", { maximumFractionDigits: km < 10 ? 1 : 0 }).format(km)} km`;
}

// The "Marked up" chip on every thumbnail of the photo on the screen.
export function markThumbs(photoId, marked) {
  for (const figure of document.querySelectorAll(`figure.photo[data-photo="${CSS.escape(photoId)}"]`)) {
    const chip = figure.querySelector(".marked");
    if (marked && !chip) figure.append(h("span.chip.info.marked", { dataset: { test: "marked-up" } }, "Marked up"));
    else if (!marked && chip) chip.remove();
  }
}
