"""Photo markup as pure functions: what a shape may be, who may draw on a photo, and when a photo
takes no more markup (API.md `photo_annotation`; DOMAIN.md "Evidence"). No database, no Flask.

A shape is `{kind, points, text?, colour}`. Points are `[x, y]` pairs, each a fraction in [0, 1] of
the image's width (x, from the left) and height (y, from the top) as displayed (EXIF orientation
applied), so one markup fits the original and every rendition.
- arrow: exactly 2 points, tail then head;
- circle: exactly 2 points, opposite corners of the ellipse's bounding box;
- freehand: 2 to 2,000 points, a polyline in drawing order;
- text: exactly 1 point, the anchor: the label starts there, centred on it vertically; `text` (1 to
  200 characters, one line) is required for a text and refused for every other kind.
`colour` is "#rrggbb". One annotation holds up to 100 shapes and at most 20,000 points in all (a push
of the most a record may hold stays well inside a request body). A markup whose author erased every
shape is kept with none: it draws nothing and counts as no markup (annotated image, reports).

Rights: marking up a photo is evidence about the photo's record, so it takes the right to add that
photo (photos.parent_rules.may_attach: an assigned inspector or a supervisor on field records; the
applicant or a supervisor on a completion notice). An annotation is changed or deleted by its author
(still holding that right) or a supervisor. A photo whose record is locked (an approved inspection, a
closed finding or one of an approved inspection, a revoked authorization, an accepted notice, a
closed permit) takes no new, changed or deleted markup except from a supervisor: markup never alters
the evidence, and the office may still point at what an approved record shows.
"""
from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from . import parent_rules

KINDS = ("arrow", "circle", "freehand", "text")
# kind -> (fewest, most) points
POINTS = {"arrow": (2, 2), "circle": (2, 2), "freehand": (2, 2000), "text": (1, 1)}
MAX_POINTS_PER_SHAPE = max(most for _fewest, most in POINTS.values())
MAX_SHAPES = 100
MAX_POINTS = 20_000
MAX_TEXT = 200
COLOUR_PATTERN = "^#[0-9a-fA-F]{6}$"
_COLOUR = re.compile(COLOUR_PATTERN)
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")

_WHAT = {"arrow": "An arrow has exactly 2 points: its tail, then its head.",
         "circle": "A circle has exactly 2 points: opposite corners of its bounding box.",
         "freehand": f"A freehand line has 2 to {POINTS['freehand'][1]} points.",
         "text": "A text label has exactly 1 point: where it starts (centred on it vertically)."}


def point_problem(point: Any) -> str | None:
    """Why `point` is no [x, y] pair of fractions in [0, 1] (None when it is one)."""
    if not isinstance(point, (list, tuple)) or len(point) != 2:
        return "A point is an [x, y] pair."
    for value in point:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
            return "Each coordinate is a number from 0 to 1 (a fraction of the image's width or height)."
    return None


def shape_problems(shape: dict[str, Any]) -> dict[str, list[str]]:
    """Field errors of one shape whose fields are each well formed on their own: the number of
    points its kind takes, and its text (required for a label, refused for every other kind)."""
    kind, points, text = shape.get("kind"), shape.get("points") or [], shape.get("text")
    problems: dict[str, list[str]] = {}
    if kind not in POINTS:
        return problems
    fewest, most = POINTS[kind]
    if not fewest <= len(points) <= most:
        problems["points"] = [_WHAT[kind]]
    if kind == "text":
        if text is None:
            problems["text"] = ["A text label needs its text."]
        elif not text.strip():
            problems["text"] = ["A text label needs some text, not only spaces."]
        elif _CONTROL.search(text):
            problems["text"] = ["One line of text, without line breaks or control characters."]
    elif text is not None:
        problems["text"] = [f"Only a text label has text; this is a{'n' if kind == 'arrow' else ''} {kind}."]
    return problems


def total_points_problem(shapes: list[dict[str, Any]]) -> str | None:
    total = sum(len(shape.get("points") or []) for shape in shapes)
    if total > MAX_POINTS:
        return f"At most {MAX_POINTS} points in one annotation, all shapes together; this one has {total}."
    return None


def normalised(shapes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The shapes as stored and answered: colours in lower case, points as floats, text only on labels."""
    out = []
    for shape in shapes:
        item = {"kind": shape["kind"], "points": [[float(x), float(y)] for x, y in shape["points"]],
                "colour": shape["colour"].lower()}
        if shape["kind"] == "text":
            item["text"] = shape["text"]
        out.append(item)
    return out


def may_mark_up(parent_type: str | None, role: str, *, assigned: bool, owns_permit: bool) -> bool:
    """May a user of `role` draw on a photo whose record is of `parent_type`? The right to add it."""
    return parent_rules.may_attach(parent_type, role, assigned=assigned, owns_permit=owns_permit)


def may_change(role: str, *, author: bool) -> bool:
    """May this user change or delete an existing annotation (its author, or a supervisor)?"""
    return role == "supervisor" or author


def refused_by_lock(role: str, *, locked: bool) -> bool:
    """A locked record's photo takes markup only from supervisors."""
    return locked and role != "supervisor"


def refusal(parent_type: str | None, role: str) -> str:
    """Why may_mark_up said no, in words for the 403 message."""
    if role == "inspector" and parent_type in parent_rules.FIELD_PARENTS:
        return "You are not assigned to this site; ask a supervisor to assign you before marking up its photos."
    if parent_type in parent_rules.FIELD_PARENTS:
        return "Only inspectors assigned to the site and supervisors mark up its field photos."
    if parent_type in parent_rules.FILED_PARENTS:
        return (f"Only the permit's applicant and supervisors mark up the photos of a "
                f"{parent_rules.words(parent_type)}.")
    return "Your role may not mark up this permit's photos."


def summary(shapes: list[dict[str, Any]]) -> dict[str, Any]:
    """What an audit row keeps of a markup: how many shapes of each kind, the labels' text and the
    colours, and the SHA-256 of the shapes as stored (canonical JSON), which names this exact drawing
    without copying every point into the log."""
    canonical = json.dumps(shapes, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    kinds = {kind: sum(1 for s in shapes if s["kind"] == kind) for kind in KINDS}
    return {"shapes": {kind: n for kind, n in kinds.items() if n},
            "points": sum(len(s["points"]) for s in shapes),
            "texts": [s["text"] for s in shapes if s["kind"] == "text"],
            "colours": sorted({s["colour"] for s in shapes}),
            "shapes_sha256": hashlib.sha256(canonical.encode("utf-8")).hexdigest()}
