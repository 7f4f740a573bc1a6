"""The certificate of completion as a one-page PDF, drawn from the facts kept when it was issued.

`invariant=1` keeps reportlab from stamping the rendering time and a random document id into the file,
so the same certificate always renders to the same bytes.
"""
from __future__ import annotations

import io
from datetime import date
from typing import Any

from reportlab.lib.pagesizes import LETTER
from reportlab.lib.units import inch
from reportlab.pdfgen import canvas

TOWN = "Town of Fairhaven, Massachusetts"
AUTHORITY = "Stormwater Authority"
BYLAW = "Stormwater Management Bylaw, Chapter 194, Part 3"


def _long_date(value: str | date | None) -> str:
    if not value:
        return "-"
    day = date.fromisoformat(value) if isinstance(value, str) else value
    return f"{day:%B} {day.day}, {day.year}"


def _wrap(text: str, width: int) -> list[str]:
    lines, line = [], ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    return lines + ([line] if line else [])


def certificate_pdf(cert: Any) -> bytes:
    """Render `cert` (number, issued_on, basis_type, remarks, snapshot) to PDF bytes."""
    facts = cert.snapshot or {}
    buffer = io.BytesIO()
    pdf = canvas.Canvas(buffer, pagesize=LETTER, invariant=1, pageCompression=0)
    pdf.setTitle(f"Certificate of Completion {cert.number}")
    pdf.setAuthor(f"{TOWN} {AUTHORITY}")
    width, height = LETTER
    y = height - 1.1 * inch
    pdf.setFont("Helvetica-Bold", 13)
    pdf.drawCentredString(width / 2, y, TOWN.upper())
    pdf.setFont("Helvetica", 11)
    pdf.drawCentredString(width / 2, y - 16, AUTHORITY)
    pdf.setFont("Helvetica-Bold", 22)
    pdf.drawCentredString(width / 2, y - 60, "Certificate of Completion")
    pdf.setFont("Helvetica", 12)
    pdf.drawCentredString(width / 2, y - 82, f"No. {cert.number}")
    basis = "final report" if cert.basis_type == "final_report" else "completion notice"
    rows = [
        ("Approval", f"{facts.get('review_level_title') or '-'} {facts.get('permit_number') or ''}".strip()),
        ("Site", facts.get("site_address") or "-"),
        ("Parcel", facts.get("parcel_id") or "-"),
        ("Owner", facts.get("owner_name") or "-"),
        ("Applicant", facts.get("applicant_name") or "-"),
        ("Work completed", _long_date(facts.get("work_completed_on"))),
        (f"{basis.capitalize()} accepted", _long_date(facts.get("basis_accepted_on"))),
        ("Issued", _long_date(cert.issued_on)),
    ]
    y -= 130
    for label, value in rows:
        pdf.setFont("Helvetica-Bold", 11)
        pdf.drawString(1.1 * inch, y, f"{label}:")
        pdf.setFont("Helvetica", 11)
        for i, line in enumerate(_wrap(str(value), 60) or ["-"]):
            y -= 14 if i else 0
            pdf.drawString(2.9 * inch, y, line)
        y -= 20
    statement = (f"The Stormwater Authority has received and accepted the {basis} for this project and certifies "
                 f"that the land disturbance work is complete under the {BYLAW}. This certificate closes the "
                 "approval; the security posted for the work may be released in full.")
    pdf.setFont("Helvetica", 11)
    for line in _wrap(statement, 88):
        y -= 15
        pdf.drawString(1.1 * inch, y, line)
    if cert.remarks:
        y -= 25
        pdf.setFont("Helvetica-Oblique", 10)
        for line in _wrap(f"Remarks: {cert.remarks}", 95)[:12]:
            y -= 13
            pdf.drawString(1.1 * inch, y, line)
    pdf.setFont("Helvetica", 11)
    pdf.line(1.1 * inch, 1.6 * inch, 4.2 * inch, 1.6 * inch)
    pdf.drawString(1.1 * inch, 1.4 * inch, f"{facts.get('issued_by_name') or ''}, for the {AUTHORITY}")
    pdf.showPage()
    pdf.save()
    return buffer.getvalue()
