"""The inspection report as a PDF (reportlab platypus): what an inspector hands a contractor.

Rendering only: it takes the plain data that services.py gathers (strings, numbers, thumbnail
bytes) and returns PDF bytes. Every text from a record is escaped before it reaches a Paragraph,
whose mini-markup would otherwise read "<" and "&" from a note as tags.
"""
from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from reportlab.lib import colors
from reportlab.lib.pagesizes import LETTER
from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
from reportlab.lib.units import inch
from reportlab.lib.utils import ImageReader
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.platypus import Image, KeepTogether, Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

# A Unicode font when the system has one (names, notes and units such as "\u03bcS/cm" need more than
# Latin-1); the PDF core fonts otherwise.
_FONT_FILES = (Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"),
               Path("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"))
THUMB_SIZE = 1.6 * inch
MAX_THUMBNAILS = 60


@dataclass
class PhotoEntry:
    photo_id: str
    caption: str
    thumbnail: bytes | None = None  # None: not uploaded yet (or its bytes are not in storage)


@dataclass
class ReportData:
    title: str
    site_rows: list[tuple[str, str]]
    inspection_rows: list[tuple[str, str]]
    checklist_title: str
    checklist_rows: list[tuple[str, str, str, str]]  # number, item, answer, note
    finding_rows: list[tuple[str, str, str, str, str]]  # subject, description and action, severity, due, status
    sample_rows: list[tuple[str, str, str, str]]  # time, where, results, exceedances
    photos: list[PhotoEntry] = field(default_factory=list)
    footer: str = ""


def _fonts() -> tuple[str, str]:
    regular, bold = _FONT_FILES
    if regular.is_file() and bold.is_file():
        if "ReportSans" not in pdfmetrics.getRegisteredFontNames():
            pdfmetrics.registerFont(TTFont("ReportSans", str(regular)))
            pdfmetrics.registerFont(TTFont("ReportSans-Bold", str(bold)))
        return "ReportSans", "ReportSans-Bold"
    return "Helvetica", "Helvetica-Bold"


class _Styles:
    def __init__(self) -> None:
        regular, bold = _fonts()
        base = getSampleStyleSheet()
        self.font, self.bold = regular, bold
        self.title = ParagraphStyle("title", parent=base["Title"], fontName=bold, fontSize=16, spaceAfter=4)
        self.subtitle = ParagraphStyle("subtitle", parent=base["Normal"], fontName=regular, fontSize=9,
                                       textColor=colors.HexColor("#444444"), alignment=1)
        self.heading = ParagraphStyle("heading", parent=base["Heading2"], fontName=bold, fontSize=12,
                                      spaceBefore=10, spaceAfter=4)
        self.cell = ParagraphStyle("cell", parent=base["Normal"], fontName=regular, fontSize=8.5, leading=10.5)
        self.cell_bold = ParagraphStyle("cellb", parent=self.cell, fontName=bold)
        self.caption = ParagraphStyle("caption", parent=self.cell, fontSize=7, leading=8.5)


_CONTROL = {code: None for code in range(32) if chr(code) not in "\n\t"}


def _p(text: Any, style: ParagraphStyle) -> Paragraph:
    clean = str(text if text is not None else "").translate(_CONTROL)
    return Paragraph(escape(clean).replace("\n", "<br/>"), style)


def _grid(rows: list[list[Any]], widths: list[float], header: bool = True) -> Table:
    # splitInRow: a 4,000-character note may be taller than a page; let its row continue overleaf.
    table = Table(rows, colWidths=widths, repeatRows=1 if header else 0, splitInRow=1)
    style = [("GRID", (0, 0), (-1, -1), 0.4, colors.HexColor("#999999")),
             ("VALIGN", (0, 0), (-1, -1), "TOP"),
             ("LEFTPADDING", (0, 0), (-1, -1), 3), ("RIGHTPADDING", (0, 0), (-1, -1), 3)]
    if header:
        style.append(("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#e6eef5")))
    table.setStyle(TableStyle(style))
    return table


def _pairs(rows: list[tuple[str, str]], s: _Styles, width: float) -> Any:
    if not rows:
        return _p("\u2013", s.cell)
    return _grid([[_p(k, s.cell_bold), _p(v, s.cell)] for k, v in rows], [1.6 * inch, width - 1.6 * inch], False)


