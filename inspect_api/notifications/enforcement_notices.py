"""The e-mail notices of enforcement: the order to each recipient party (R-O1, §B(3) "the violator
and the property owner"), and the notice of costs to each recipient (R-O3). Both are notices the
bylaw requires, so they are sent whatever a recipient's preferences (`required=True`), each with the
document it carries attached as a PDF, rendered by enforcement. receivers.py calls these when
enforcement's signals are sent, inside the request's transaction."""
from __future__ import annotations

from typing import Any, Iterable

from .. import clock
from ..enforcement import rules
from ..enforcement.costs import cost_notice_document, costs_total
from ..enforcement.services import order_context, order_document
from ..extensions import db
from ..permits.models import Party, Permit
from . import outbox
from .events import ROLE_TITLES


def _record_label(permit: Any) -> str:
    return "enforcement case" if getattr(permit, "status", None) == "unpermitted" else "permit"


def order_issued(order: Any, actor: Any = None, only: Iterable[str] | None = None) -> list[Any]:
    """One message per recipient party of a newly issued order (or only the parties `only` names, when
    an order is later addressed to more), the order PDF attached."""
    context = order_context(order)
    permit = context["permit"]
    document = outbox.Attachment(f"{order.number}.pdf", "application/pdf", order_document(order))
    written = []
    wanted = set(only) if only is not None else None
    for party in context["recipients"]:
        if wanted is not None and party.id not in wanted:
            continue
        written += outbox.enqueue(
            "order_issued", order, [outbox.Recipient.from_party(party)],
            {"order": order, "permit": permit, "record_label": _record_label(permit),
             "role_title": ROLE_TITLES.get(party.role, party.role)},
            attachments=[document], required=True, link=f"#/permit/{permit.id}", actor=actor)
    return written


def cost_notice_sent(record: Any, notices: Iterable[Any], actor: Any = None) -> list[Any]:
    """One message per recipient whose notice of costs was just recorded as sent, with that
    recipient's own notice as a PDF."""
    permit = db.session.get(Permit, record.permit_id)
    order, total = record.order, costs_total(record)
    written = []
    for notice in notices:
        party = db.session.get(Party, notice.party_id) if notice.party_id else None
        recipient = outbox.Recipient(name=notice.name, email=getattr(party, "email", None), role=notice.role,
                                     party_id=notice.party_id, user_id=getattr(party, "user_id", None))
        data = cost_notice_document(record, notice)
        written += outbox.enqueue(
            "cost_notice_sent", record, [recipient],
            {"record": record, "order": order, "permit": permit, "costs_total": total,
             "role_title": ROLE_TITLES.get(notice.role, notice.role),
             "protest_window_ends": rules.protest_window_ends(clock.today())},
            attachments=[outbox.Attachment(f"notice-of-costs-{order.number}.pdf", "application/pdf", data)],
            required=True, link=f"#/permit/{permit.id}", actor=actor)
    return written


__all__ = ["cost_notice_sent", "order_issued"]
