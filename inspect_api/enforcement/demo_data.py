"""Demo data: enforcement on the site whose catch basins stayed unprotected.

The storm-event visit found the basins without inlet protection and the follow-up found them so
again; the supervisor issued an order to install controls, resting on the first finding, with a
deadline next week (R-O1), and recorded the ongoing breach of the permit's catch-basin condition as
a violation (R-P1) citing both findings and both visits.
"""
from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from ..demo_steps import DemoContext, demo_step
from ..entry.demo_data import GRANTORS, field_sites, iso
from ..extensions import db
from ..inspections.models import Finding
from .penalties import create_violation
from .schemas_penalties import ViolationCreateSchema
from .schemas import OrderCreateSchema
from .services import create_order

REQUIREMENT = ("Install silt sacks (or equal inlet protection) in both catch basins on Sconticut Neck Road at the "
               "site entrance, clean the sediment from their sumps, and maintain the protection until final "
               "stabilization.")


def _inlet_findings(permit) -> list[Finding]:
    return list(db.session.scalars(select(Finding).where(
        Finding.permit_id == permit.id, Finding.item_key == "inlet_protection", Finding.deleted_at.is_(None))
        .order_by(Finding.observed_on, Finding.id)))


@demo_step
def seed_enforcement(ctx: DemoContext) -> None:
    sites = field_sites(ctx)
    findings = _inlet_findings(sites[0][1]) if sites else []
    if not findings:
        return  # No active assigned site, hence no inspection finding for an order to rest on.
    (key, permit), supervisor = sites[0], ctx.users["supervisor"]
    grantor, relation = GRANTORS.get(key, (permit.owner_name, "owner"))
    issued = ctx.today - timedelta(days=1)
    order = OrderCreateSchema().load({
        "permit_id": permit.id, "kinds": ["controls"], "requirements": [{"kind": "controls", "text": REQUIREMENT}],
        "finding_ids": [findings[0].id], "issued_on": issued.isoformat(),
        "deadline": (ctx.today + timedelta(days=7)).isoformat(),
        "service": {"method": "hand", "served_at": iso(ctx, 1, "15:30"),
                    "served_to": f"{grantor} ({relation})"}})
    create_order(supervisor, order)
    condition = next((c for c in permit.conditions if "catch basin" in c.text.lower()), None)
    # Without a numbered catch-basin condition, the breach is of the approved ESC plan (R-C4).
    provision = ({"provision_kind": "permit_condition", "condition_id": condition.id} if condition else
                 {"provision_kind": "esc_plan", "provision": "ESC plan: inlet protection at every catch basin"})
    inspections = list(dict.fromkeys(f.inspection_id for f in findings if f.inspection_id))
    violation = ViolationCreateSchema().load({
        "permit_id": permit.id, **provision, "first_observed_on": findings[0].observed_on.isoformat(),
        "last_observed_on": None, "finding_ids": [f.id for f in findings], "inspection_ids": inspections,
        "description": "Catch basins at the site entrance left without inlet protection after a storm "
                       f"({findings[0].observed_on}) and still so on re-inspection ({findings[-1].observed_on})."})
    create_violation(supervisor, violation)
