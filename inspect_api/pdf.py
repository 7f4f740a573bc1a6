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
from reportlab.platypus import ListFlowable, ListItem, Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

TOWN = "Town of Fairhaven, Massachusetts"
AUTHORITY = "Stormwater Authority"
BYLAW = "Stormwater Management Bylaw, Chapter 194, Part 3"
FONT_DIR = Path(__file__).resolve().parent / "fonts"
FONT, FONT_BOLD = "DocSans", "DocSans-Bold"
PAGE = LETTER
__all__ = ["TOWN", "AUTHORITY", "BYLAW", "FONT", "FONT_BOLD", "PAGE", "inch", "Styles", "styles", "p", "long_date",
           "pairs", "table", "bullets", "numbered", "spacer", "signature_block", "render"]


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


def p(text: Any, style: ParagraphStyle) -> Paragraph:
    """A Paragraph of plain text (escaped; line breaks kept)."""
    clean = str(text if text is not None else "").translate(_CONTROL)
    return Paragraph(escape(clean).replace("\n", "<br/>"), style)


def long_date(value: str | date | None) -> str:
    """'September 1, 2026'; '-' when there is no date."""
    if not value:
        return "-"
    day = date.fromisoformat(value) if isinstance(value, str) else value
    return f"{day:%B} {day.day}, {day.year}"


def _grid(rows: list[list[Any]], widths: Sequence[float], header: bool) -> Table:
    # splitInRow: a 4,000-character note may be taller than a page; let its row continue overleaf.
    grid = Table(rows, colWidths=list(widths), repeatRows=1 if header else 0, splitInRow=1)
    style = [("GRID", (0, 0), (-1, -1), 0.4, colors.HexColor("#999999")),
             ("VALIGN", (0, 0), (-1, -1), "TOP"),
             ("LEFTPADDING", (0, 0), (-1, -1), 3), ("RIGHTPADDING", (0, 0), (-1, -1), 3)]
    if header:
        style.append(("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#e6eef5")))
    grid.setStyle(TableStyle(style))
    return grid


def pairs(rows: Iterable[tuple[str, Any]], s: Styles, width: float, label_width: float = 1.6 * inch) -> Any:
    """A two-column table of label: value."""
    rows = list(rows)
    if not rows:
        return p("\u2013", s.cell)
    return _grid([[p(k, s.cell_bold), p(v if v not in (None, "") else "-", s.cell)] for k, v in rows],
                 [label_width, width - label_width], False)


def table(header: Sequence[str], rows: Iterable[Sequence[Any]], widths: Sequence[float], s: Styles,
          empty: str) -> Any:
    rows = list(rows)
    if not rows:
        return p(empty, s.cell)
    body = [[p(h, s.cell_bold) for h in header]] + [[p(c, s.cell) for c in row] for row in rows]
    return _grid(body, widths, True)


def bullets(texts: Iterable[str], style: ParagraphStyle) -> ListFlowable:
    return ListFlowable([ListItem(p(t, style)) for t in texts], bulletType="bullet", bulletFontName=FONT)


def numbered(texts: Iterable[str], style: ParagraphStyle) -> ListFlowable:
    return ListFlowable([ListItem(p(t, style)) for t in texts], bulletType="1", bulletFontName=FONT)


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
