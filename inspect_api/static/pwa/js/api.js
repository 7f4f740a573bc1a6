// JSON calls to /api/v1 with the session's bearer token; one refresh-and-retry on an expired token.
// Failures become ApiError with the server's message, or a plain sentence when the network is down.
import { currentSession, refresh, expire } from "./auth.js";

export class ApiError extends Error {
  constructor(message, { status = 0, key = "network", errors = {}, body = null } = {}) {
    super(message);
    this.status = status;
    this.key = key;
    this.errors = errors;
    this.body = body;
  }
  get offline() { return this.status === 0; }
}

export const OFFLINE_MESSAGE = "No connection to the office server. Your work is saved on this device and will be sent when the connection is back.";

async function send(path, options, token) {
  const headers = new Headers(options.headers || {});
  if (token) headers.set("Authorization", `Bearer ${token}`);
  let body = options.body;
  if (body !== undefined && !(body instanceof ArrayBuffer) && !(body instanceof Blob) && !ArrayBuffer.isView(body)) {
    headers.set("Content-Type", "application/json");
    body = JSON.stringify(body);
  }
  const url = path.startsWith("/") ? path : `/api/v1/${path}`;
  try {
    return await fetch(url, { method: options.method || "GET", headers, body, signal: options.signal, cache: "no-store" });
  } catch (err) {
    if (err.name === "AbortError") throw err;
    throw new ApiError(OFFLINE_MESSAGE);
  }
}

export async function errorOf(response) {
  let body;
  try { body = await response.json(); } catch { body = null; }
  const message = (body && body.message) || `The server answered ${response.status} ${response.statusText}.`;
  return new ApiError(message, { status: response.status, key: body && body.error, errors: (body && body.errors) || {}, body });
}

// Returns the raw Response (for uploads and blobs); throws ApiError unless `allow` lists the status.
export async function raw(path, options = {}) {
  const session = currentSession();
  if (!session || !session.access_token) throw new ApiError("Sign in to send and fetch records.", { status: 401, key: "unauthorized" });
  let response = await send(path, options, session.access_token);
  if (response.status === 401) {
    const token = await refresh().catch(() => null);
    if (!token) {
      await expire();
      throw new ApiError("Your sign-in has ended. Sign in again; nothing on this device is lost.", { status: 401, key: "session_ended" });
    }
    response = await send(path, options, token);
  }
  if (!response.ok && !(options.allow || []).includes(response.status)) throw await errorOf(response);
  return response;
}

export async function api(path, options = {}) {
  const response = await raw(path, options);
  if (response.status === 204) return null;
  const type = response.headers.get("Content-Type") || "";
  return type.includes("json") ? response.json() : response;
}

export const get = (path, options) => api(path, { ...options, method: "GET" });
export const post = (path, body, options) => api(path, { ...options, method: "POST", body });
export const patch = (path, body, options) => api(path, { ...options, method: "PATCH", body });

// Every list answers an array, one page of it, and the total in X-Total-Count (limit at most
// PAGE_LIMIT). listAll follows the pages until it has them all.
export const PAGE_LIMIT = 500;

export async function listAll(path, options = {}) {
  const all = [];
  const [base, query] = path.split("?");
  for (;;) {
    const params = new URLSearchParams(query || "");
    params.set("limit", String(PAGE_LIMIT));
    params.set("offset", String(all.length));
    const response = await raw(`${base}?${params}`, { ...options, method: "GET" });
    const page = await response.json();
    if (!Array.isArray(page)) throw new ApiError(`The server answered ${base} with something other than a list.`, { status: response.status });
    all.push(...page);
    const total = Number(response.headers.get("X-Total-Count"));
    if (!page.length || !Number.isFinite(total) || all.length >= total) return all;
  }
}

// Plain words for the errors a field user sees.
export function plain(err) {
  if (!err) return "";
  if (err.offline) return OFFLINE_MESSAGE;
  if (err.status === 413) return "That is too large to send. Take a smaller photo or split the work.";
  if (err.status === 403) return err.message || "Your role may not do this.";
  if (err.status >= 500) return "The office server had a problem. Nothing was lost; it will be tried again.";
  return err.message || String(err);
}
