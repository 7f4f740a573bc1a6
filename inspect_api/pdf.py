"""The one way this application makes a PDF: every document the Town hands out (certificate of
completion, inspection report, enforcement order, §21D citation, lien certificate) is laid out here.

- reportlab's layout engine (platypus): text is set in Paragraphs that wrap by the width of the
  glyphs, and tables whose rows may continue on the next page; nothing is wrapped by counting
  characters, so a long name or a note in another script never runs off the page.
- One Unicode TrueType font, DejaVu Sans, shipped inside the package (inspect_api/fonts, with its
  licence): owners and violators are named as they write their names ("Nguyễn Văn Đức"), and units
  such as "µS/cm" print. The PDF core fonts (Helvetica) only cover Latin-1, and a font looked up on
  the host would make a document depend on the machine that printed it.
- `invariant=1`: reportlab stamps neither the rendering time nor a random document id, so one record
  at one version always renders to the same bytes.
- Every text taken from a record is escaped before it reaches a Paragraph, whose mini-markup would
  otherwise read "<" and "&" in a note as tags; control characters are dropped.
- What a document costs grows with its text, not with the square of it. One field prints at most
  MAX_FIELD_CHARS characters (the rest is cut, with a line saying how much). A long text is set as
  blocks of a few lines each (`text`), and a table row whose cells hold several blocks becomes one
  table row per block (drawn as one row): reportlab re-wraps the remainder of a paragraph, or of a
  cell, on every page it is split over, so one paragraph of 4,000 lines cost minutes, while blocks
  split only between themselves. Tables are LongTables, which measure only the rows that fit the
  page rather than every row left on each page.
"""
from __future__ import annotations

import io
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence
from xml.sax.saxutils import escape

from reportlab.lib import colors
from reportlab.lib.pagesizes import LETTER
from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
from reportlab.lib.units import inch
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.platypus import (ListFlowable, ListItem, LongTable, Paragraph, SimpleDocTemplate, Spacer, Table,
                                TableStyle)

TOWN = "Town of Fairhaven, Massachusetts"
AUTHORITY = "Stormwater Authority"
BYLAW = "Stormwater Management Bylaw, Chapter 194, Part 3"
FONT_DIR = Path(__file__).resolve().parent / "fonts"
FONT, FONT_BOLD = "DocSans", "DocSans-Bold"
PAGE = LETTER
# The most one field (a note, a description, a name) prints: four times the longest text any record
# accepts (8,000 characters), so only text that reached a record some other way is ever cut.
MAX_FIELD_CHARS = 20_000
# A block: at most this many lines and characters, so splitting one across a page costs little.
BLOCK_LINES = 24
BLOCK_CHARS = 2_000
__all__ = ["TOWN", "AUTHORITY", "BYLAW", "FONT", "FONT_BOLD", "PAGE", "MAX_FIELD_CHARS", "inch", "Styles", "styles",
           "bounded", "p", "text", "long_date", "pairs", "table", "bullets", "numbered", "spacer", "signature_block",
           "render"]


def register_fonts() -> None:
    """Register DejaVu Sans (regular and bold) once per process under the names every document uses."""
    if FONT in pdfmetrics.getRegisteredFontNames():
        return
    pdfmetrics.registerFont(TTFont(FONT, str(FONT_DIR / "DejaVuSans.ttf")))
    pdfmetrics.registerFont(TTFont(FONT_BOLD, str(FONT_DIR / "DejaVuSans-Bold.ttf")))
    # <b> inside a Paragraph maps to the bold face; there is no italic face shipped, so <i> stays upright.
    pdfmetrics.registerFontFamily(FONT, normal=FONT, bold=FONT_BOLD, italic=FONT, boldItalic=FONT_BOLD)


@dataclass(frozen=True)
class Styles:
    title: ParagraphStyle
    subtitle: ParagraphStyle
    heading: ParagraphStyle
    subheading: ParagraphStyle
    body: ParagraphStyle
    small: ParagraphStyle
    cell: ParagraphStyle
    cell_bold: ParagraphStyle
    caption: ParagraphStyle
    warning: ParagraphStyle


