// The shapes of a photo's markup, as the API keeps them (API.md, "Photo annotations"): each an arrow,
// a circle, a freehand line or a text label, its points as fractions (0..1) of the image's width and
// height, so a markup fits the photo at any size. Pure: no DOM, no storage (tests/js/shapes.test.js).
export const KINDS = ["arrow", "circle", "freehand", "text"];
export const MAX_SHAPES = 100;
export const MAX_POINTS = 2000;
export const MAX_TEXT = 200;
export const MAX_ALL_POINTS = 20000;  // all the shapes of one markup together

// A few colours that stand out on a site photo (mud, grass, sky), each with the name a screen reader says.
export const COLOURS = [
  { name: "Red", value: "#ff2a1a" },
  { name: "Yellow", value: "#ffe600" },
  { name: "Cyan", value: "#00e5ff" },
  { name: "White", value: "#ffffff" },
  { name: "Black", value: "#000000" },
];

export const colourName = (value) => (COLOURS.find((c) => c.value === String(value).toLowerCase()) || { name: value }).name;

// A character a one-line label may not hold (as the server's rule: C0, DEL, C1, line and paragraph separators).
const control = (c) => { const n = c.codePointAt(0); return n < 0x20 || (n >= 0x7f && n <= 0x9f) || n === 0x2028 || n === 0x2029; };
const clamp = (v) => Math.min(1, Math.max(0, v));
const round = (v) => Math.round(clamp(v) * 10000) / 10000;
export const fraction = ([x, y]) => [round(x), round(y)];

// A freehand line as drawn (one point per pointer event) thinned to what the eye sees: a point is kept
// only once it is `step` (a fraction of the image) from the last one kept, and the last point always;
// a line still longer than MAX_POINTS keeps every n-th point.
export function thin(points, step = 0.003) {
  const kept = [];
  for (const p of points.map(fraction)) {
    const last = kept[kept.length - 1];
    if (!last || Math.hypot(p[0] - last[0], p[1] - last[1]) >= step) kept.push(p);
  }
  const end = points.length ? fraction(points[points.length - 1]) : null;
  const last = kept[kept.length - 1];
  if (end && (end[0] !== last[0] || end[1] !== last[1])) kept.push(end);
  if (kept.length <= MAX_POINTS) return kept;
  const every = Math.ceil(kept.length / (MAX_POINTS - 1));
  const out = kept.filter((_, i) => i % every === 0);
  out.push(kept[kept.length - 1]);
  return out.slice(0, MAX_POINTS);
}

// Why a shape cannot be kept (a sentence), or null when it can: the API's rules, checked before saving.
export function shapeProblem(shape) {
  if (!shape || !KINDS.includes(shape.kind)) return "Unknown kind of mark.";
  const points = shape.points || [];
  const inside = points.every((p) => Array.isArray(p) && p.length === 2 && p.every((v) => Number.isFinite(v) && v >= 0 && v <= 1));
  if (!inside) return "A mark lies outside the photo.";
  if (!/^#[0-9a-f]{6}$/i.test(shape.colour || "")) return "A mark has no colour.";
  if ((shape.kind === "arrow" || shape.kind === "circle") && points.length !== 2) return `An ${shape.kind} needs two points.`;
  if (shape.kind === "freehand" && (points.length < 2 || points.length > MAX_POINTS)) return "A freehand line needs 2 to 2000 points.";
  if (shape.kind === "text") {
    const text = (shape.text || "").trim();
    if (points.length !== 1) return "A label is placed at one point.";
    if (!text || text.length > MAX_TEXT) return `A label holds 1 to ${MAX_TEXT} characters.`;
    if ([...text].some(control)) return "A label is one line of text.";
  }
  return null;
}

export function shapesProblem(shapes) {
  if (shapes.length > MAX_SHAPES) return `At most ${MAX_SHAPES} marks on one photo.`;
  if (shapes.reduce((n, s) => n + (s.points || []).length, 0) > MAX_ALL_POINTS) return "Too much drawn on one photo: undo a long line or two.";
  for (const s of shapes) { const p = shapeProblem(s); if (p) return p; }
  return null;
}

// A drag too short to mean anything (a tap on the arrow or circle tool) is not a shape.
export function tooSmall(a, b, min = 0.01) {
  return Math.hypot(b[0] - a[0], b[1] - a[1]) < min;
}

// The shape as the API takes it: only its own fields, points rounded to 4 places.
export function clean(shape) {
  const out = { kind: shape.kind, points: shape.points.map(fraction), colour: String(shape.colour).toLowerCase() };
  if (shape.kind === "text") out.text = String(shape.text).trim();
  return out;
}

const NOUN = { arrow: ["arrow", "arrows"], circle: ["circle", "circles"], freehand: ["freehand line", "freehand lines"], text: ["label", "labels"] };

// "2 arrows, 1 circle, label “Silt fence down”": what a screen reader hears about a markup.
export function describe(shapes) {
  const parts = [];
  for (const kind of KINDS) {
    const of = shapes.filter((s) => s.kind === kind);
    if (!of.length) continue;
    if (kind === "text") parts.push(...of.map((s) => `label “${s.text}”`));
    else parts.push(`${of.length} ${NOUN[kind][of.length === 1 ? 0 : 1]}`);
  }
  return parts.join(", ");
}

// The arrow's head: a triangle at `head` pointing away from `tail`, in the same units as the points.
export function arrowHead(tail, head, size) {
  const angle = Math.atan2(head[1] - tail[1], head[0] - tail[0]);
  const wing = (turn) => [head[0] - size * Math.cos(angle + turn), head[1] - size * Math.sin(angle + turn)];
  return [head, wing(Math.PI / 7), wing(-Math.PI / 7)];
}
