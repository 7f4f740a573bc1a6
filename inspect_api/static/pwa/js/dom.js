// DOM helpers. Everything is built with createElement and textContent: no innerHTML with data, no
// inline style or script (the Content-Security-Policy forbids both).

import { TOWN_ZONE, fmtTownDate, townDate } from "./rules/town.js";

// h("button.primary", {type: "button", onclick: fn, "aria-label": "..."}, "text", child, [children])
export function h(tag, attrs, ...children) {
  const [name, ...classes] = tag.split(".");
  const el = name.startsWith("svg:")
    ? document.createElementNS("http://www.w3.org/2000/svg", name.slice(4))
    : document.createElement(name || "div");
  if (classes.length) el.setAttribute("class", classes.join(" "));
  if (attrs && (typeof attrs !== "object" || attrs instanceof Node || Array.isArray(attrs))) {
    children.unshift(attrs);
    attrs = null;
  }
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value);
    else if (key === "class") el.setAttribute("class", [el.getAttribute("class"), value].filter(Boolean).join(" "));
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key === "value" && "value" in el) el.value = value;
    else if (key === "checked" || key === "selected" || key === "disabled" || key === "hidden") el[key] = Boolean(value);
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  append(el, children);
  if (name === "table") stackable(el);
  return el;
}

// A table with a header row reads, on a phone, as one block per row, each cell under its column's name
// (app.css, "stacks"): at 320 px four columns would split every word. The roles keep it a table for
// screen readers, which lose a table's semantics once its parts are display: block.
function stackable(table) {
  const heads = table.tHead ? Array.from(table.tHead.rows[0] ? table.tHead.rows[0].cells : [], (c) => c.textContent.trim()) : [];
  if (!heads.length) return;
  table.classList.add("stacks");
  table.setAttribute("role", "table");
  for (const group of [table.tHead, ...table.tBodies]) group.setAttribute("role", "rowgroup");
  for (const th of table.tHead.rows[0].cells) th.setAttribute("role", "columnheader");
  for (const body of table.tBodies) {
    for (const row of body.rows) {
      row.setAttribute("role", "row");
      Array.from(row.cells).forEach((cell, i) => {
        cell.setAttribute("role", cell.tagName === "TH" ? "rowheader" : "cell");
        if (heads[i]) cell.dataset.label = heads[i];
      });
    }
  }
  table.tHead.rows[0].setAttribute("role", "row");
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export function mount(target, ...children) {
  target.replaceChildren();
  append(target, children);
  return target;
}

let fieldCounter = 0;
export function fieldId(prefix = "f") {
  fieldCounter += 1;
  return `${prefix}-${fieldCounter}`;
}

// A labelled field: the label is tied to the control by id, so screen readers and tests find it.
export function field(label, control, hint) {
  if (!control.id) control.id = fieldId();
  const hintEl = hint ? h("p.hint", { id: control.id + "-hint" }, hint) : null;
  if (hintEl) control.setAttribute("aria-describedby", hintEl.id);
  return h("div.field", h("label", { for: control.id }, label), control, hintEl);
}

export function select(options, value, attrs = {}) {
  return h("select", attrs, options.map(([v, text]) => h("option", { value: v, selected: v === value }, text)));
}

export function banner(kind, ...text) {
  return h(`div.banner.${kind}`, { role: kind === "error" || kind === "danger" ? "alert" : "status" }, ...text);
}

// What happened, told on the screen the user is sent to next ("Inspection approved"): that screen
// reads it once, so a later visit does not repeat it.
let nextMessage = null;
export function tellNext(kind, ...text) { nextMessage = { kind, text }; }
export function toldNow() {
  const told = nextMessage;
  nextMessage = null;
  return told ? banner(told.kind, ...told.text) : null;
}

export function uuid() {
  return crypto.randomUUID();
}

// Dates and times are shown on the Town's clock (rules/town.js), whatever zone the device is set to.
const timeFmt = new Intl.DateTimeFormat("en-US", { timeZone: TOWN_ZONE, month: "short", day: "numeric", hour: "numeric", minute: "2-digit" });

export function fmtDate(value) {
  // A bare YYYY-MM-DD is a calendar date: shown as written, not shifted by any time zone.
  return fmtTownDate(value);
}

export function fmtTime(value) {
  if (!value) return "—";
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? String(value) : timeFmt.format(d);
}

export function ago(value) {
  if (!value) return "never";
  const s = Math.round((Date.now() - new Date(value).getTime()) / 1000);
  if (s < 45) return "just now";
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86400) return `${Math.round(s / 3600)} h ago`;
  return fmtTime(value);
}

export function nowIso() {
  return new Date().toISOString();
}

// The Town's calendar day of an instant (today without one): the day a deadline, an observation or a
// default date is counted on, as the server counts it (R-I4).
export function localDate(d = new Date()) {
  return townDate(d);
}

// The day `days` from today on this device, as YYYY-MM-DD.
export function plusDays(days) {
  const d = new Date();
  d.setDate(d.getDate() + days);
  return localDate(d);
}

// The value for <input type=datetime-local> in the device's zone, and back to RFC 3339.
export function toLocalInput(iso) {
  const d = iso ? new Date(iso) : new Date();
  const pad = (n) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

export function fromLocalInput(value) {
  return value ? new Date(value).toISOString() : null;
}

// Money as the Town writes it: $30,000.00. The API sends amounts as decimal strings.
const moneyFmt = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", minimumFractionDigits: 2 });
export function money(value) {
  if (value === null || value === undefined || value === "") return "—";
  const n = Number(value);
  return Number.isFinite(n) ? moneyFmt.format(n) : String(value);
}

// Asks once, in words, before something that cannot be undone. Resolves true when confirmed.
// A <dialog> (not window.confirm) so the text is readable, large and testable in every engine.
export function confirmAction({ title, body, confirm, danger = false }) {
  return new Promise((resolve) => {
    const dialog = h("dialog.confirm", { "aria-labelledby": "confirm-title" });
    const done = (answer) => { dialog.close(); dialog.remove(); resolve(answer); };
    mount(dialog, h("h2", { id: "confirm-title" }, title), (Array.isArray(body) ? body : [body]).map((p) => h("p", p)),
      h("div.actions",
        h(`button.${danger ? "danger.solid" : "primary"}`, { type: "button", dataset: { confirm: "yes" }, onclick: () => done(true) }, confirm),
        h("button", { type: "button", dataset: { confirm: "no" }, onclick: () => done(false) }, "Cancel")));
    dialog.addEventListener("cancel", (e) => { e.preventDefault(); done(false); });
    document.body.append(dialog);
    dialog.showModal();
  });
}

// Codes whose words are not the code with spaces: hyphenated kinds and the documents' own names.
const WORDS = { pre_construction: "Pre-construction", post_installation: "Post-installation",
  follow_up: "Follow-up", re_inspection: "Re-inspection", storm_event: "Storm event", as_built_plan: "As-built plan",
  esc_plan: "ESC plan", om_plan: "O&M plan", om_documentation: "O&M records", n_a: "N/A" };

export function label(key) {
  const code = String(key || "");
  return WORDS[code] || code.replaceAll("_", " ").replace(/^./, (c) => c.toUpperCase());
}

export function plural(n, one, many = one + "s") {
  return `${n} ${n === 1 ? one : many}`;
}
