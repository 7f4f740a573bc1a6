"""Demo data: the performance bond (R-D1) of an issued land disturbance permit, split over the
permit's two construction phases, held in full until a phase is completed in compliance."""
from __future__ import annotations

from datetime import timedelta

from ..demo_steps import DemoContext, demo_step
from .schemas import BondCreateSchema
from .services import create_bond


@demo_step
def seed_bonds(ctx: DemoContext) -> None:
    permit = next((p for p in ctx.permits.values() if p.status == "issued"
                   and p.review_level == "land_disturbance_permit" and len(p.phases) >= 2), None)
    if permit is None:
        return  # No issued land disturbance permit with phases: no bond is required yet.
    phases = sorted(permit.phases, key=lambda phase: phase.number)
    shares = [{"phase_id": phase.id, "amount": str(phase.bond_amount)} for phase in phases]
    data = BondCreateSchema().load({
        "permit_id": permit.id, "form": "surety_bond", "amount": str(sum(phase.bond_amount for phase in phases)),
        "issuer": "Buzzards Bay Surety Co.", "reference": "BBS-2291-0457",
        "received_on": (ctx.today - timedelta(days=12)).isoformat(), "phases": shares,
        "notes": "Original bond held in the Conservation office safe; copy in the permit file."})
    create_bond(ctx.users["supervisor"], data)
