"""Demo data: a month of inspections on the inspector's active sites, on the program's schedule (R-I1).

On the first site: a post-installation visit once the owner's consent to entry began, an approved
routine visit with every control in order, a storm-event visit that found two deficiencies (each raising
a finding with its R-I4 due date), and a follow-up, awaiting review, that finds the silt fence repaired
but the catch basins still unprotected. On the second site (or the first, if there is only one): a
post-installation visit and two routine visits at most 14 days apart, then a routine visit still in
draft. So the demo's day owes what an inspector would expect: yesterday's storm at both sites, the
applicant's re-inspection, the findings' follow-ups, the next routine visits ahead, and one overdue
item, the follow-up of the washout's pH exceedance (sampling demo). Work there commenced before the
consent to entry began, so no pre-construction inspection is on record: the MS4 report counts them
missed.
"""
from __future__ import annotations

from typing import Any

from sqlalchemy import select

from ..checklists.defaults import DEFAULT_KEY
from ..checklists.services import find_template
from ..demo_steps import DemoContext, demo_step
from ..entry.demo_data import field_sites, iso
from ..extensions import db
from .models import Finding
from .schemas import InspectionCreateSchema
from .services import create_inspection, review_inspection

SILT_FENCE = ("perimeter_controls_maintained", {
    "severity": "moderate",
    "note": "Silt fence undercut and overtopped for about 40 ft along the wetland buffer behind lot 6; "
            "sediment has passed the fence."})
INLETS = ("inlet_protection", {
    "severity": "high", "needs_new_control": True,
    "note": "No inlet protection in the two catch basins on Sconticut Neck Road at the site entrance; "
            "sediment in both sumps."})
INLETS_AGAIN = ("inlet_protection", {
    "severity": "high", "needs_new_control": True,
    "note": "Both catch basins at the entrance still unprotected; the contractor says silt sacks are on order."})


def _answers(deficient: dict[str, dict[str, Any]] | None = None, limit: int | None = None) -> list[dict[str, Any]]:
    """Answers to the current default checklist: `ok` unless listed as deficient; the first `limit`
    items only for an inspection still being filled in."""
    template = find_template(DEFAULT_KEY)
    answers = []
    for item in template.items[:limit]:
        extra = (deficient or {}).get(item["key"])
        answers.append({"key": item["key"], "answer": "deficient", **extra} if extra else
                       {"key": item["key"], "answer": "ok"})
    return answers


def _inspect(ctx: DemoContext, permit, kind: str, day: int, start: str, end: str | None, **fields):
    """One inspection made through the service as the inspector's device would post it."""
    body = {"permit_id": permit.id, "kind": kind, "started_at": iso(ctx, day, start),
            "ended_at": iso(ctx, day, end) if end else None, "disturbance_observed": True,
            "location": {"lat": permit.site_lat, "lon": permit.site_lon, "accuracy_m": 6.0},
            "device_created_at": iso(ctx, day, start), **fields}
    record, _ = create_inspection(ctx.users["inspector"], InspectionCreateSchema().load(body))
    return record


def _finding(inspection, item_key: str) -> Finding:
    return db.session.scalar(select(Finding).where(Finding.inspection_id == inspection.id,
                                                   Finding.item_key == item_key))


@demo_step
def seed_inspections(ctx: DemoContext) -> None:
    sites = field_sites(ctx)
    if not sites:
        return  # No active permit is assigned to the inspector: there is no site to inspect.
    permit = sites[0][1]
    phase = permit.phases[0].name if permit.phases else None
    _inspect(ctx, permit, "post_installation", 27, "08:30", "09:45", phase=phase, status="submitted",
             weather={"conditions": "partly cloudy", "temperature_f": 55, "rainfall_in_24h": 0},
             checklist={"template": DEFAULT_KEY, "items": _answers()},
             notes="Compost sock and silt fence installed along the wetland buffer; entrance stone and inlet "
                   "locations marked.")
    routine = _inspect(ctx, permit, "routine", 14, "09:30", "10:40", phase=phase, status="submitted",
                       weather={"conditions": "sunny", "temperature_f": 61, "rainfall_in_24h": 0},
                       checklist={"template": DEFAULT_KEY, "items": _answers()},
                       notes="Perimeter sock and silt fence in place along the wetland buffer; entrance stone clean.")
    review_inspection(ctx.users["supervisor"], routine, {"decision": "approved", "comment": "Thorough, thank you."})
    storm = _inspect(ctx, permit, "storm_event", 3, "08:15", "09:30", phase=phase, status="submitted",
                     weather={"conditions": "clearing after heavy rain", "temperature_f": 54, "rainfall_in_24h": 1.3},
                     checklist={"template": DEFAULT_KEY, "items": _answers(dict([SILT_FENCE, INLETS]))},
                     unsafe_areas=["Lot 6 slope below the haul road: saturated, not walked"],
                     notes="Inspection after 1.3 in of rain overnight (Fairhaven DPW gauge).")
    _inspect(ctx, permit, "follow_up", 1, "10:00", "10:35", phase=phase, status="submitted",
             verifies_finding_ids=[_finding(storm, SILT_FENCE[0]).id],
             weather={"conditions": "overcast", "temperature_f": 57, "rainfall_in_24h": 0},
             checklist={"template": DEFAULT_KEY, "items": _answers(dict([INLETS_AGAIN]))},
             notes="Silt fence behind lot 6 re-trenched and restaked; accumulated sediment removed.")
    other = sites[1][1] if len(sites) > 1 else permit
    if other is not permit:
        other_phase = other.phases[0].name if other.phases else None
        for kind, day, start, end, notes in (
                ("post_installation", 28, "13:00", "13:50", "Silt fence along the swale and the stone entrance in."),
                ("routine", 16, "09:10", "10:00", "Controls in order; stockpile covered."),
                ("routine", 8, "14:00", "14:45", "Controls in order; washout lined ahead of the slab pour.")):
            _inspect(ctx, other, kind, day, start, end, phase=other_phase, status="submitted", notes=notes,
                     weather={"conditions": "overcast", "temperature_f": 52, "rainfall_in_24h": 0},
                     checklist={"template": DEFAULT_KEY, "items": _answers()})
    _inspect(ctx, other, "routine", 1, "14:20", None, checklist={"template": DEFAULT_KEY, "items": _answers(limit=6)},
             weather={"conditions": "overcast", "temperature_f": 58, "rainfall_in_24h": 0},
             notes="Started; yard walk to finish after the concrete pour.")
