"""An enforcement order as a PDF to serve on the owner or violator (R-O1).

`invariant=1` keeps reportlab from stamping the rendering time and a random document id into the
file, so one order at one version always renders to the same bytes.
"""
from __future__ import annotations

import io
from datetime import date
from typing import Any
from xml.sax.saxutils import escape

from reportlab.lib.pagesizes import LETTER
from reportlab.lib.styles import getSampleStyleSheet
from reportlab.lib.units import inch
from reportlab.platypus import ListFlowable, ListItem, Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

from .. import clock
from . import rules

TOWN = "Town of Fairhaven, Massachusetts"
AUTHORITY = "Stormwater Authority"
BYLAW = "Stormwater Management Bylaw, Chapter 194, Part 3"
KIND_TITLES = {
    "cease_and_desist": "§B(1)(a) Cease and desist from land-disturbing activity",
    "controls": "§B(1)(b) Maintain, install or perform additional erosion and sedimentation controls",
    "monitoring": "§B(1)(c) Monitoring, analyses and reporting",
    "remediation": "§B(1)(d) Remediation of erosion and sedimentation",
}
SERVICE_TITLES = {"hand": "by hand", "certified_mail": "by certified mail", "first_class_mail": "by first-class mail",
                  "posted_on_site": "by posting on the site", "email": "by e-mail"}


def _long_date(day: date | None) -> str:
    return f"{day:%B} {day.day}, {day.year}" if day else "-"


def _p(text: str, style) -> Paragraph:
    return Paragraph(escape(text), style)


def order_pdf(order: Any, permit: Any, findings: list[Any]) -> bytes:
    styles = getSampleStyleSheet()
    body, small = styles["BodyText"], styles["Italic"]
    buffer = io.BytesIO()
    doc = SimpleDocTemplate(buffer, pagesize=LETTER, invariant=1, title=f"Enforcement Order {order.number}",
                            author=f"{TOWN} {AUTHORITY}", leftMargin=inch, rightMargin=inch,
                            topMargin=0.8 * inch, bottomMargin=0.8 * inch)
    status = rules.order_status(order.status, order.deadline, clock.today())
    story: list[Any] = [
        _p(TOWN.upper(), styles["Title"]), _p(AUTHORITY, styles["Heading3"]),
        _p(f"Enforcement Order {order.number}", styles["Heading1"]),
        _facts_table(order, permit, status, body),
        Spacer(1, 10),
        _p("This order is issued under the Enforcement section of the " + BYLAW + ". You are ordered to:", body),
        ListFlowable([ListItem(_p(KIND_TITLES[k], body)) for k in order.kinds], bulletType="bullet"),
        _p("Requirements", styles["Heading2"]),
        ListFlowable([ListItem(_p(r["text"], body)) for r in order.requirements], bulletType="1"),
        _p(f"Deadline: all requirements must be met by {_long_date(order.deadline)}.", styles["Heading3"]),
    ]
    if findings:
        story.append(_p("Findings on which this order rests", styles["Heading2"]))
        story.append(ListFlowable([ListItem(_p(f"{_long_date(f.observed_on)}: {f.description}", body))
                                   for f in findings], bulletType="bullet"))
    story += [
        Spacer(1, 8),
        _p("If the deadline passes unmet, the Town may perform the work itself at the expense of the violator "
           "and the property owner (§B(2)). The costs, including administrative costs, will be notified within "
           "30 days after the work is completed; a written protest may be filed with the Stormwater Authority "
           "within 30 days of receipt of that notice. Unpaid costs become a special assessment and a lien on the "
           "property, with interest at the rate of MGL c.59 §57 (§B(3)).", body),
        Spacer(1, 8),
        _p(_service_line(order), small),
    ]
    doc.build(story)
    return buffer.getvalue()


def _facts_table(order: Any, permit: Any, status: str, style) -> Table:
    rows = [
        ("Permit", getattr(permit, "number", None) or "(not yet numbered)"),
        ("Site", getattr(permit, "site_address", "-")),
        ("Owner", getattr(permit, "owner_name", "-")),
        ("Issued", _long_date(order.issued_on)),
        ("Deadline", _long_date(order.deadline)),
        ("Status", status.replace("_", " ")),
    ]
    table = Table([[_p(label + ":", style), _p(str(value), style)] for label, value in rows],
                  colWidths=[1.3 * inch, 5.2 * inch])
    table.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "TOP"), ("FONTNAME", (0, 0), (0, -1), "Helvetica-Bold")]))
    return table


def _service_line(order: Any) -> str:
    if not order.service_method:
        return "Service: not yet recorded."
    line = f"Served {SERVICE_TITLES.get(order.service_method, order.service_method)}"
    if order.served_to:
        line += f" on {order.served_to}"
    if order.served_at:
        local = order.served_at.astimezone(clock.town_zone())
        line += f", {_long_date(local.date())} at {local:%H:%M} (Fairhaven time)"
    return line + "."
