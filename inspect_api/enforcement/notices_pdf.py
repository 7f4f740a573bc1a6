"""The §21D citation ticket (R-P2) and the lien certificate (R-O3) as PDFs, laid out by inspect_api.pdf.

A citation prints as a ticket: the offence, its date and place, the bylaw section, the fine from the
Town's schedule and how to pay it or contest it within 21 days (MGL c.40 §21D). A lien certificate is
the Stormwater Authority's notice to the Town Collector that unpaid abatement costs became a special
assessment and a lien on the owner's property (bylaw Enforcement §B(3)).
"""
from __future__ import annotations

from datetime import date
from typing import Any

from .. import pdf
from . import rules

ORDINALS = {1: "first", 2: "second", 3: "third"}


def _note(note: str | None, s: Any) -> list[Any]:
    return [pdf.spacer(10), pdf.p(note, s.small)] if note else []


def citation_pdf(citation: Any, permit: Any, violation: Any, issuer: Any, pay_to: str, court: str,
                 note: str | None = None) -> bytes:
    """`pay_to` and `court` are configuration (CITATION_PAY_TO, CITATION_COURT): where the Town takes
    payment and which court hears a contested citation. `note`: the line about the document's digital
    signature (renditions.signature_note()), printed last when given (so in each document below)."""
    s = pdf.styles()
    width = pdf.text_width()
    respond_by = rules.citation_respond_by(citation.delivered_on)
    ordinal = ORDINALS.get(citation.offense_number, f"{citation.offense_number}th")
    offence = (violation.description if violation is not None and violation.description else
               "Violation of the Stormwater Management Bylaw")
    rows = [("Citation no.", citation.number), ("Violator", citation.violator_name),
            ("Violator's address", citation.violator_address),
            ("Offence", offence), ("Bylaw section", citation.bylaw_section),
            ("Date of offence", pdf.long_date(citation.offense_on)),
            ("Location", ", ".join(x for x in (getattr(permit, "site_address", None),
                                                 f"parcel {permit.parcel_id}" if getattr(permit, "parcel_id", None)
                                                 else None) if x)),
            ("Offence number", f"{citation.offense_number} ({ordinal} offence within 12 months)"),
            ("Fine", f"${rules.money(citation.fine_amount):,.2f}"),
            ("Delivered", pdf.long_date(citation.delivered_on) if citation.delivered_on else "not yet recorded"),
            ("Pay or contest by", pdf.long_date(respond_by) if respond_by else "21 days from delivery")]
    how = (
        "You have 21 days from the delivery of this notice to do one of the following (MGL c.40 §21D). "
        f"PAY: pay the fine of ${rules.money(citation.fine_amount):,.2f} to {pay_to}, by mail or in person, "
        "quoting this citation number; payment operates as a final disposition and is not a criminal conviction. "
        f"CONTEST: ask in writing for a non-criminal hearing before the clerk-magistrate of {court} within the "
        "same 21 days. If you do neither, the Town may proceed against you in court. "
        "Each day or part of a day a violation continues, and each condition violated, is a separate offence.")
    story: list[Any] = [
        pdf.p(pdf.TOWN.upper(), s.subtitle), pdf.p(pdf.AUTHORITY, s.subtitle), pdf.spacer(4),
        pdf.p("Notice of Non-Criminal Violation", s.title),
        pdf.p("Citation under MGL c.40 §21D", s.subtitle), pdf.spacer(8),
        pdf.pairs(rows, s, width, label_width=1.7 * pdf.inch), pdf.spacer(8),
        pdf.p("How to pay or contest", s.heading), pdf.p(how, s.body), pdf.spacer(10),
        pdf.signature_block(getattr(issuer, "name", None), f"Issuing officer, {pdf.TOWN} {pdf.AUTHORITY}", s, width),
        *_note(note, s),
    ]
    return pdf.render(story, title=f"Citation {citation.number}", subject="Non-criminal citation",
                      footer=f"{pdf.TOWN} \u00b7 Citation {citation.number}")


