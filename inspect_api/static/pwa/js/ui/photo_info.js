// What the viewer shows beside a photo: when it was taken (the camera's clock), where (camera GPS or
// the device's fix), how far from the site, and a warning when that is far or not known. A photo still
// on the device is read from its own bytes and the site on the device; an uploaded one as the server
// judged it (photos/services.py), from the device's copy or, for the office, from the API.
import { h, fmtTime } from "../dom.js";
import * as outbox from "../outbox.js";
import * as store from "../store.js";
import { api, raw } from "../api.js";
import { distanceM } from "../geo.js";
import { distanceWords, photoUrl, thumbnailOnce } from "./photo_urls.js";
import { readExif } from "./exif.js";

// The server's default for "far from the site" (PHOTO_FAR_FROM_SITE_M): used only until the photo is
// uploaded, when the server's own judgement replaces it.
export const FAR_M = 500;

async function localInfo(id, stored) {
  const item = (await outbox.items()).find((i) => i.kind === "photo" && i.id === id) || {};
  const exif = readExif(stored.bytes);
  const permit = item.permit_id ? await store.getPermit(item.permit_id) : null;
  const site = permit && permit.site ? permit.site.location : null;
  const device = item.device_lat != null && item.device_lon != null ? { lat: item.device_lat, lon: item.device_lon } : null;
  const location = exif.gps ? { ...exif.gps, source: "exif" } : device ? { ...device, source: "device" } : null;
  const distance = location && site ? distanceM(location, site) : null;
  return { id, local: true, blob: new Blob([stored.bytes], { type: stored.type || "image/jpeg" }),
    taken_at: exif.taken_at, captured_at: item.captured_at || null, location,
    accuracy_m: location && location.source === "device" ? item.device_accuracy_m : null,
    distance_to_site_m: distance, far_from_site: distance !== null && distance > FAR_M };
}

// The photo's facts ({id, local, taken_at, location, distance_to_site_m, far_from_site, ...}), or
// {id, missing: true} when neither the device nor the server can say anything of it.
export async function photoInfo(id) {
  const stored = await outbox.photoBytes(id);
  if (stored) return localInfo(id, stored);
  let record = await store.getRecord("photo", id);
  if (navigator.onLine) record = (await api(`/api/v1/photos/${encodeURIComponent(id)}`).catch(() => null)) || record;
  if (!record) return { id, missing: true };
  const accuracy = record.location && record.location.source === "device" && record.device_gps ? record.device_gps.accuracy_m : null;
  return { ...record, id, local: false, accuracy_m: accuracy };
}

// An object URL of the photo to show large: the device's bytes, the server's display-size image, or
// at worst the small thumbnail the list showed (kept by photos.js, offline too). `owned` collects the
// URLs the caller revokes when done.
export async function imageUrl(info, owned) {
  if (info.blob) {
    const url = URL.createObjectURL(info.blob);
    owned.push(url);
    return url;
  }
  if (info.src) {
    const blob = await raw(info.src).then((r) => r.blob()).catch(() => null);
    if (!blob) return null;
    const url = URL.createObjectURL(blob);
    owned.push(url);
    return url;
  }
  // While the server is still making the display image, the original stands in (the markup is drawn in
  // fractions of the image, so any size fits); for HEIC the small image the list showed, if any.
  const first = await thumbnailOnce(info.id, "display").catch(() => null);
  const blob = first ? first.blob : null;
  if (!blob) return photoUrl(info.id);
  const url = URL.createObjectURL(blob);
  owned.push(url);
  return url;
}

const coordinate = (v) => Number(v).toFixed(5);

// The facts as lines of the viewer's side panel; a far or unlocated photo leads with its warning.
export function factsView(info) {
  if (info.missing) return [h("p.hint", "Nothing is known of this photo on this device.")];
  if (info.facts) return info.facts;  // a photo the caller describes itself (a resident's report)
  const taken = info.taken_at ? `${fmtTime(info.taken_at)} (camera clock)`
    : info.captured_at ? `${fmtTime(info.captured_at)} (device clock; the camera wrote no time)` : "No time recorded";
  const loc = info.location;
  const how = !loc ? null : loc.source === "exif" ? "camera GPS"
    : `device fix${info.accuracy_m != null ? ` ±${Math.round(info.accuracy_m)} m` : ""}`;
  const away = info.distance_to_site_m;
  const warning = info.far_from_site && away != null
    ? h("p.viewer-warning", { role: "note", dataset: { test: "viewer-far" } }, `Taken ${distanceWords(away)} from the site`)
    : !loc ? h("p.viewer-warning", { role: "note", dataset: { test: "viewer-no-location" } }, "No location recorded") : null;
  return [
    warning,
    h("dl.kv.viewer-facts",
      h("dt", "Taken"), h("dd", { dataset: { test: "viewer-time" } }, taken),
      h("dt", "Place"), h("dd", { dataset: { test: "viewer-place" } }, loc ? `${coordinate(loc.lat)}, ${coordinate(loc.lon)} (${how})` : "Not known"),
      h("dt", "From the site"), h("dd", { dataset: { test: "viewer-distance" } },
        away != null ? `${distanceWords(away)}${info.within_site ? ", inside the limit of work" : ""}` : "Not known"),
      info.uploaded_by && info.uploaded_by.name ? [h("dt", "Uploaded by"), h("dd", info.uploaded_by.name)] : null),
    h("p.hint", info.local ? "On this device, not sent yet." : info.created_at ? `Received ${fmtTime(info.created_at)}.` : null),
  ];
}
