"""The certificate of completion as a PDF, drawn from the facts kept when it was issued (R-F3).

Laid out by the one PDF module (inspect_api.pdf): Unicode font, wrapped paragraphs, same bytes for
the same certificate.
"""
from __future__ import annotations

from typing import Any

from .. import pdf

OM_CONTINUES = ("Completion does not end the owner's obligations: the stormwater management system must "
                "continue to be operated and maintained in accordance with the approved operation and "
                "maintenance (O&M) plan, and a failure to do so remains a violation of the bylaw (§C).")


def certificate_pdf(cert: Any, note: str | None = None) -> bytes:
    """Render `cert` (number, issued_on, basis_type, remarks, snapshot) to PDF bytes; `note`, the line
    about its digital signature (renditions.signature_note()), is printed last when given."""
    facts = cert.snapshot or {}
    s = pdf.styles()
    width = pdf.text_width()
    basis = "final report" if cert.basis_type == "final_report" else "completion notice"
    rows = [
        ("Approval", f"{facts.get('review_level_title') or '-'} {facts.get('permit_number') or ''}".strip()),
        ("Site", facts.get("site_address")),
        ("Parcel", facts.get("parcel_id")),
        ("Owner", facts.get("owner_name")),
        ("Applicant", facts.get("applicant_name")),
        ("Work completed", pdf.long_date(facts.get("work_completed_on"))),
        (f"{basis.capitalize()} accepted", pdf.long_date(facts.get("basis_accepted_on"))),
        ("Issued", pdf.long_date(cert.issued_on)),
    ]
    # R-F3: a certificate is only issued with no open order, violation or unpaid cost recovery on the
    # site, so the full release of the security it unlocks (R-D3) is stated without reservation.
    statement = (f"The {pdf.AUTHORITY} has received and accepted the {basis} for this project and certifies "
                 f"that the land disturbance work is complete in accordance with the approval under the "
                 f"{pdf.BYLAW}. This certificate closes the approval; no enforcement order, violation or "
                 "unpaid cost recovery was open on the site when it was issued, and the security posted for "
                 "the work may be released in full (R-D3).")
    story: list[Any] = [
        pdf.p(pdf.TOWN.upper(), s.subtitle), pdf.p(pdf.AUTHORITY, s.subtitle), pdf.spacer(18),
        pdf.p("Certificate of Completion", s.title), pdf.p(f"No. {cert.number}", s.subtitle), pdf.spacer(16),
        pdf.pairs(rows, s, width, label_width=1.9 * pdf.inch), pdf.spacer(14),
        pdf.p(statement, s.body), pdf.spacer(8),
        pdf.p("Operation and maintenance continue", s.subheading), pdf.p(OM_CONTINUES, s.body),
    ]
    if cert.remarks:
        story += [pdf.spacer(8), *pdf.text(f"Remarks: {cert.remarks}", s.small)]
    story += [pdf.spacer(24), pdf.signature_block(facts.get("issued_by_name"), f"for the {pdf.AUTHORITY}", s, width)]
    if note:
        story += [pdf.spacer(10), pdf.p(note, s.small)]
    return pdf.render(story, title=f"Certificate of Completion {cert.number}", subject="Certificate of completion")
