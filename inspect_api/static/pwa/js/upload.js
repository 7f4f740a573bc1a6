// Photo upload over bad connections: tus 1.0 resumable upload at /api/v1/uploads (creation, HEAD
// for the server's offset, PATCH from there, checksum per chunk when the server offers it), so an
// interrupted upload never sends received bytes again.
import { api, raw, ApiError } from "./api.js";
import { digestBase64 } from "./hash.js";

const TUS = "1.0.0";
const CHUNK = 512 * 1024;
let capabilities = null;

async function tusCapabilities() {
  if (capabilities) return capabilities;
  const response = await raw("/api/v1/uploads", { method: "OPTIONS" });
  const algorithms = (response.headers.get("Tus-Checksum-Algorithm") || "").toLowerCase().split(",").map((s) => s.trim());
  const checksum = algorithms.includes("sha256") ? ["sha256", "SHA-256"] : algorithms.includes("sha1") ? ["sha1", "SHA-1"] : null;
  capabilities = { checksum, maxSize: Number(response.headers.get("Tus-Max-Size")) || null };
  return capabilities;
}

function b64(value) {
  const bytes = new TextEncoder().encode(String(value));
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

export function photoParams(item) {
  const params = { permit_id: item.permit_id, parent_type: item.parent_type, parent_id: item.parent_id,
    captured_at: item.captured_at, device_lat: item.device_lat, device_lon: item.device_lon,
    device_accuracy_m: item.device_accuracy_m, caption: item.caption };
  return Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined && v !== null && v !== ""));
}

function metadataHeader(item) {
  const meta = { ...photoParams(item), id: item.id, photo_id: item.id, sha256: item.sha256,
    filename: item.filename || `${item.id}.jpg`, filetype: item.content_type, content_type: item.content_type };
  return Object.entries(meta).map(([k, v]) => `${k} ${b64(v)}`).join(",");
}

// Uploads one outbox photo item; `save(item)` persists the upload URL so a later run resumes it.
// Resolves with the server's photo record.
export async function uploadPhoto(item, { save, onProgress }) {
  const caps = await tusCapabilities();
  for (let attempt = 0; attempt < 2; attempt += 1) {
    if (!item.upload_url) {
      const created = await raw("/api/v1/uploads", { method: "POST", headers: {
        "Tus-Resumable": TUS, "Upload-Length": String(item.size), "Upload-Metadata": metadataHeader(item) } });
      item.upload_url = new URL(created.headers.get("Location"), location.origin).pathname;
      await save(item);
      const body = await maybeJson(created);
      if (item.size === 0 && body) return body;
    }
    const head = await raw(item.upload_url, { method: "HEAD", headers: { "Tus-Resumable": TUS }, allow: [404, 410] });
    if (head.status === 404 || head.status === 410) {  // expired partial upload: start again
      item.upload_url = null;
      await save(item);
      continue;
    }
    const offset = Number(head.headers.get("Upload-Offset") || 0);
    const done = await sendFrom(item, offset, caps, onProgress);
    if (done) return done;
  }
  throw new ApiError("The upload could not be resumed; it will start again at the next sync.", { status: 409, key: "upload_restart" });
}

async function sendFrom(item, offset, caps, onProgress) {
  let last = null;
  let retries = 0;
  if (offset >= item.size) return finished(item, null);
  while (offset < item.size) {
    const chunk = item.bytes.slice(offset, offset + CHUNK);
    const headers = { "Tus-Resumable": TUS, "Upload-Offset": String(offset), "Content-Type": "application/offset+octet-stream" };
    if (caps.checksum) headers["Upload-Checksum"] = `${caps.checksum[0]} ${await digestBase64(caps.checksum[1], chunk)}`;
    last = await raw(item.upload_url, { method: "PATCH", headers, body: chunk, allow: [409, 460] });
    if (last.status === 409) {  // a refusal of the finished photo (its record locked meanwhile) is final
      const body = await maybeJson(last.clone());
      if (body && body.error && body.error !== "offset_mismatch") {
        throw new ApiError(body.message, { status: 409, key: body.error, errors: body.errors || {}, body });
      }
    }
    if (last.status === 409 || last.status === 460) {  // offset moved or chunk damaged in transit: ask again
      retries += 1;
      if (retries > 3) throw new ApiError("The connection keeps damaging this photo upload; it will be retried later.", { status: last.status });
      const head = await raw(item.upload_url, { method: "HEAD", headers: { "Tus-Resumable": TUS } });
      offset = Number(head.headers.get("Upload-Offset") || 0);
      continue;
    }
    offset = Number(last.headers.get("Upload-Offset") || offset + chunk.byteLength);
    if (onProgress) onProgress(offset / item.size);
  }
  return finished(item, last);
}

async function finished(item, response) {
  const body = response ? await maybeJson(response) : null;
  if (body && body.id) return body;
  return api(`/api/v1/photos/${encodeURIComponent(item.id)}`);
}

async function maybeJson(response) {
  const type = response.headers.get("Content-Type") || "";
  if (!type.includes("json")) return null;
  try { return await response.json(); } catch { return null; }
}

export function resetCapabilities() { capabilities = null; }
