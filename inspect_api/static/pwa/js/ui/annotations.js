// A photo's markup (the sync entity `photo_annotation`): read from the device's copy and, online, from
// the API; each person's markup of a photo is one record, saved on the device and sent through the
// outbox like any record (after the photo it names: outbox_order.js). Drawn as SVG over the photo in
// the image's own pixel units; the photo's bytes are never touched.
import { h, nowIso, uuid } from "../dom.js";
import * as store from "../store.js";
import * as outbox from "../outbox.js";
import { api } from "../api.js";
import { currentUser } from "../auth.js";
import { arrowHead, colourName, describe } from "./shapes.js";

export const ENTITY = "photo_annotation";

const listOf = (body) => (Array.isArray(body) ? body : body && Array.isArray(body.items) ? body.items : []);

// Every markup of the photo the device or the server knows; the device's unsent edits win.
export async function annotationsOf(photoId) {
  const local = (await store.allOf(ENTITY)).filter((a) => a.photo_id === photoId);
  const byId = new Map();
  if (navigator.onLine) {
    const remote = listOf(await api(`/api/v1/photos/${encodeURIComponent(photoId)}/annotations`).catch(() => null));
    for (const a of remote) {
      byId.set(a.id, a);
      const here = local.find((l) => l.id === a.id);
      if (!here || !here._pending) await store.saveServer(ENTITY, { ...a, _server_version: a.version ?? null });
    }
  }
  for (const a of local) if (a._pending || !byId.has(a.id)) byId.set(a.id, a);
  return [...byId.values()].filter((a) => (a.shapes || []).length);
}

// The signed-in user's own markup among them (one per person and photo).
export function mineOf(list) {
  const me = currentUser();
  return (me && list.find((a) => a.created_by === me.id || (a.created_by && a.created_by.id === me.id))) || null;
}

// Who drew a markup, as the server says it ({created_by_name} or {created_by: {name}}), else unknown.
export function drawnBy(a) {
  const me = currentUser();
  if (me && (a.created_by === me.id || (a.created_by && a.created_by.id === me.id))) return "you";
  return a.created_by_name || (a.created_by && a.created_by.name) || (a.drawn_by && a.drawn_by.name) || "someone else";
}

// The record a markup is sent as (tests/js/payloads.js checks it against the published document). The
// device is named by the push that carries it (the server records that one); the clock only on a create.
export const annotationPayload = ({ id, photoId, shapes, createdAt }) =>
  ({ id, photo_id: photoId, shapes, device_created_at: createdAt });

// Saves the user's markup on the device and queues it; an edit of a markup the server holds goes with
// the version the device last saw (sync.js), so a change made elsewhere meanwhile is a conflict.
export async function saveMine(photoId, existing, shapes) {
  const me = currentUser();
  const id = existing ? existing.id : uuid();
  const kept = existing && existing._pending !== undefined ? existing : (await store.getRecord(ENTITY, id)) || {};
  const data = annotationPayload({ id, photoId, shapes, createdAt: kept.device_created_at || nowIso() });
  await store.saveLocal(ENTITY, { ...kept, ...data, created_by: me.id, created_by_name: me.name || null });
  await outbox.queueMutation(ENTITY, id, data, "Markup of a photo");
  return store.getRecord(ENTITY, id);
}

export async function hasMarkup(photoId) {
  return (await store.allOf(ENTITY)).some((a) => a.photo_id === photoId && (a.shapes || []).length);
}

// One shape as SVG in the image's pixels (`w` x `h`): a dark or light halo under the colour, so a mark
// reads on mud and on sky alike.
export function shapeSvg(shape, w, hgt) {
  const unit = Math.max(w, hgt);
  const stroke = Math.max(2, unit * 0.006);
  const px = ([x, y]) => [x * w, y * hgt];
  const halo = ["#ffffff", "#ffe600", "#00e5ff"].includes(shape.colour) ? "#000000" : "#ffffff";
  const pts = shape.points.map(px);
  const g = h("svg:g", { class: `mark mark-${shape.kind}`, dataset: { kind: shape.kind } });
  const twice = (tag, attrs) => [h(`svg:${tag}`, { ...attrs, stroke: halo, "stroke-width": stroke * 2.2, fill: attrs.fill === "none" ? "none" : halo }),
    h(`svg:${tag}`, { ...attrs, stroke: shape.colour, "stroke-width": stroke, fill: attrs.fill === "none" ? "none" : shape.colour })];
  const round = { "stroke-linecap": "round", "stroke-linejoin": "round" };
  if (shape.kind === "arrow") {
    const [tail, head] = pts;
    const tip = arrowHead(tail, head, stroke * 6).map((p) => p.join(",")).join(" ");
    g.append(...twice("line", { x1: tail[0], y1: tail[1], x2: head[0], y2: head[1], fill: "none", ...round }),
      ...twice("polygon", { points: tip, ...round }));
  } else if (shape.kind === "circle") {
    const [a, b] = pts;
    g.append(...twice("ellipse", { cx: (a[0] + b[0]) / 2, cy: (a[1] + b[1]) / 2, rx: Math.abs(b[0] - a[0]) / 2,
      ry: Math.abs(b[1] - a[1]) / 2, fill: "none" }));
  } else if (shape.kind === "freehand") {
    g.append(...twice("polyline", { points: pts.map((p) => p.join(",")).join(" "), fill: "none", ...round }));
  } else if (shape.kind === "text") {
    const [at] = pts;
    g.append(h("svg:text", { x: at[0], y: at[1], "font-size": unit * 0.035, "font-weight": 700, fill: shape.colour,
      stroke: halo, "stroke-width": stroke, "paint-order": "stroke", "dominant-baseline": "middle" }, shape.text));
  }
  const title = shape.kind === "text" ? `${colourName(shape.colour)} label “${shape.text}”` : `${colourName(shape.colour)} ${describe([shape])}`;
  g.prepend(h("svg:title", title));
  return g;
}

export function drawShapes(layer, shapes, w, hgt) {
  layer.replaceChildren(...shapes.map((s) => shapeSvg(s, w, hgt)));
}
