// The one photo viewer every screen opens (a thumbnail tapped anywhere, the photo screen, the office's
// screens): a modal dialog with the photo large, the photos of the same record one swipe, key or
// button away, zoom by pinch, double tap, wheel, keys or buttons and pan by dragging; beside it when
// and where the photo was taken and how far from the site; over it everyone's markup, and the tools to
// draw one's own (markup.js).
//
// The app's code never writes an inline style, so the photo is an SVG <image> in an <svg> sized by CSS:
// zoom and pan change the svg's viewBox, and the markup lives in the same SVG in the image's pixels.
import { h, mount, confirmAction } from "../dom.js";
import { syncNow } from "../sync.js";
import { photoInfo, imageUrl, factsView } from "./photo_info.js";
import { annotationsOf, mineOf, drawnBy, saveMine, drawShapes } from "./annotations.js";
import { describe } from "./shapes.js";
import { markupTools } from "./markup.js";
import { markThumbs } from "./photo_urls.js";

const MAX_ZOOM = 8;
const STEP = 1.5;
const SWIPE_PX = 50;
const DOUBLE_TAP_MS = 350;
const XLINK = "http://www.w3.org/1999/xlink";

let current = null;

// `entries`: photo ids (the app's photos) or {id, src, facts, alt} for a picture the caller describes
// (a resident's report photo: no markup). Opens at `index`; focus returns to `opener` on close.
export async function openViewer(entries, index = 0, { opener } = {}) {
  if (current) current.close();
  current = viewer(entries, opener || document.activeElement);
  await current.show(Math.max(0, index));
  return current;
}

function naturalSize(url) {
  return new Promise((resolve) => {
    const img = new Image();
    img.onload = () => resolve(img.naturalWidth ? { w: img.naturalWidth, h: img.naturalHeight } : null);
    img.onerror = () => resolve(null);
    img.src = url;
  });
}

