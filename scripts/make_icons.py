"""Draws the app icon once as SVG and as PNGs (Pillow) from the same geometry.

Run from anywhere: `python scripts/make_icons.py`; it writes into inspect_api/static/pwa/icons/. The output
is committed; rerun only when the drawing changes (then bump inspect_api/static/pwa/version.js so devices fetch the new icons).
"""
from __future__ import annotations

import math
from pathlib import Path

from PIL import Image, ImageDraw

HERE = Path(__file__).resolve().parent.parent / "inspect_api" / "static" / "pwa" / "icons"
BACKGROUND, DROP, WAVE, MARK = "#0b4f6c", "#ffffff", "#7fd1e8", "#0b4f6c"
SIZE = 512


def drop_polygon(scale: float = 1.0, steps: int = 96) -> list[tuple[float, float]]:
    """A raindrop: a circle (centre 256,292 r 118) closed by the two tangents from the apex (256,72)."""
    cx, cy, r, ax, ay = 256, 292, 118, 256, 72
    d = cy - ay
    half = math.asin(r / d)  # the tangent points sit this far above the centre's horizontal
    points = [(ax, ay)]
    # The arc runs from the right tangent point, round the bottom, to the left one (y grows down).
    for i in range(steps + 1):
        a = -half + (math.pi + 2 * half) * i / steps
        points.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    return [_scaled(p, scale) for p in points]


def wave_points(scale: float = 1.0) -> list[tuple[float, float]]:
    return [_scaled((x, 452 + 14 * math.sin((x - 64) / 384 * 3 * math.pi)), scale) for x in range(64, 449, 8)]


def check_points(scale: float = 1.0) -> list[tuple[float, float]]:
    return [_scaled(p, scale) for p in ((200, 296), (240, 338), (316, 252))]


def _scaled(p: tuple[float, float], scale: float) -> tuple[float, float]:
    return (256 + (p[0] - 256) * scale, 256 + (p[1] - 256) * scale)


def svg() -> str:
    def path(points, close=False):
        d = "M" + " L".join(f"{x:.1f} {y:.1f}" for x, y in points)
        return d + (" Z" if close else "")
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 512 512" role="img" aria-label="Stormwater field app">\n'
        f'  <rect width="512" height="512" rx="96" fill="{BACKGROUND}"/>\n'
        f'  <path d="{path(drop_polygon(), True)}" fill="{DROP}"/>\n'
        f'  <path d="{path(check_points())}" fill="none" stroke="{MARK}" stroke-width="30" '
        'stroke-linecap="round" stroke-linejoin="round"/>\n'
        f'  <path d="{path(wave_points())}" fill="none" stroke="{WAVE}" stroke-width="22" stroke-linecap="round"/>\n'
        '</svg>\n')


def png(size: int, *, maskable: bool = False) -> Image.Image:
    ss = 4  # draw large, then downscale: cheap anti-aliasing
    k = size * ss / SIZE
    image = Image.new("RGBA", (size * ss, size * ss), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    scale = 0.78 if maskable else 1.0  # maskable icons keep their drawing in the central safe zone
    if maskable:
        draw.rectangle((0, 0, size * ss, size * ss), fill=BACKGROUND)
    else:
        draw.rounded_rectangle((0, 0, size * ss - 1, size * ss - 1), radius=96 * k, fill=BACKGROUND)

    def px(points):
        return [(x * k, y * k) for x, y in points]
    draw.polygon(px(drop_polygon(scale)), fill=DROP)
    _line(draw, px(check_points(scale)), MARK, 30 * k * scale)
    _line(draw, px(wave_points(scale)), WAVE, 22 * k * scale)
    return image.resize((size, size), Image.LANCZOS)


def _line(draw: ImageDraw.ImageDraw, points, colour: str, width: float) -> None:
    draw.line(points, fill=colour, width=round(width), joint="curve")
    r = width / 2
    for x, y in (points[0], points[-1]):
        draw.ellipse((x - r, y - r, x + r, y + r), fill=colour)


def main() -> None:
    (HERE / "icon.svg").write_text(svg(), encoding="utf-8")
    png(192).save(HERE / "icon-192.png", optimize=True)
    png(512).save(HERE / "icon-512.png", optimize=True)
    png(512, maskable=True).save(HERE / "maskable-512.png", optimize=True)


if __name__ == "__main__":
    main()
