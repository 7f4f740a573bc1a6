// The photos shown on the screen: object URLs of their bytes (the device's copy, else the server's
// small thumbnail), forgotten at sign-out; the words for a distance; the "Marked up" chip. Shared by the
// thumbnails (photos.js) and the viewer (viewer.js), which load apart.
import { h } from "../dom.js";
import * as outbox from "../outbox.js";
import { raw } from "../api.js";
import { onSessionChange } from "../auth.js";

const urls = new Map();

// Signing out forgets every photo shown: the next person on this device sees none of them, even
// by id. (The server marks photos `private, no-cache`, so the browser's HTTP cache asks again, with
// a sign-in, before it would show one.)
export function forgetPhotoUrls() {
  for (const url of urls.values()) URL.revokeObjectURL(url);
  urls.clear();
}
onSessionChange((session) => { if (!session) forgetPhotoUrls(); });

// An object URL for a photo: the device's copy if it is still in the outbox, else the server's thumbnail.
export async function photoUrl(photoId) {
  if (urls.has(photoId)) return urls.get(photoId);
  let blob;
  const local = await outbox.photoBytes(photoId);
  if (local) blob = new Blob([local.bytes], { type: local.type });
  else {
    try {
      const response = await raw(`/api/v1/photos/${encodeURIComponent(photoId)}/thumbnail?size=small`);
      blob = await response.blob();
    } catch { return null; }
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