function viewer(entries, returnTo) {
  const owned = [];
  let index = 0;
  let token = 0;
  let W = 0;
  let H = 0;
  let zoom = 1;
  let cx = 0;
  let cy = 0;
  let info = null;
  let marks = [];
  let mine = null;
  let tools = null;

  const image = h("svg:image", { x: 0, y: 0, preserveAspectRatio: "none" });
  const others = h("svg:g.marks-others");
  const own = h("svg:g.marks-own");
  const draft = h("svg:g.marks-draft");
  const svg = h("svg:svg.viewer-image", { role: "img", "aria-label": "Photo", preserveAspectRatio: "xMidYMid meet", viewBox: "0 0 1 1" },
    image, others, own, draft);
  const notice = h("p.viewer-notice", { hidden: true });
  const title = h("h2", { id: "viewer-title" }, "Photo");
  const live = h("p.viewer-sr", { role: "status", "aria-live": "polite" });
  const button = (text, key, onclick, attrs = {}) => h("button", { type: "button", "aria-keyshortcuts": key, dataset: { viewer: text.toLowerCase().replace(" ", "-") }, onclick, ...attrs }, text);
  const prev = button("Previous", "ArrowLeft", () => show(index - 1));
  const next = button("Next", "ArrowRight", () => show(index + 1));
  const zoomIn = button("Zoom in", "+", () => zoomTo(zoom * STEP));
  const zoomOut = button("Zoom out", "-", () => zoomTo(zoom / STEP));
  const zoomShown = h("output.viewer-zoom", { "aria-label": "Zoom" }, "100%");
  const markUp = h("button.primary", { type: "button", dataset: { viewer: "mark-up" }, hidden: true, onclick: () => enterMarkup() }, "Mark up");
  const closeButton = h("button", { type: "button", dataset: { viewer: "close" }, "aria-keyshortcuts": "Escape", onclick: () => close() }, "Close");
  const controls = h("div.viewer-controls", { role: "group", "aria-label": "Photo" }, prev, next, zoomOut, zoomShown, zoomIn, markUp);
  const toolsBox = h("div.viewer-tools", { hidden: true });
  const factsBox = h("div.viewer-info", { dataset: { test: "viewer-facts" } });
  const marksBox = h("div.viewer-marks");
  const dialog = h("dialog.viewer", { "aria-labelledby": "viewer-title" },
    h("div.viewer-bar", title, closeButton),
    h("div.viewer-body",
      h("div.viewer-stage", svg, notice),
      h("div.viewer-side", controls, toolsBox, live, factsBox, marksBox)));

  // --- view: zoom and pan as the svg's viewBox --------------------------------------------------
  function setView() {
    if (!W) return;
    const vw = W / zoom;
    const vh = H / zoom;
    cx = Math.min(W - vw / 2, Math.max(vw / 2, cx));
    cy = Math.min(H - vh / 2, Math.max(vh / 2, cy));
    svg.setAttribute("viewBox", `${cx - vw / 2} ${cy - vh / 2} ${vw} ${vh}`);
    zoomShown.textContent = `${Math.round(zoom * 100)}%`;
    zoomOut.disabled = zoom <= 1;
    zoomIn.disabled = zoom >= MAX_ZOOM;
    dialog.classList.toggle("zoomed", zoom > 1);
  }

  // The point `at` (image pixels) stays where it is on the screen.
  function zoomTo(level, at = [cx, cy]) {
    const z = Math.min(MAX_ZOOM, Math.max(1, level));
    cx = at[0] + (cx - at[0]) * (zoom / z);
    cy = at[1] + (cy - at[1]) * (zoom / z);
    zoom = z;
    setView();
  }

  function toImage(e) {
    const m = svg.getScreenCTM();
    if (!m) return [cx, cy];
    const p = svg.createSVGPoint();
    p.x = e.clientX;
    p.y = e.clientY;
    const q = p.matrixTransform(m.inverse());
    return [q.x, q.y];
  }
  const toFraction = (e) => { const [x, y] = toImage(e); return [Math.min(1, Math.max(0, x / W)), Math.min(1, Math.max(0, y / H))]; };

  // --- showing a photo -------------------------------------------------------------------------
  async function show(n) {
    if (n < 0 || n >= entries.length || tools) return;
    const mineToken = ++token;
    index = n;
    const entry = entries[n];
    title.textContent = entries.length > 1 ? `Photo ${n + 1} of ${entries.length}` : "Photo";
    prev.disabled = n === 0;
    next.disabled = n === entries.length - 1;
    markUp.hidden = true;
    mount(factsBox, h("p.muted", "Loading…"));
    marksBox.replaceChildren();
    others.replaceChildren();
    own.replaceChildren();
    const found = typeof entry === "string" ? await photoInfo(entry) : { ...entry, external: true };
    if (mineToken !== token) return;
    info = found;
    dialog.dataset.photo = found.id;
    const url = found.missing ? null : await imageUrl(found, owned);
    const size = url ? await naturalSize(url) : null;
    if (mineToken !== token) return;
    notice.hidden = Boolean(size);
    notice.textContent = size ? "" : "The photo cannot be shown here: it is on the office server. Connect, then open it again.";
    if (size) {
      W = size.w;
      H = size.h;
      image.setAttribute("width", W);
      image.setAttribute("height", H);
      image.setAttribute("href", url);
      image.setAttributeNS(XLINK, "xlink:href", url);
    } else {
      W = 0;
      image.removeAttribute("href");
      image.removeAttributeNS(XLINK, "href");
    }
    zoom = 1;
    cx = W / 2;
    cy = H / 2;
    setView();
    mount(factsBox, factsView(found));
    marks = found.external || found.missing ? [] : await annotationsOf(found.id);
    if (mineToken !== token) return;
    mine = mineOf(marks);
    drawMarks();
    markUp.hidden = !size || found.external || found.missing;
    markUp.textContent = mine ? "Edit my markup" : "Mark up";
    live.textContent = `${title.textContent}${marks.length ? ", marked up" : ""}`;
  }

  function drawMarks() {
    drawShapes(others, marks.filter((a) => a !== mine).flatMap((a) => a.shapes), W, H);
    drawShapes(own, tools || !mine ? [] : mine.shapes, W, H);
    const all = marks.flatMap((a) => a.shapes);
    svg.setAttribute("aria-label", `${info && info.alt ? info.alt : title.textContent}${all.length ? `, marked up: ${describe(all)}` : ""}`);
    mount(marksBox, marks.length ? [h("h3", "Markup"), h("ul.plain", marks.map((a) => h("li", { dataset: { annotation: a.id } },
      h("strong", `By ${drawnBy(a)}: `), describe(a.shapes), a._pending ? h("span.chip.warn", "Not sent yet") : null)))] : null);
  }

  // --- markup ------------------------------------------------------------------------------------
  function enterMarkup() {
    if (!info || !W) return;
    tools = markupTools({ initial: mine ? mine.shapes : [], redraw: (shapes) => drawShapes(draft, shapes, W, H),
      save: saveMarks, cancel: () => cancelMarkup() });
    dialog.classList.add("marking");
    controls.hidden = true;
    mount(toolsBox, tools.el);
    toolsBox.hidden = false;
    drawMarks();
    tools.focus();
  }

  function leaveMarkup() {
    tools = null;
    dialog.classList.remove("marking");
    draft.replaceChildren();
    toolsBox.replaceChildren();
    toolsBox.hidden = true;
    controls.hidden = false;
    drawMarks();
    markUp.textContent = mine ? "Edit my markup" : "Mark up";
    markUp.focus();
  }

  async function cancelMarkup() {
    if (tools && tools.dirty() && !(await confirmAction({ title: "Discard your marks?", confirm: "Discard", danger: true,
      body: "The marks drawn since the tools opened are not kept; the photo and any saved markup stay as they are." }))) return;
    leaveMarkup();
  }

  async function saveMarks(shapes) {
    if (!shapes.length && !mine) { leaveMarkup(); return; }
    mine = await saveMine(info.id, mine, shapes);
    marks = [...marks.filter((a) => a.id !== mine.id), mine].filter((a) => a.shapes.length);
    if (!shapes.length) mine = null;
    leaveMarkup();
    live.textContent = navigator.onLine ? "Markup saved; sending it." : "Markup saved on this device; it is sent when the connection is back.";
    markThumbs(info.id, marks.length > 0);
    syncNow("markup");
  }

  // --- pointer: swipe, drag to pan, pinch and double tap to zoom; drawing while marking up ---------
  const pointers = new Map();
  let gesture = null;
  let lastTap = 0;
  svg.addEventListener("pointerdown", (e) => {
    if (!W) return;
    e.preventDefault();
    svg.setPointerCapture(e.pointerId);
    pointers.set(e.pointerId, [e.clientX, e.clientY]);
    if (tools) { if (pointers.size === 1) tools.down(toFraction(e)); return; }
    if (pointers.size === 1) gesture = { kind: "drag", x: e.clientX, y: e.clientY, cx, cy, scale: (svg.getScreenCTM() || { a: 1 }).a };
    else if (pointers.size === 2) {
      const [a, b] = [...pointers.values()];
      const mid = { clientX: (a[0] + b[0]) / 2, clientY: (a[1] + b[1]) / 2 };
      gesture = { kind: "pinch", dist: Math.hypot(a[0] - b[0], a[1] - b[1]) || 1, zoom, at: toImage(mid) };
    }
  });
  svg.addEventListener("pointermove", (e) => {
    if (!pointers.has(e.pointerId)) return;
    pointers.set(e.pointerId, [e.clientX, e.clientY]);
    if (tools) { if (pointers.size === 1) tools.move(toFraction(e)); return; }
    if (gesture && gesture.kind === "pinch" && pointers.size === 2) {
      const [a, b] = [...pointers.values()];
      zoomTo(gesture.zoom * (Math.hypot(a[0] - b[0], a[1] - b[1]) / gesture.dist), gesture.at);
    } else if (gesture && gesture.kind === "drag" && zoom > 1) {
      cx = gesture.cx - (e.clientX - gesture.x) / gesture.scale;
      cy = gesture.cy - (e.clientY - gesture.y) / gesture.scale;
      setView();
    }
  });
  const release = (e) => {
    if (!pointers.has(e.pointerId)) return;
    pointers.delete(e.pointerId);
    if (tools) { tools.up(e.type === "pointerup" ? toFraction(e) : null); return; }
    if (!gesture || gesture.kind !== "drag" || e.type !== "pointerup") { if (!pointers.size) gesture = null; return; }
    const dx = e.clientX - gesture.x;
    const dy = e.clientY - gesture.y;
    gesture = null;
    if (zoom <= 1 && Math.abs(dx) > SWIPE_PX && Math.abs(dx) > 1.5 * Math.abs(dy)) { show(dx < 0 ? index + 1 : index - 1); return; }
    if (Math.abs(dx) < 10 && Math.abs(dy) < 10) {
      const now = Date.now();
      if (now - lastTap < DOUBLE_TAP_MS) { zoomTo(zoom > 1 ? 1 : 2.5, toImage(e)); lastTap = 0; } else lastTap = now;
    }
  };
  svg.addEventListener("pointerup", release);
  svg.addEventListener("pointercancel", release);
  svg.addEventListener("wheel", (e) => {
    if (!W || tools) return;
    e.preventDefault();
    zoomTo(zoom * (e.deltaY < 0 ? 1.2 : 1 / 1.2), toImage(e));
  }, { passive: false });

  // --- keys, and closing ---------------------------------------------------------------------------
  // On the document: a tap on the photo may leave the focus nowhere (on the body) and the keys still work;
  // not while another dialog (a confirmation) is over the viewer.
  const onKey = (e) => {
    if (e.target !== document.body && !dialog.contains(e.target)) return;
    if (e.target.matches("input, textarea, select") || e.altKey || e.ctrlKey || e.metaKey) return;
    const act = { ArrowLeft: () => show(index - 1), ArrowRight: () => show(index + 1),
      "+": () => zoomTo(zoom * STEP), "=": () => zoomTo(zoom * STEP), "-": () => zoomTo(zoom / STEP), _: () => zoomTo(zoom / STEP) }[e.key];
    if (!act || (tools && e.key.startsWith("Arrow"))) return;
    e.preventDefault();
    act();
  };
  document.addEventListener("keydown", onKey);
  dialog.addEventListener("cancel", (e) => {
    e.preventDefault();
    if (tools) cancelMarkup();
    else close();
  });
  dialog.addEventListener("close", () => {
    token += 1;
    document.removeEventListener("keydown", onKey);
    owned.forEach((u) => URL.revokeObjectURL(u));
    dialog.remove();
    if (current === api) current = null;
    if (returnTo && returnTo.isConnected && typeof returnTo.focus === "function") returnTo.focus();
  });
  function close() { if (dialog.open) dialog.close(); }

  document.body.append(dialog);
  dialog.showModal();
  closeButton.focus();
  const api = { show, close, dialog };
  return api;
}