def lien_certificate_pdf(record: Any, permit: Any, order: Any, owners: list[Any], statement: dict[str, Any],
                         on: date, note: str | None = None) -> bytes:
    """R-O3: the notice of special assessment to the Collector, once the lien has attached."""
    s = pdf.styles()
    width = pdf.text_width()
    owner_names = "; ".join(", ".join(x for x in (o.name, o.mailing_address) if x) for o in owners) \
        or getattr(permit, "owner_name", None)
    rows = [("Property", getattr(permit, "site_address", None)), ("Parcel", getattr(permit, "parcel_id", None)),
            ("Owner of record", owner_names),
            ("Approval, permit or case", getattr(permit, "number", None)),
            ("Enforcement order", getattr(order, "number", None)),
            ("Abatement completed", pdf.long_date(record.abatement_completed_on)),
            ("Costs, incl. administrative costs", f"${statement['costs_total']:,.2f}"),
            ("Amount due after any decision", f"${statement['principal']:,.2f}"),
            ("Lien attached at the end of", pdf.long_date(statement["lien_on"])),
            ("Amount of the lien", f"${statement['lien_amount']:,.2f}"),
            ("Interest", f"at the rate of MGL c.59 §57 ({rules.money(statement['interest'])} accrued to "
                         f"{pdf.long_date(on)}) from {pdf.long_date(statement['interest_from'])}"),
            ("Total due on " + pdf.long_date(on), f"${statement['total_due']:,.2f}")]
    text = (
        "To the Collector of Taxes of the Town of Fairhaven: the Stormwater Authority certifies that the Town "
        "performed the work required by the enforcement order named above at the expense of the violator and "
        "the property owner; that the violator and the owner were each notified of the costs; and that the "
        "amount due was not received within the time the bylaw allows. Under the Enforcement section, §B(3), "
        f"of the {pdf.BYLAW}, the costs have become a special assessment against the property and a lien on "
        "it, to be added to the property tax bill and collected with interest at the rate of MGL c.59 §57.")
    story: list[Any] = [
        pdf.p(pdf.TOWN.upper(), s.subtitle), pdf.p(pdf.AUTHORITY, s.subtitle), pdf.spacer(4),
        pdf.p("Lien Certificate", s.title), pdf.p("Notice of special assessment to the Collector", s.subtitle),
        pdf.spacer(8), pdf.pairs(rows, s, width, label_width=2.2 * pdf.inch), pdf.spacer(8),
        pdf.p(text, s.body), pdf.spacer(16),
        pdf.signature_block(None, f"for the {pdf.AUTHORITY}", s, width), *_note(note, s),
    ]
    return pdf.render(story, title=f"Lien certificate {getattr(permit, 'number', '')}", subject="Lien certificate",
                      footer=f"{pdf.TOWN} \u00b7 Cost recovery {record.id}")


def cost_notice_pdf(record: Any, notice: Any, permit: Any, order: Any, items: list[Any], total: Any,
                    note: str | None = None) -> bytes:
    """R-O3 (§B(3)): the notice of costs to one recipient, the violator or the owner: the Town's costs
    with administrative costs, itemised, and the recipient's 30 days from receipt to protest."""
    s = pdf.styles()
    width = pdf.text_width()
    role = {"owner": "Property owner", "violator": "Violator"}.get(notice.role, notice.role)
    rows = [("To", ", ".join(x for x in (notice.name, notice.mailing_address) if x)), ("As", role),
            ("Property", getattr(permit, "site_address", None)), ("Parcel", getattr(permit, "parcel_id", None)),
            ("Approval, permit or case", getattr(permit, "number", None)),
            ("Enforcement order", getattr(order, "number", None)),
            ("Work completed by the Town", pdf.long_date(record.abatement_completed_on)),
            ("Notice sent", pdf.long_date(notice.sent_on) if notice.sent_on else None)]
    table = pdf.table(["Category", "Description", "Amount"],
                      [(i.category, i.description, f"${rules.money(i.amount):,.2f}") for i in items]
                      + [("", "Total, including administrative costs", f"${rules.money(total):,.2f}")],
                      [1.2 * pdf.inch, width - 2.6 * pdf.inch, 1.4 * pdf.inch], s, "-")
    text = (
        "The enforcement order named above was not complied with by its deadline, and the Town performed the "
        "work at the expense of the violator and the property owner (§B(2)). Under the Enforcement section, "
        f"§B(3), of the {pdf.BYLAW}, you are notified of the costs the Town incurred, including administrative "
        "costs. You may file a written protest objecting to the amount or basis of the costs with the "
        "Stormwater Authority within 30 days of the day you receive this notice. Costs not paid by the end of "
        "the protest period, or within 30 days after a decision of the Stormwater Authority affirming or "
        "reducing them, or within 30 days after a final decision of a court, become a special assessment and "
        "a lien on the owner's property, and bear interest at the rate of MGL c.59 §57 after the 30th day at "
        "which they first become due.")
    story: list[Any] = [
        pdf.p(pdf.TOWN.upper(), s.subtitle), pdf.p(pdf.AUTHORITY, s.subtitle), pdf.spacer(4),
        pdf.p("Notice of Costs", s.title), pdf.p("Town-performed work under an enforcement order", s.subtitle),
        pdf.spacer(8), pdf.pairs(rows, s, width, label_width=2.0 * pdf.inch), pdf.spacer(8),
        pdf.p("Costs incurred by the Town", s.heading), table, pdf.spacer(8),
        pdf.p("Your rights and what follows", s.heading), pdf.p(text, s.body), pdf.spacer(16),
        pdf.signature_block(None, f"for the {pdf.AUTHORITY}", s, width), *_note(note, s),
    ]
    return pdf.render(story, title=f"Notice of costs {getattr(order, 'number', '')}", subject="Notice of costs",
                      footer=f"{pdf.TOWN} \u00b7 Cost recovery {record.id} \u00b7 {notice.name}")
