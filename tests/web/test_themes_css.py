"""The field app's three themes in css/app.css: every colour is a variable set once per theme (light on
:root, dark, outdoor), one dark palette serves a dark choice and a dark device alike, each theme
sets every colour the light one does, and the pairs the screens draw text with meet each theme's contrast
(AA 4.5:1 in light; 7:1 in dark and outdoor, outdoor being WCAG AAA). The browser tests check the screens
themselves with axe-core (tests/browser/test_accessibility.py, test_themes.py)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

CSS_DIR = Path(__file__).resolve().parents[2] / "inspect_api" / "static" / "pwa" / "css"
CSS = (CSS_DIR / "app.css").read_text()
TEXT = re.sub(r"/\*.*?\*/", "", CSS, flags=re.DOTALL)

BLOCKS = {
    "light": r"^:root \{(.*?)^\}",
    "dark": r'^:root\[data-theme="dark"\] \{(.*?)^\}',
    "outdoor": r'^:root\[data-theme="outdoor"\] \{(.*?)^\}',
}
COLOUR = re.compile(r"#[0-9a-fA-F]{3,8}\b|\b(?:rgba?|hsla?|hwb|lab|lch|oklab|oklch|color)\(|"
                    r"(?<![\w-])(?:white|black|red|green|blue|gray|grey|silver|orange|yellow|navy|maroon)(?![\w-])")


def block(name: str) -> str:
    found = re.findall(BLOCKS[name], TEXT, flags=re.DOTALL | re.MULTILINE)
    assert len(found) == 1, f"app.css should have exactly one {name} theme block, has {len(found)}"
    return found[0]


def palette(name: str) -> dict[str, str]:
    return {k: v.strip() for k, v in re.findall(r"(--[\w-]+)\s*:\s*([^;]+);", block(name))}


def colour_names(name: str) -> set[str]:
    """The colour variables a theme sets; --mark-* (the markup's colours, stored with each mark) are the same in all."""
    return {k for k, v in palette(name).items() if COLOUR.search(v) and not k.startswith("--mark-")}


def test_every_colour_is_a_theme_variable():
    rest = TEXT
    for name in BLOCKS:
        rest = re.sub(BLOCKS[name], "", rest, count=1, flags=re.DOTALL | re.MULTILINE)
    stray = [line.strip() for line in rest.splitlines() if COLOUR.search(line)]
    assert stray == [], "colours outside the theme blocks (make each a variable set in every theme):\n" + "\n".join(stray)


def test_the_check_finds_a_stray_colour():
    # The rule above is no formality: a literal colour in a rule is found.
    assert COLOUR.search(".x { border: 1px solid #7d8f98; }") and COLOUR.search("a { color: rgba(0, 0, 0, 0.5) }")
    assert COLOUR.search(".x { background: white; }")
    assert not COLOUR.search(".x { border: 2px solid transparent; color: currentColor; background: var(--bad-bg); white-space: nowrap; }")


def test_dark_is_one_block_that_following_the_device_also_uses():
    # One dark palette: no second copy under a prefers-color-scheme query for the script to drift from.
    assert "prefers-color-scheme" not in TEXT
    assert not [k for k in palette("dark") | palette("outdoor") if k.startswith("--mark-")]
    assert 'color-scheme: dark' in block("dark")
    boot = (CSS_DIR.parent / "js" / "theme_boot.js").read_text()
    assert 'matchMedia("(prefers-color-scheme: dark)")' in boot and 'dataset.theme = "dark"' in boot


@pytest.mark.parametrize("theme", ["dark", "outdoor"])
def test_each_theme_sets_every_colour(theme):
    assert colour_names("light") - colour_names(theme) == set()
    assert len(colour_names("light")) >= 40


def test_outdoor_targets_and_borders():
    outdoor = palette("outdoor")
    assert outdoor["--tap"] == outdoor["--tap-small"] == "56px"
    assert outdoor["--line"] == outdoor["--field-line"] == "#000000"
    assert outdoor["--border"] == "2px"
    # Every target size in the stylesheet goes through the variables, so the outdoor theme reaches them all.
    assert re.findall(r"min-(?:height|width):\s*4[0-9]px", TEXT) == []


def luminance(colour: str) -> float:
    value = colour.lstrip("#")
    channels = [int(value[i:i + 2], 16) / 255 for i in (0, 2, 4)]
    r, g, b = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


# (text, background) as app.css draws them: body and muted text, links and outlined buttons, chips and
# banners, filled answers and the top bar, the sync bar's words.
PAIRS = [("--ink", "--bg"), ("--ink", "--card"), ("--muted", "--bg"), ("--muted", "--card"), ("--brand", "--card"),
         ("--brand", "--bg"), ("--brand-ink", "--brand"), ("--ok", "--ok-bg"), ("--ok-ink", "--ok-bg"),
         ("--bad", "--bad-bg"), ("--bad-ink", "--bad-bg"), ("--warn", "--warn-bg"), ("--warn-ink", "--warn-bg"),
         ("--ink", "--warn-bg"), ("--na", "--na-bg"), ("--brand", "--chip-info-bg"), ("--ink", "--info-bg"),
         ("--on-strong", "--ok"), ("--on-strong", "--bad"), ("--on-strong", "--na"), ("--top-ink", "--top-bg"),
         ("--ink", "--bar-bg"), ("--muted", "--bar-bg"), ("--bad", "--bar-bg"), ("--brand", "--bar-bg"),
         ("--ink", "--hover-bg"), ("--ink", "--bad-tint"), ("--bad", "--card"), ("--ink", "--field-bg")]
LEAST = {"light": 4.5, "dark": 7.0, "outdoor": 7.0}


@pytest.mark.parametrize("theme", list(LEAST))
def test_text_contrast(theme):
    colours = palette("light") | palette(theme)
    low = [f"{fg} on {bg}: {contrast(colours[fg], colours[bg]):.2f}" for fg, bg in PAIRS
           if contrast(colours[fg], colours[bg]) < LEAST[theme]]
    assert low == []
    assert contrast("#767676", "#ffffff") < 7.0 < contrast("#595959", "#ffffff")  # the measure itself
