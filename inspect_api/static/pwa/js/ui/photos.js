// Photos: taken with the camera input, hashed on the device (SHA-256), stamped with the best recent
// location fix and queued in the outbox; shown from the device until uploaded, then from the server.
import { h, mount, nowIso, uuid, fmtTime } from "../dom.js";
import * as outbox from "../outbox.js";
import { sha256Hex } from "../hash.js";
import { bestFix } from "../geo.js";
import { hasMarkup } from "./annotations.js";
import { distanceWords, markThumbs, photoUrl } from "./photo_urls.js";

export { distanceWords, forgetPhotoUrls, markThumbs, photoUrl } from "./photo_urls.js";

// A thumbnail that opens the viewer (ui/viewer.js, loaded on first use) on this photo, with the other
// photos of the same record: those shown in its `data-photo-group` (else on the whole screen).
export function thumb(photoId, caption) {
  const img = h("img", { alt: "", width: 132, height: 100 });
  const note = h("p", "Loading…");
  const open = h("button.photo-open", { type: "button", "aria-label": `Open ${caption || "the photo"} in the viewer`,
    onclick: (e) => openFrom(e.currentTarget, photoId) }, img);
  const figure = h("figure.photo", { dataset: { photo: photoId } }, open, note);
  let processing = false;
  const ready = (url) => {
    img.src = url;
    note.textContent = "Uploaded";
    delete figure.dataset.processing;
  };
  photoUrl(photoId, { onProcessing: () => { processing = true; figure.dataset.processing = "yes"; }, onReady: ready })
    .then(async (url) => {
      const came = processing && !figure.dataset.processing;  // the thumbnail itself arrived already
      if (url && !came) img.src = url;
      const waiting = await outbox.photoBytes(photoId);
      // The server answers an upload before its thumbnails exist: the original stands in meanwhile,
      // or nothing for HEIC, which browsers cannot show.
      if (figure.dataset.processing || !came) {
        note.textContent = waiting ? "On device, not sent yet"
          : processing ? (url ? "Uploaded · thumbnail being made" : "Processing…") : url ? "Uploaded" : "Not available offline";
      }
      if (await hasMarkup(photoId)) markThumbs(photoId, true);
    });
  return figure;
}

export async function openFrom(opener, photoId) {
  const scope = opener.closest("[data-photo-group]") || opener.closest("#main") || document;
  const ids = [...new Set(Array.from(scope.querySelectorAll("figure.photo[data-photo]"), (f) => f.dataset.photo))];
  const { openViewer } = await import("./viewer.js");
  return openViewer(ids.includes(photoId) ? ids : [photoId], Math.max(0, ids.indexOf(photoId)), { opener });
}

// What a decider needs to weigh a photo (R-F1, R-I5): where it was taken and how that is known, how
// far from the site, who uploaded it and when; a photo far from the site, or with no location at all,
// is flagged rather than left for the reader to notice.
export function photoFacts(p) {
  if (!p) return [];
  const where = p.location ? [p.location.source === "exif" ? "Camera GPS" : "Device fix",
    p.distance_to_site_m != null ? `${distanceWords(p.distance_to_site_m)} from the site` : null,
    p.within_site ? "inside the limit of work" : null].filter(Boolean).join(" · ") : null;
  const flag = p.far_from_site
    ? h("p", h("span.chip.bad", { dataset: { test: "far-from-site" } }, `Far from the site: ${distanceWords(p.distance_to_site_m)} away`))
    : !p.location ? h("p", h("span.chip.warn", { dataset: { test: "no-location" } }, "No location: where it was taken is not known")) : null;
  // The camera's own clock when it wrote one, else the moment the device took the photo.
  const taken = p.taken_at || p.captured_at;
  const when = [taken ? `Taken ${fmtTime(taken)}` : null,
    p.uploaded_by && p.uploaded_by.name ? `uploaded by ${p.uploaded_by.name}` : null,
    p.created_at ? `received ${fmtTime(p.created_at)}` : null].filter(Boolean).join(" · ");
  return [flag, where ? h("p.hint", { dataset: { test: "photo-where" } }, where) : null,
    when ? h("p.hint", { dataset: { test: "uploaded-by" } }, when.replace(/^./, (c) => c.toUpperCase())) : null];
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
