"""The chain-of-custody form of a sample as a PDF: what travels with the bottles to the lab (R-S1).

Rendering only: custody.py gathers the plain data (strings, signature thumbnail bytes) and this lays
it out with the one PDF module (inspect_api.pdf: platypus, the shipped Unicode font, escaped text).
The lab's receipt is printed as recorded, or as blank lines for the lab to fill in by hand, and two
blank hand-over rows follow the recorded ones for any hand-over written on paper.
"""
from __future__ import annotations

import io
from dataclasses import dataclass, field
from typing import Any

from reportlab.lib import colors
from reportlab.lib.units import inch
from reportlab.lib.utils import ImageReader
from reportlab.platypus import Image, KeepTogether, Table, TableStyle

from .. import pdf as doc

MARGIN = 0.6 * inch
SIGNATURE_W, SIGNATURE_H = 1.5 * inch, 0.55 * inch
BLANK_TRANSFERS = 2
BLANK = "\u00a0"


@dataclass
class TransferEntry:
    number: str
    relinquished_by: str
    received_by: str
    at: str
    signature: bytes | None = None   # the thumbnail of the signature photo, when it has arrived
    signature_note: str = ""         # said instead of the image: "no signature", "signature not yet uploaded"


@dataclass
class CustodyData:
    title: str
    sample_rows: list[tuple[str, str]]
    # parameter, container, preservative, holding time, analyse by, status / result
    analysis_rows: list[tuple[str, str, str, str, str, str]]
    transfers: list[TransferEntry] = field(default_factory=list)
    lab_rows: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    footer: str = ""


def _signature(data: bytes | None) -> Image | None:
    if not data:
        return None
    try:
        reader = ImageReader(io.BytesIO(data))
        width, height = reader.getSize()
    except Exception:  # a damaged derivative must not cost the lab its form
        return None
    scale = min(SIGNATURE_W / width, SIGNATURE_H / height)
    return Image(io.BytesIO(data), width=width * scale, height=height * scale)


def _transfer_table(transfers: list[TransferEntry], s: doc.Styles, width: float) -> Table:
    header = [doc.p(t, s.cell_bold) for t in ("#", "Relinquished by", "Received by", "Date and time", "Signature")]
    rows: list[list[Any]] = [header]
    for entry in transfers:
        image = _signature(entry.signature)
        rows.append([doc.p(entry.number, s.cell), doc.p(entry.relinquished_by, s.cell), doc.p(entry.received_by, s.cell),
                     doc.p(entry.at, s.cell), image if image is not None else doc.p(entry.signature_note, s.caption)])
    for _ in range(BLANK_TRANSFERS):
        rows.append([doc.p(BLANK, s.cell)] * 5)
    widths = [0.35 * inch, 1.55 * inch, 1.55 * inch, 1.45 * inch]
    widths.append(width - sum(widths))
    grid = Table(rows, colWidths=widths, repeatRows=1, rowHeights=[None] + [SIGNATURE_H + 8] * (len(rows) - 1))
    line = colors.HexColor("#999999")
    grid.setStyle(TableStyle([
        ("GRID", (0, 0), (-1, -1), 0.4, line), ("VALIGN", (0, 0), (-1, -1), "MIDDLE"),
        ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#e6eef5")),
        ("LEFTPADDING", (0, 0), (-1, -1), 3), ("RIGHTPADDING", (0, 0), (-1, -1), 3)]))
    return grid


def render(data: CustodyData) -> bytes:
    s = doc.styles()
    width = doc.text_width(MARGIN)
    story: list[Any] = [
        doc.p(f"{doc.TOWN} \u2013 {doc.AUTHORITY}", s.subtitle),
        doc.p(data.title, s.title),
        doc.p("Sample", s.heading), doc.pairs(data.sample_rows, s, width),
        doc.p("Analyses requested", s.heading),
        doc.table(["Parameter", "Container", "Preservative", "Holding time", "Analyse by", "Status / result"],
                  data.analysis_rows, [1.2 * inch, 1.0 * inch, 1.2 * inch, 0.6 * inch, 1.45 * inch,
                                       width - 5.45 * inch], s, "No analyses listed."),
        *[doc.p(note, s.small) for note in data.notes],
        KeepTogether([doc.p("Custody transfers", s.heading), _transfer_table(data.transfers, s, width)]),
        KeepTogether([doc.p("Received at the laboratory", s.heading), doc.pairs(data.lab_rows, s, width, 2.0 * inch),
                      doc.signature_block(None, "Signature of the person receiving for the laboratory", s, width)]),
    ]
    return doc.render(story, title=data.title, subject="Chain of custody record", footer=data.footer, margin=MARGIN)
