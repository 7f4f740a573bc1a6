"""What enforcement still holds open on a site, asked before its certificate of completion (R-F3)."""
from __future__ import annotations

from sqlalchemy import func, select

from ..extensions import db
from .costs import statement
from .models import CostRecovery, Order, Violation


def open_enforcement(permit_id: str) -> list[str]:
    """R-F3: what on the site is still open: orders, violations, unpaid cost recoveries."""
    reasons = [f"order {o.number} is {o.status}" for o in db.session.scalars(
        select(Order).where(Order.permit_id == permit_id, Order.status == "open").order_by(Order.number))]
    ongoing = db.session.scalar(select(func.count()).select_from(Violation).where(
        Violation.permit_id == permit_id, Violation.last_observed_on.is_(None)))
    if ongoing:
        reasons.append(f"{ongoing} violation{'s' if ongoing != 1 else ''} still ongoing")
    for record in db.session.scalars(select(CostRecovery).where(CostRecovery.permit_id == permit_id)):
        if statement(record)["status"] not in ("paid", "void"):
            reasons.append(f"cost recovery of ${statement(record)['total_due']:,.2f} unpaid")
    return reasons
