// Photos: taken with the camera input, hashed on the device (SHA-256), stamped with the best recent
// location fix and queued in the outbox; shown from the device until uploaded, then from the server.
import { h, mount, nowIso, uuid } from "../dom.js";
import * as outbox from "../outbox.js";
import { sha256Hex } from "../hash.js";
import { bestFix } from "../geo.js";
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

export function thumb(photoId, caption) {
  const img = h("img", { alt: caption || "Photo", width: 132, height: 100 });
  const note = h("p", "Loading…");
  photoUrl(photoId).then(async (url) => {
    if (url) img.src = url;
    const waiting = await outbox.photoBytes(photoId);
    note.textContent = waiting ? "On device, not sent yet" : url ? "Uploaded" : "Not available offline";
  });
  return h("figure.photo", { dataset: { photo: photoId } }, img, note);
}

// A camera button. `meta()` gives permit/parent ids; `onAdded(photoIds)` runs once they are stored.
export function cameraButton(text, meta, onAdded) {
  const input = h("input", { type: "file", accept: "image/jpeg", capture: "environment", multiple: true, "aria-label": text });
  const status = h("span.hint", { "aria-live": "polite" });
  input.addEventListener("change", async () => {
    const files = Array.from(input.files || []);
    const added = [];
    for (const [i, file] of files.entries()) {
      status.textContent = `Saving photo ${i + 1} of ${files.length}…`;
      try {
        const bytes = await file.arrayBuffer();
        const fix = bestFix();
        const photo = await outbox.queuePhoto(bytes, { id: uuid(), ...meta(), content_type: file.type || "image/jpeg",
          filename: file.name, captured_at: nowIso(), sha256: await sha256Hex(bytes),
          device_lat: fix ? fix.lat : null, device_lon: fix ? fix.lon : null, device_accuracy_m: fix ? fix.accuracy_m : null });
        added.push(photo);
      } catch (err) {
        status.textContent = err.message;
        input.value = "";
        return;
      }
    }
    input.value = "";
    const fix = bestFix();
    status.textContent = files.length ? `${files.length} photo${files.length === 1 ? "" : "s"} saved on this device`
      + (fix ? ` (location ±${Math.round(fix.accuracy_m)} m)` : " (no location fix)") : "";
    if (added.length) onAdded(added.map((p) => p.id), added);
  });
  return h("span.photo-input", h("span.file-button", h("span.button", { "aria-hidden": "true" }, text), input), " ", status);
}

export function photoStrip(ids) {
  const box = h("div.photos");
  mount(box, (ids || []).map((id) => thumb(id)));
  return box;
}
