// The markup model (js/ui/shapes.js) at its edges: points as fractions of the image, the API's limits
// on points, labels and shapes, and a freehand line thinned to at most 2000 points.
import { test } from "node:test";
import assert from "node:assert/strict";

import { MAX_POINTS, MAX_SHAPES, arrowHead, clean, describe, fraction, shapeProblem, shapesProblem, thin, tooSmall }
  from "../../inspect_api/static/pwa/js/ui/shapes.js";

const red = "#ff2a1a";

test("points are fractions of the image, rounded to 4 places and kept inside it", () => {
  assert.deepEqual(fraction([0.123456, 0.99999]), [0.1235, 1]);
  assert.deepEqual(fraction([-0.2, 1.7]), [0, 1]);
  assert.deepEqual(clean({ kind: "text", points: [[0.5, 0.5]], text: "  Silt fence down ", colour: "#FF2A1A", extra: 1 }),
    { kind: "text", points: [[0.5, 0.5]], text: "Silt fence down", colour: red });
});

test("each kind's points and text, at the limits", () => {
  assert.equal(shapeProblem({ kind: "arrow", points: [[0, 0], [1, 1]], colour: red }), null);
  assert.match(shapeProblem({ kind: "arrow", points: [[0, 0]], colour: red }), /two points/);
  assert.match(shapeProblem({ kind: "circle", points: [[0, 0], [1, 1.0001]], colour: red }), /outside/);
  assert.match(shapeProblem({ kind: "circle", points: [[0, 0], [1, 1]], colour: "red" }), /colour/);
  assert.match(shapeProblem({ kind: "square", points: [[0, 0], [1, 1]], colour: red }), /Unknown/);
  const line = (n) => ({ kind: "freehand", points: Array.from({ length: n }, (_, i) => [i / n, 0.5]), colour: red });
  assert.match(shapeProblem(line(1)), /2 to 2000/);
  assert.equal(shapeProblem(line(2)), null);
  assert.equal(shapeProblem(line(MAX_POINTS)), null);
  assert.match(shapeProblem(line(MAX_POINTS + 1)), /2 to 2000/);
  const label = (text) => ({ kind: "text", points: [[0.2, 0.2]], text, colour: red });
  assert.equal(shapeProblem(label("x")), null);
  assert.equal(shapeProblem(label("x".repeat(200))), null);
  assert.match(shapeProblem(label("x".repeat(201))), /1 to 200/);
  assert.match(shapeProblem(label("   ")), /1 to 200/);
  const arrows = (n) => Array.from({ length: n }, () => ({ kind: "arrow", points: [[0, 0], [1, 1]], colour: red }));
  assert.equal(shapesProblem(arrows(MAX_SHAPES)), null);
  assert.match(shapesProblem(arrows(MAX_SHAPES + 1)), /At most 100/);
});

test("a freehand line is thinned: close points dropped, the end kept, never over 2000 points", () => {
  const dense = Array.from({ length: 1001 }, (_, i) => [i / 1000, 0.5]);
  const thinned = thin(dense);
  assert.ok(thinned.length < 400, thinned.length);
  assert.deepEqual(thinned[0], [0, 0.5]);
  assert.deepEqual(thinned[thinned.length - 1], [1, 0.5]);
  const zigzag = Array.from({ length: 9000 }, (_, i) => [(i % 100) / 100, Math.floor(i / 100) / 90]);
  const capped = thin(zigzag, 0);
  assert.ok(capped.length <= MAX_POINTS && capped.length > 1000, capped.length);
  assert.deepEqual(capped[capped.length - 1], fraction(zigzag[zigzag.length - 1]));
});

test("a tap with the arrow or circle tool is not a shape; the arrow's head points along it", () => {
  assert.ok(tooSmall([0.5, 0.5], [0.505, 0.5]));
  assert.ok(!tooSmall([0.5, 0.5], [0.52, 0.5]));
  const [tip, a, b] = arrowHead([0, 0], [10, 0], 2);
  assert.deepEqual(tip, [10, 0]);
  assert.ok(a[0] < 10 && b[0] < 10 && a[1] * b[1] < 0);
});

test("a markup in words for a screen reader", () => {
  assert.equal(describe([{ kind: "arrow" }, { kind: "arrow" }, { kind: "circle" }, { kind: "text", text: "Plume" }]),
    "2 arrows, 1 circle, label “Plume”");
});

test("a label is one line, and one markup holds at most 20,000 points in all", () => {
  const label = (text) => ({ kind: "text", points: [[0.2, 0.2]], text, colour: red });
  assert.match(shapeProblem(label("two\nlines")), /one line/);
  assert.match(shapeProblem(label("tab\there")), /one line/);
  const line = { kind: "freehand", points: Array.from({ length: 2000 }, (_, i) => [i / 2000, 0.5]), colour: red };
  assert.equal(shapesProblem(Array(10).fill(line)), null);
  assert.match(shapesProblem([...Array(10).fill(line), { kind: "arrow", points: [[0, 0], [1, 1]], colour: red }]), /Too much/);
});
