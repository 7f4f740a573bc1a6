"""An enforcement order as a PDF to serve on the violator and the owner (R-O1, R-O1b).

What a served order states (R-O1b): who issued it (name, title, signature block), the violator and the
owner, the provision or permit condition violated, each required action with its deadline (§B(1)-(2)),
that the Town may do the work at their cost with the cost notice, protest, lien and interest that
follow (§B(2)-(3)), the penalties (§C: $300 per offence, each day and each condition a separate
offence; §D: non-criminal disposition under MGL c.40 §21D; §A: injunctive relief), and §E: the order
is final and further relief is to a court of competent jurisdiction. Laid out by inspect_api.pdf.
"""
from __future__ import annotations

from typing import Any

from .. import clock, pdf
from . import rules

KIND_TITLES = {
    "cease_and_desist": "§B(1)(a) Cease and desist from land-disturbing activity until there is compliance",
    "controls": "§B(1)(b) Maintain, install or perform additional erosion and sedimentation controls",
    "monitoring": "§B(1)(c) Monitoring, analyses and reporting",
    "remediation": "§B(1)(d) Remediation of erosion and sedimentation",
    "other": "Another requirement, stated in words below (§B(1))",
}
SERVICE_TITLES = {"hand": "by hand", "certified_mail": "by certified mail", "first_class_mail": "by first-class mail",
                  "posted_on_site": "by posting on the site", "email": "by e-mail"}
PROVISION_TITLES = {"permit_condition": "Condition of the approval or permit", "bylaw": "Bylaw",
                    "esc_plan": "Erosion and sedimentation control plan", "om_plan": "Operation and maintenance plan"}
ROLE_TITLES = {"violator": "Violator", "owner": "Property owner", "applicant": "Applicant", "contractor": "Contractor"}

CONSEQUENCE = (
    "If the requirements are not met by the deadline, the Town of Fairhaven may perform the work itself, "
    "at the expense of the violator and the property owner (§B(2)). Within 30 days after the work is "
    "completed, the violator and the property owner will each be notified of the costs incurred by the Town, "
    "including administrative costs; each may file a written protest with the Stormwater Authority within "
    "30 days of their own receipt of that notice (§B(3)). Costs not paid by the end of the protest period, "
    "or within 30 days following a decision of the Stormwater Authority affirming or reducing them, or within "
    "30 days following a final decision of a court, become a special assessment and a lien on the owner's "
    "property, and bear interest at the rate of MGL c.59 §57 after the 30th day at which they first become due.")
PENALTIES = (
    "Penalties: any person who violates the bylaw, a regulation, or an order or permit issued under it is "
    "subject to a fine of not more than $300 for each offence; each day or part of a day on which a violation "
    "continues, and each condition violated, is a separate offence (§C). The bylaw may instead be enforced by "
    "non-criminal disposition under MGL c.40 §21D (§D), and the Town may seek injunctive relief in a court of "
    "competent jurisdiction to restrain the violation and to compel compliance (§A).")
FINALITY = ("This order is final (§E). Further relief from it is to a court of competent jurisdiction; the "
            "Stormwater Authority offers no further appeal.")


def _party_line(party: Any) -> str:
    bits = [party.name, party.mailing_address, party.email]
    return ", ".join(b for b in bits if b)


def _violated_lines(order: Any, conditions: dict[str, Any]) -> list[str]:
    lines = []
    for item in order.violated or []:
        title = PROVISION_TITLES.get(item.get("provision_kind"), item.get("provision_kind") or "Provision")
        if item.get("provision_kind") == "permit_condition":
            condition = conditions.get(item.get("condition_id"))
            text = f"condition {condition.number}: {condition.text}" if condition else "a condition of the permit"
        else:
            text = item.get("provision") or ""
        lines.append(f"{title}, {text}".rstrip(", "))
    return lines


