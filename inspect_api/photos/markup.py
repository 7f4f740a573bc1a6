"""Drawing photo markup onto a copy of a rendition (Pillow ImageDraw): the annotated image that
GET /photos/{id}/annotated answers and the report PDFs print. The original is never opened here, let
alone written: the input is the display rendition's bytes and the output is new JPEG bytes.

How a shape is drawn (as the field app's viewer draws the same vectors, js/ui/annotations.js):
- sizes follow the image's longer side: a stroke is 0.6% of it (at least 2 px), an arrow's head 6
  strokes long, a label's font (DejaVu Sans Bold, shipped in inspect_api/fonts) 3.5% of it;
- every mark is drawn first in a halo 2.2 strokes wide (black under a light colour, white under a
  dark one, by WCAG relative luminance) and then in its colour, so it reads on mud and on sky;
- an arrow is a line with a filled head at its second point; a circle is the ellipse inside the
  box of its two corners; freehand is a polyline with rounded joints and ends; a text label starts
  at its point, centred on it vertically, outlined in the halo colour.
"""
from __future__ import annotations

import io
import math
from functools import lru_cache
from typing import Any, Iterable

from PIL import Image, ImageDraw, ImageFont

from ..pdf import FONT_DIR

# Part of the renditions' keys: a change to how markup is drawn must make new images.
STYLE = "markup-1"
JPEG_QUALITY = 88


@lru_cache(maxsize=16)
def _font(size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(FONT_DIR / "DejaVuSans-Bold.ttf"), size)


def _rgb(colour: str) -> tuple[int, int, int]:
    value = colour.lstrip("#")
    return int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16)


def halo_of(colour: str) -> tuple[int, int, int]:
    """Black behind a light colour, white behind a dark one (relative luminance, WCAG 2)."""
    def linear(c: int) -> float:
        c = c / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (linear(c) for c in _rgb(colour))
    return (0, 0, 0) if 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.179 else (255, 255, 255)


class _Canvas:
    def __init__(self, image: Image.Image) -> None:
        self.image = image
        self.draw = ImageDraw.Draw(image)
        self.w, self.h = image.size
        unit = max(self.w, self.h)
        self.stroke = max(2, round(unit * 0.006))
        self.halo_width = max(self.stroke + 2, round(self.stroke * 2.2))
        self.font_size = max(10, round(unit * 0.035))

    def xy(self, point: Iterable[float]) -> tuple[float, float]:
        x, y = point
        return x * self.w, y * self.h

    def _dot(self, x: float, y: float, width: float, fill) -> None:
        r = width / 2
        self.draw.ellipse([x - r, y - r, x + r, y + r], fill=fill)

    def arrow(self, points: list, colour: str) -> None:
        (x0, y0), (x1, y1) = self.xy(points[0]), self.xy(points[1])
        angle = math.atan2(y1 - y0, x1 - x0)
        size = self.stroke * 6
        head = [(x1, y1)] + [(x1 - size * math.cos(angle + turn), y1 - size * math.sin(angle + turn))
                             for turn in (math.pi / 7, -math.pi / 7)]
        for fill, width in ((halo_of(colour), self.halo_width), (_rgb(colour), self.stroke)):
            self.draw.line([(x0, y0), (x1, y1)], fill=fill, width=width)
            self._dot(x0, y0, width, fill)
            self.draw.polygon(head, fill=fill, outline=fill, width=max(1, (width - self.stroke) // 2 + 1))

    def circle(self, points: list, colour: str) -> None:
        (x0, y0), (x1, y1) = self.xy(points[0]), self.xy(points[1])
        for fill, width in ((halo_of(colour), self.halo_width), (_rgb(colour), self.stroke)):
            # Pillow draws an outline inside its box: grow the box by half the width so the line is
            # centred on the ellipse, as an SVG stroke is.
            grow = width / 2
            box = [min(x0, x1) - grow, min(y0, y1) - grow, max(x0, x1) + grow, max(y0, y1) + grow]
            self.draw.ellipse(box, outline=fill, width=width)

    def freehand(self, points: list, colour: str) -> None:
        line = [self.xy(p) for p in points]
        for fill, width in ((halo_of(colour), self.halo_width), (_rgb(colour), self.stroke)):
            self.draw.line(line, fill=fill, width=width, joint="curve")
            for x, y in (line[0], line[-1]):
                self._dot(x, y, width, fill)

    def text(self, points: list, colour: str, text: str) -> None:
        self.draw.text(self.xy(points[0]), text, font=_font(self.font_size), anchor="lm", fill=_rgb(colour),
                       stroke_width=self.stroke, stroke_fill=halo_of(colour))


def draw(image: Image.Image, annotations: Iterable[list[dict[str, Any]]]) -> Image.Image:
    """A copy of `image` (RGB) with every annotation's shapes drawn on it, in order."""
    canvas = _Canvas(image.convert("RGB"))
    for shapes in annotations:
        for shape in shapes:
            if shape["kind"] == "text":
                canvas.text(shape["points"], shape["colour"], shape["text"])
            else:
                getattr(canvas, shape["kind"])(shape["points"], shape["colour"])
    return canvas.image


def annotated_jpeg(rendition: bytes, annotations: Iterable[list[dict[str, Any]]], *,
                   max_side: int | None = None) -> bytes:
    """JPEG bytes of the rendition (upright JPEG bytes) with the markup drawn at its size, then made
    at most `max_side` pixels on its longer side (a report's print size)."""
    with Image.open(io.BytesIO(rendition)) as source:
        image = draw(source, annotations)
    if max_side and max(image.size) > max_side:
        scale = max_side / max(image.size)
        image = image.resize((max(1, round(image.width * scale)), max(1, round(image.height * scale))),
                             Image.Resampling.LANCZOS)
    out = io.BytesIO()
    image.save(out, "JPEG", quality=JPEG_QUALITY, optimize=True)
    return out.getvalue()