def styles() -> Styles:
    register_fonts()
    base = getSampleStyleSheet()
    body = ParagraphStyle("doc-body", parent=base["BodyText"], fontName=FONT, fontSize=10, leading=13.5)
    cell = ParagraphStyle("doc-cell", parent=base["Normal"], fontName=FONT, fontSize=8.5, leading=10.5)
    return Styles(
        title=ParagraphStyle("doc-title", parent=base["Title"], fontName=FONT_BOLD, fontSize=17, leading=21,
                             spaceAfter=4),
        subtitle=ParagraphStyle("doc-subtitle", parent=base["Normal"], fontName=FONT, fontSize=9.5,
                                textColor=colors.HexColor("#444444"), alignment=1),
        heading=ParagraphStyle("doc-h2", parent=base["Heading2"], fontName=FONT_BOLD, fontSize=12, leading=15,
                               spaceBefore=10, spaceAfter=4),
        subheading=ParagraphStyle("doc-h3", parent=base["Heading3"], fontName=FONT_BOLD, fontSize=10.5,
                                  leading=13, spaceBefore=6, spaceAfter=3),
        body=body,
        small=ParagraphStyle("doc-small", parent=body, fontSize=8.5, leading=11,
                             textColor=colors.HexColor("#333333")),
        cell=cell,
        cell_bold=ParagraphStyle("doc-cell-bold", parent=cell, fontName=FONT_BOLD),
        caption=ParagraphStyle("doc-caption", parent=cell, fontSize=7, leading=8.5),
        warning=ParagraphStyle("doc-warning", parent=body, fontName=FONT_BOLD, textColor=colors.HexColor("#9b1c1c")),
    )


_CONTROL = {code: None for code in range(32) if chr(code) not in "\n\t"}
_LINE = "#999999"


def bounded(value: Any) -> str:
    """The text a document prints for `value`: control characters dropped, trailing line breaks
    removed, and cut after MAX_FIELD_CHARS characters with a line that says how much was left out."""
    clean = str(value if value is not None else "").translate(_CONTROL).rstrip("\n")
    if len(clean) <= MAX_FIELD_CHARS:
        return clean
    more = len(clean) - MAX_FIELD_CHARS
    return (clean[:MAX_FIELD_CHARS] + f"\n[\u2026 cut here: {more:,} more characters not shown; one field prints "
            f"at most {MAX_FIELD_CHARS:,}]")


def _markup(lines: Sequence[str]) -> str:
    # An empty line keeps its height (a no-break space) where a bare <br/> pair might collapse.
    return "<br/>".join(escape(line) if line.strip() else "\u00a0" for line in lines)


def p(text: Any, style: ParagraphStyle) -> Paragraph:
    """One Paragraph of plain text (escaped; line breaks kept; bounded): for labels, headings and short
    texts. A record's text that may run long goes through `text` instead."""
    return Paragraph(_markup(bounded(text).split("\n")), style)


def text(value: Any, style: ParagraphStyle) -> list[Paragraph]:
    """Plain text as blocks of at most BLOCK_LINES lines and about BLOCK_CHARS characters, one
    Paragraph each, in order: set one after the other they read as the one text, and a page break
    falls between blocks or inside a small one."""
    lines = bounded(value).split("\n")
    blocks: list[Paragraph] = []
    start, size = 0, 0
    for index, line in enumerate(lines):
        if index > start and (index - start >= BLOCK_LINES or size + len(line) > BLOCK_CHARS):
            blocks.append(Paragraph(_markup(lines[start:index]), style))
            start, size = index, 0
        size += len(line) + 1
    blocks.append(Paragraph(_markup(lines[start:]), style))
    return blocks


def long_date(value: str | date | None) -> str:
    """'September 1, 2026'; '-' when there is no date."""
    if not value:
        return "-"
    day = date.fromisoformat(value) if isinstance(value, str) else value
    return f"{day:%B} {day.day}, {day.year}"


def _runs(rows: Iterable[int]) -> list[tuple[int, int]]:
    """Consecutive row numbers as (first, last) runs, so a style command covers many rows at once."""
    runs: list[tuple[int, int]] = []
    for row in rows:
        if runs and runs[-1][1] == row - 1:
            runs[-1] = (runs[-1][0], row)
        else:
            runs.append((row, row))
    return runs