def _table(header: list[str], rows: list[tuple], widths: list[float], s: _Styles, empty: str) -> Any:
    if not rows:
        return _p(empty, s.cell)
    body = [[_p(h, s.cell_bold) for h in header]] + [[_p(c, s.cell) for c in row] for row in rows]
    return _grid(body, widths)


def _thumbnail(data: bytes) -> Image | None:
    try:
        reader = ImageReader(io.BytesIO(data))
        width, height = reader.getSize()
    except Exception:  # a damaged derivative must not cost the contractor the whole report
        return None
    scale = min(THUMB_SIZE / width, THUMB_SIZE / height)
    return Image(io.BytesIO(data), width=width * scale, height=height * scale)


def _photo_section(photos: list[PhotoEntry], s: _Styles, width: float) -> list[Any]:
    shown, pending = [], []
    for entry in photos:
        image = _thumbnail(entry.thumbnail) if entry.thumbnail and len(shown) < MAX_THUMBNAILS else None
        if image is not None:
            shown.append([image, _p(entry.caption, s.caption)])
        else:
            pending.append(entry)
    flow: list[Any] = []
    per_row = 4
    if shown:
        cells = [shown[i:i + per_row] for i in range(0, len(shown), per_row)]
        rows = []
        for chunk in cells:
            chunk = chunk + [["", ""]] * (per_row - len(chunk))
            rows.append([c[0] for c in chunk])
            rows.append([c[1] for c in chunk])
        table = Table(rows, colWidths=[width / per_row] * per_row)
        table.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "TOP"), ("ALIGN", (0, 0), (-1, -1), "CENTER")]))
        flow.append(table)
    for entry in pending:
        status = "pending upload" if entry.thumbnail is None else "not shown"
        flow.append(_p(f"Photo {entry.photo_id} ({entry.caption}): {status}", s.cell))
    if not photos:
        flow.append(_p("No photos.", s.cell))
    return flow


def render(data: ReportData) -> bytes:
    buffer = io.BytesIO()
    s = _Styles()
    doc = SimpleDocTemplate(buffer, pagesize=LETTER, leftMargin=0.6 * inch, rightMargin=0.6 * inch,
                            topMargin=0.6 * inch, bottomMargin=0.7 * inch, title=data.title,
                            author="Town of Fairhaven Stormwater Authority", subject="Inspection report")
    width = LETTER[0] - 1.2 * inch

    def footer(canvas, document) -> None:
        canvas.saveState()
        canvas.setFont(s.font, 7.5)
        canvas.drawString(0.6 * inch, 0.4 * inch, data.footer)
        canvas.drawRightString(LETTER[0] - 0.6 * inch, 0.4 * inch, f"Page {document.page}")
        canvas.restoreState()

    story: list[Any] = [
        _p("Town of Fairhaven \u2013 Stormwater Authority", s.subtitle),
        _p(data.title, s.title),
        _p("Site", s.heading), _pairs(data.site_rows, s, width),
        _p("Inspection", s.heading), _pairs(data.inspection_rows, s, width),
        _p(data.checklist_title, s.heading),
        _table(["#", "Item", "Answer", "Note"], data.checklist_rows,
               [0.35 * inch, 3.2 * inch, 0.85 * inch, width - 4.4 * inch], s, "No checklist recorded."),
        _p("Findings and corrective actions", s.heading),
        _table(["Item", "Finding and required action", "Severity", "Due", "Status"], data.finding_rows,
               [1.3 * inch, width - 3.85 * inch, 0.8 * inch, 0.9 * inch, 0.85 * inch], s, "No findings."),
        _p("Samples taken at this site the same day", s.heading),
        _table(["Time", "Where", "Results", "Action levels"], data.sample_rows,
               [0.9 * inch, 1.2 * inch, width - 3.9 * inch, 1.8 * inch], s, "No samples."),
        KeepTogether([_p("Photos", s.heading), Spacer(1, 2)]),
        *_photo_section(data.photos, s, width),
    ]
    doc.build(story, onFirstPage=footer, onLaterPages=footer)
    return buffer.getvalue()
