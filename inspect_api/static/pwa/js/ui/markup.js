// The viewer's markup tools: arrow, circle (an ellipse dragged as a box), freehand, a text label typed
// then placed with a tap, a colour, undo, clear, save and cancel. Works on points given as fractions of
// the image (the viewer converts the pointer); knows nothing of storage: `save(shapes)` does.
import { h } from "../dom.js";
import { COLOURS, MAX_SHAPES, MAX_TEXT, clean, shapesProblem, thin, tooSmall } from "./shapes.js";

const TOOLS = [["arrow", "Arrow"], ["circle", "Circle"], ["freehand", "Freehand"], ["text", "Text"]];

// `initial`: the user's saved shapes; `redraw(shapes)`: draws the working copy; `save(shapes)` and
// `cancel()` end the markup.
export function markupTools({ initial, redraw, save, cancel }) {
  let shapes = (initial || []).map((s) => ({ ...s, points: s.points.map((p) => [...p]) }));
  const start = JSON.stringify(shapes);
  let tool = "arrow";
  let colour = COLOURS[0].value;
  let drawing = null;

  const status = h("p.hint.markup-status", { role: "status", "aria-live": "polite" });
  const say = (text) => { status.textContent = text; };
  const text = h("input", { type: "text", maxlength: MAX_TEXT, "aria-label": "Label text", placeholder: "Label text, then tap the photo" });
  const textField = h("div.markup-text", { hidden: true }, text);

  const pressed = (buttons, value) => buttons.forEach((b) => b.setAttribute("aria-pressed", String(b.dataset.value === value)));
  const toolButtons = TOOLS.map(([value, name]) => h("button.tool", { type: "button", dataset: { value, tool: value },
    onclick: () => { tool = value; pressed(toolButtons, value); textField.hidden = value !== "text";
      say(value === "text" ? "Type the label, then tap where it goes." : `${name}: drag on the photo.`);
      if (value === "text") text.focus(); } }, name));
  const colourButtons = COLOURS.map((c) => h("button.colour", { type: "button", dataset: { value: c.value, colour: c.name.toLowerCase() },
    onclick: () => { colour = c.value; pressed(colourButtons, c.value); } },
  h(`span.swatch.swatch-${c.name.toLowerCase()}`, { "aria-hidden": "true" }), c.name));
  pressed(toolButtons, tool);
  pressed(colourButtons, colour);

  const show = () => redraw(drawing ? [...shapes, drawing] : shapes);
  const room = () => {
    if (shapes.length < MAX_SHAPES) return true;
    say(`At most ${MAX_SHAPES} marks on one photo: undo one first.`);
    return false;
  };

  function down(p) {
    if (!room()) return;
    if (tool === "text") {
      const words = text.value.trim();
      if (!words) { say("Type the label's text first, then tap where it goes."); text.focus(); return; }
      shapes.push({ kind: "text", points: [p], text: words, colour });
      text.value = "";
      say(`Label “${words}” placed.`);
      show();
      return;
    }
    drawing = { kind: tool, points: [p, p], colour };
    if (tool === "freehand") drawing.points = [p];
    show();
  }

  function move(p) {
    if (!drawing) return;
    if (drawing.kind === "freehand") drawing.points.push(p);
    else drawing.points[1] = p;
    show();
  }

  function up(p) {
    if (!drawing) return;
    if (p) move(p);
    const shape = drawing;
    drawing = null;
    if (shape.kind === "freehand") shape.points = thin(shape.points);
    const ok = shape.kind === "freehand" ? shape.points.length >= 2 : !tooSmall(shape.points[0], shape.points[1]);
    if (ok) { shapes.push(shape); say(`${shape.kind === "freehand" ? "Line" : shape.kind === "arrow" ? "Arrow" : "Circle"} added.`); }
    show();
  }

  const undo = () => { if (shapes.pop()) { say("Last mark removed."); show(); } };
  const clear = () => { if (shapes.length) { shapes = []; say("All your marks removed; save to keep it so."); show(); } };
  const done = async (button) => {
    const out = shapes.map(clean);
    const problem = shapesProblem(out);
    if (problem) { say(problem); return; }
    button.disabled = true;
    try { await save(out); } finally { button.disabled = false; }
  };
  const saveButton = h("button.primary", { type: "button", dataset: { markup: "save" }, onclick: (e) => done(e.currentTarget) }, "Save markup");

  const el = h("div.markup-tools",
    h("div.markup-group", { role: "group", "aria-label": "Tool" }, toolButtons),
    textField,
    h("div.markup-group", { role: "group", "aria-label": "Colour" }, colourButtons),
    h("div.markup-group", { role: "group", "aria-label": "Markup actions" },
      h("button", { type: "button", dataset: { markup: "undo" }, onclick: undo }, "Undo"),
      h("button", { type: "button", dataset: { markup: "clear" }, onclick: clear }, "Clear"),
      saveButton,
      h("button", { type: "button", dataset: { markup: "cancel" }, onclick: () => cancel() }, "Cancel")),
    status);
  show();
  say("Arrow: drag on the photo from the tail to the point.");
  return { el, down, move, up, dirty: () => JSON.stringify(shapes) !== start, focus: () => toolButtons[0].focus() };
}
