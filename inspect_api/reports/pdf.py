"""The inspection report as a PDF: what an inspector hands a contractor.

Rendering only: it takes the plain data that services.py gathers (strings, numbers, thumbnail
bytes) and returns PDF bytes, laid out by the one PDF module (inspect_api.pdf: platypus, the shipped
Unicode font, escaped text).
"""
from __future__ import annotations

import io
from dataclasses import dataclass, field
from typing import Any

from reportlab.lib.units import inch
from reportlab.lib.utils import ImageReader
from reportlab.platypus import Image, KeepTogether, Spacer, Table, TableStyle

from .. import pdf as doc

THUMB_SIZE = 1.6 * inch
MARKED_UP_SIZE = (3.6 * inch, 2.9 * inch)  # a marked-up photo is printed large enough to read its labels
MAX_THUMBNAILS = 60
MARGIN = 0.6 * inch


@dataclass
class PhotoEntry:
    photo_id: str
    caption: str
    thumbnail: bytes | None = None  # None: not uploaded yet (or its bytes are not in storage)
    # A photo with markup: the annotated image (a new JPEG; the original is untouched) and the note
    # saying who marked it up and that the original, named by its SHA-256, is kept unaltered.
    annotated: bytes | None = None
    note: str | None = None


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
    # R-E1: the authorization the entry relied on (basis, granted by, scope, validity).
    entry_rows: list[tuple[str, str]] = field(default_factory=list)
    # R-S2: how each action level was judged (turbidity on the weekly average per discharge point).
    sample_notes: list[str] = field(default_factory=list)
    footer: str = ""


_p = doc.p


def _pairs(rows: list[tuple[str, str]], s: doc.Styles, width: float) -> Any:
    return doc.pairs(rows, s, width)


def _table(header: list[str], rows: list[tuple], widths: list[float], s: doc.Styles, empty: str) -> Any:
    return doc.table(header, rows, widths, s, empty)


def _thumbnail(data: bytes, box: tuple[float, float] = (THUMB_SIZE, THUMB_SIZE)) -> Image | None:
    try:
        reader = ImageReader(io.BytesIO(data))
        width, height = reader.getSize()
    except Exception:  # a damaged derivative must not cost the contractor the whole report
        return None
    scale = min(box[0] / width, box[1] / height)
    return Image(io.BytesIO(data), width=width * scale, height=height * scale)


def _marked_up(entries: list[tuple[PhotoEntry, Image]], s: doc.Styles, width: float) -> list[Any]:
    """Each marked-up photo large, its caption and the note on the original beside it."""
    flow: list[Any] = []
    for entry, image in entries:
        text = [_p(entry.caption, s.cell), Spacer(1, 4), _p(entry.note or "", s.small)]
        row = Table([[image, text]], colWidths=[MARKED_UP_SIZE[0] + 0.15 * inch, width - MARKED_UP_SIZE[0] - 0.15 * inch])
        row.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "TOP"), ("LEFTPADDING", (0, 0), (0, 0), 0)]))
        flow += [KeepTogether([row]), Spacer(1, 6)]
    return flow


def _photo_section(photos: list[PhotoEntry], s: doc.Styles, width: float) -> list[Any]:
    shown, pending, marked = [], [], []
    for entry in photos:
        large = _thumbnail(entry.annotated, MARKED_UP_SIZE) if entry.annotated else None
        if large is not None:
            marked.append((entry, large))
            continue
        image = _thumbnail(entry.thumbnail) if entry.thumbnail and len(shown) < MAX_THUMBNAILS else None
        if image is not None:
            shown.append([image, _p(entry.caption, s.caption)])
        else:
            pending.append(entry)
    flow: list[Any] = _marked_up(marked, s, width)
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
    s = doc.styles()
    width = doc.text_width(MARGIN)
    story: list[Any] = [
        _p("Town of Fairhaven \u2013 Stormwater Authority", s.subtitle),
        _p(data.title, s.title),
        _p("Site", s.heading), _pairs(data.site_rows, s, width),
        _p("Inspection", s.heading), _pairs(data.inspection_rows, s, width),
        *([_p("Authority to enter", s.heading), _pairs(data.entry_rows, s, width)] if data.entry_rows else []),
        _p(data.checklist_title, s.heading),
        _table(["#", "Item", "Answer", "Note"], data.checklist_rows,
               [0.35 * inch, 3.2 * inch, 0.85 * inch, width - 4.4 * inch], s, "No checklist recorded."),
        _p("Findings and corrective actions", s.heading),
        _table(["Item", "Finding and required action", "Severity", "Due", "Status"], data.finding_rows,
               [1.3 * inch, width - 3.85 * inch, 0.8 * inch, 0.9 * inch, 0.85 * inch], s, "No findings."),
        _p("Samples taken at this site the same day", s.heading),
        _table(["Time", "Where", "Results", "Action levels"], data.sample_rows,
               [0.9 * inch, 1.2 * inch, width - 3.9 * inch, 1.8 * inch], s, "No samples."),
        *[_p(note, s.small) for note in data.sample_notes],
        KeepTogether([_p("Photos", s.heading), Spacer(1, 2)]),
        *_photo_section(data.photos, s, width),
    ]
    return doc.render(story, title=data.title, subject="Inspection report", footer=data.footer, margin=MARGIN)