def order_pdf(order: Any, permit: Any, findings: list[Any], recipients: list[Any] | None = None,
              conditions: dict[str, Any] | None = None, owners: list[Any] | None = None,
              issuer: Any = None, note: str | None = None) -> bytes:
    """`note`: the line about the document's digital signature (renditions.signature_note()), printed
    last when given."""
    s = pdf.styles()
    width = pdf.text_width()
    recipients = recipients or []
    status = rules.order_status(order.status, order.deadline, clock.today())
    record_label = "Enforcement case" if getattr(permit, "status", None) == "unpermitted" else "Approval or permit"
    facts = [(record_label, getattr(permit, "number", None) or "(not yet numbered)"),
             ("Site", getattr(permit, "site_address", None)), ("Parcel", getattr(permit, "parcel_id", None)),
             ("Issued", pdf.long_date(order.issued_on)), ("Deadline", pdf.long_date(order.deadline)),
             ("Status", status.replace("_", " "))]
    addressed = [(ROLE_TITLES.get(p.role, p.role), _party_line(p)) for p in recipients]
    if not any(p.role == "owner" for p in recipients):
        addressed += [(ROLE_TITLES["owner"], _party_line(p)) for p in owners or []]
    if not addressed:
        addressed = [(ROLE_TITLES["owner"], getattr(permit, "owner_name", None))]
    story: list[Any] = [
        pdf.p(pdf.TOWN.upper(), s.subtitle), pdf.p(pdf.AUTHORITY, s.subtitle), pdf.spacer(6),
        pdf.p(f"Enforcement Order {order.number}", s.title),
        pdf.pairs(facts, s, width), pdf.spacer(6),
        pdf.p("To", s.heading), pdf.pairs(addressed, s, width),
        pdf.p(f"This order is issued under the Enforcement section, §B(1), of the {pdf.BYLAW}.", s.body),
    ]
    violated = _violated_lines(order, conditions or {})
    story += [pdf.p("Provisions violated", s.heading),
              pdf.bullets(violated, s.body) if violated
              else pdf.p("As set out in the findings below." if findings
                         else "No provision, permit condition or finding is named in this order.", s.body)]
    if findings:
        story += [pdf.p("Findings on which this order rests", s.heading),
                  pdf.bullets([f"{pdf.long_date(f.observed_on)}: {f.description}" for f in findings], s.body)]
    story += [pdf.p("You are ordered to", s.heading), pdf.bullets([KIND_TITLES[k] for k in order.kinds], s.body),
              pdf.p("Required actions and deadline", s.heading),
              pdf.table(["#", "Required action", "Deadline"],
                        [(str(i), r["text"], pdf.long_date(order.deadline))
                         for i, r in enumerate(order.requirements, start=1)],
                        [0.35 * pdf.inch, width - 1.85 * pdf.inch, 1.5 * pdf.inch], s, "-"),
              pdf.spacer(4),
              pdf.p(f"Every requirement must be met by {pdf.long_date(order.deadline)} (§B(2)).", s.subheading),
              pdf.p("If the order is not obeyed", s.heading), pdf.p(CONSEQUENCE, s.body), pdf.spacer(4),
              pdf.p(PENALTIES, s.body), pdf.spacer(4), pdf.p(FINALITY, s.warning), pdf.spacer(6),
              pdf.p(_service_line(order), s.small),
              pdf.signature_block(getattr(issuer, "name", None), _issuer_title(order), s, width)]
    if note:
        story += [pdf.spacer(10), pdf.p(note, s.small)]
    return pdf.render(story, title=f"Enforcement Order {order.number}", subject="Enforcement order",
                      footer=f"{pdf.TOWN} {pdf.AUTHORITY} \u00b7 Order {order.number} \u00b7 version {order.version}")


def _issuer_title(order: Any) -> str:
    title = order.issuer_title or pdf.AUTHORITY
    return title if pdf.AUTHORITY in title else f"{title}, {pdf.TOWN} {pdf.AUTHORITY}"


def _service_line(order: Any) -> str:
    if not order.service_method:
        return "Service: not yet recorded."
    line = f"Served {SERVICE_TITLES.get(order.service_method, order.service_method)}"
    if order.served_to:
        line += f" on {order.served_to}"
    if order.served_at:
        local = order.served_at.astimezone(clock.town_zone())
        line += f", {pdf.long_date(local.date())} at {local:%H:%M} (Fairhaven time)"
    return line + "."
