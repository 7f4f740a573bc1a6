// A signature pad: the owner signs with a finger or stylus; the result is a PNG (stored as a photo).
import { h } from "../dom.js";

export function signaturePad(labelText, hintText = "Hand the device to the person granting entry to sign with a finger.") {
  const canvas = h("canvas.signature", { role: "img", "aria-label": labelText, tabindex: "0" });
  let ctx = null;
  let drawing = false;
  let inked = false;
  let last = null;

  function setup() {
    const rect = canvas.getBoundingClientRect();
    const ratio = window.devicePixelRatio || 1;
    canvas.width = Math.max(1, Math.round(rect.width * ratio));
    canvas.height = Math.max(1, Math.round(rect.height * ratio));
    ctx = canvas.getContext("2d");
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.fillStyle = "#ffffff";
    ctx.fillRect(0, 0, rect.width, rect.height);
    ctx.lineWidth = 2.6;
    ctx.lineCap = "round";
    ctx.lineJoin = "round";
    ctx.strokeStyle = "#0d1b22";
    inked = false;
  }

  const point = (e) => { const r = canvas.getBoundingClientRect(); return { x: e.clientX - r.left, y: e.clientY - r.top }; };
  canvas.addEventListener("pointerdown", (e) => {
    if (!ctx) setup();
    drawing = true;
    last = point(e);
    canvas.setPointerCapture(e.pointerId);
    e.preventDefault();
  });
  canvas.addEventListener("pointermove", (e) => {
    if (!drawing) return;
    const p = point(e);
    ctx.beginPath();
    ctx.moveTo(last.x, last.y);
    ctx.lineTo(p.x, p.y);
    ctx.stroke();
    last = p;
    inked = true;
  });
  const stop = () => { drawing = false; };
  canvas.addEventListener("pointerup", stop);
  canvas.addEventListener("pointercancel", stop);

  const clear = h("button.small", { type: "button", onclick: () => setup() }, "Clear signature");
  const el = h("div.field", h("label", labelText), canvas, h("div.actions", clear),
    h("p.hint", hintText));
  // Sized after it is in the document, so the drawing buffer matches what is on screen.
  requestAnimationFrame(() => { if (!ctx) setup(); });
  return {
    el,
    hasInk: () => inked,
    clear: () => setup(),
    png: () => new Promise((resolve) => canvas.toBlob(async (blob) => resolve(await blob.arrayBuffer()), "image/png")),
  };
}