def _grid(rows: list[list[list[Any]]], widths: Sequence[float], header: bool) -> Table:
    """A ruled table of `rows`, each cell a list of flowables (blocks). A row whose cells hold several
    blocks is laid out as one table row per block, ruled and padded as the one row it is, so a page
    break falls between blocks and no cell is re-measured whole on every page it runs over."""
    physical: list[list[Any]] = []
    continued: list[int] = []  # rows that carry on the row above
    ends: list[int] = []  # the last table row of each row
    for cells in rows:
        depth = max((len(cell) for cell in cells), default=1) or 1
        for level in range(depth):
            if level:
                continued.append(len(physical))
            physical.append([cell[level] if level < len(cell) else "" for cell in cells])
        ends.append(len(physical) - 1)
    # splitInRow: one block may still be taller than what is left of a page; let it continue overleaf.
    grid = LongTable(physical, colWidths=list(widths), repeatRows=1 if header else 0, splitInRow=1)
    line = colors.HexColor(_LINE)
    style: list[tuple] = [("BOX", (0, 0), (-1, -1), 0.4, line), ("LINEAFTER", (0, 0), (-2, -1), 0.4, line),
                          ("VALIGN", (0, 0), (-1, -1), "TOP"),
                          ("LEFTPADDING", (0, 0), (-1, -1), 3), ("RIGHTPADDING", (0, 0), (-1, -1), 3)]
    for first, last in _runs(ends):
        style.append(("LINEBELOW", (0, first), (-1, last), 0.4, line))
    for first, last in _runs(continued):
        style.append(("TOPPADDING", (0, first), (-1, last), 0))
    for first, last in _runs(row - 1 for row in continued):
        style.append(("BOTTOMPADDING", (0, first), (-1, last), 0))
    if header:
        style.append(("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#e6eef5")))
    grid.setStyle(TableStyle(style))
    return grid


def pairs(rows: Iterable[tuple[str, Any]], s: Styles, width: float, label_width: float = 1.6 * inch) -> Any:
    """A two-column table of label: value."""
    rows = list(rows)
    if not rows:
        return p("\u2013", s.cell)
    return _grid([[[p(k, s.cell_bold)], text(v if v not in (None, "") else "-", s.cell)] for k, v in rows],
                 [label_width, width - label_width], False)


def table(header: Sequence[str], rows: Iterable[Sequence[Any]], widths: Sequence[float], s: Styles,
          empty: str) -> Any:
    rows = list(rows)
    if not rows:
        return p(empty, s.cell)
    body = [[[p(h, s.cell_bold)] for h in header]] + [[text(c, s.cell) for c in row] for row in rows]
    return _grid(body, widths, True)


def bullets(texts: Iterable[str], style: ParagraphStyle) -> ListFlowable:
    return ListFlowable([ListItem(text(t, style)) for t in texts], bulletType="bullet", bulletFontName=FONT)


def numbered(texts: Iterable[str], style: ParagraphStyle) -> ListFlowable:
    return ListFlowable([ListItem(text(t, style)) for t in texts], bulletType="1", bulletFontName=FONT)


def spacer(height: float = 8) -> Spacer:
    return Spacer(1, height)


def signature_block(name: str | None, title: str | None, s: Styles, width: float) -> Table:
    """A line to sign on, with the signer's name and title under it."""
    lines = [[p(" ", s.body)], [p(name or "", s.body)], [p(title or "", s.small)]]
    block = Table(lines, colWidths=[min(3.4 * inch, width)], hAlign="LEFT")
    block.setStyle(TableStyle([("LINEABOVE", (0, 1), (0, 1), 0.7, colors.black),
                               ("TOPPADDING", (0, 0), (0, 0), 18), ("LEFTPADDING", (0, 0), (-1, -1), 0)]))
    return block


def render(story: list[Any], *, title: str, subject: str, footer: str | None = None,
           margin: float = 0.8 * inch, on_page: Callable | None = None) -> bytes:
    """Lay `story` out on US Letter pages and return the PDF bytes (a footer line and page numbers when
    `footer` is given)."""
    register_fonts()
    buffer = io.BytesIO()
    # initialFontName: the canvas would otherwise open every page in Helvetica and embed it unused.
    doc = SimpleDocTemplate(buffer, pagesize=PAGE, invariant=1, title=title, subject=subject, initialFontName=FONT,
                            author=f"{TOWN} {AUTHORITY}", leftMargin=margin, rightMargin=margin,
                            topMargin=margin, bottomMargin=margin + (0.15 * inch if footer else 0))

    def decorate(canvas, document) -> None:
        if footer is None:
            return
        canvas.saveState()
        canvas.setFont(FONT, 7.5)
        canvas.drawString(margin, 0.45 * inch, footer)
        canvas.drawRightString(PAGE[0] - margin, 0.45 * inch, f"Page {document.page}")
        canvas.restoreState()

    doc.build(story, onFirstPage=on_page or decorate, onLaterPages=on_page or decorate)
    return buffer.getvalue()


def text_width(margin: float = 0.8 * inch) -> float:
    return PAGE[0] - 2 * margin
