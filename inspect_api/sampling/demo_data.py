"""Demo data: discharge samples on the inspector's active sites.

Turbidity at the first site's outfall on the routine and the storm-event visits (below the weekly
benchmark), and a pH reading at the second site's washout area that exceeds the per-sample action
level, so the sample raises its own finding (R-S2).
"""
from __future__ import annotations

from ..demo_steps import DemoContext, demo_step
from ..entry.demo_data import field_sites, iso
from .schemas import SampleCreateSchema
from .services import create_sample

FIELD_METER = "EPA 180.1 (field turbidimeter)"


def _sample(ctx: DemoContext, permit, day: int, hhmm: str, outfall: str, parameters: list[dict], notes: str,
            offset: tuple[float, float]) -> None:
    body = {"permit_id": permit.id, "sampled_at": iso(ctx, day, hhmm), "sampler": ctx.users["inspector"].name,
            "location": {"lat": round(permit.site_lat + offset[0], 6), "lon": round(permit.site_lon + offset[1], 6)},
            "outfall_id": outfall, "sample_type": "grab", "analysis": "field", "parameters": parameters,
            "analyzed_at": iso(ctx, day, hhmm), "notes": notes, "device_created_at": iso(ctx, day, hhmm)}
    create_sample(ctx.users["inspector"], SampleCreateSchema().load(body))


@demo_step
def seed_samples(ctx: DemoContext) -> None:
    sites = field_sites(ctx)
    if not sites:
        return  # No active permit is assigned to the inspector: there is no discharge to sample.
    permit = sites[0][1]
    _sample(ctx, permit, 14, "10:20", "OF-1", [{"name": "turbidity", "value": "12", "unit": "NTU",
                                                "method": FIELD_METER}],
            "Clear flow from the detention basin outlet to the wetland.", (-0.0009, 0.0004))
    _sample(ctx, permit, 3, "08:40", "OF-1", [{"name": "turbidity", "value": "38", "unit": "NTU",
                                               "method": FIELD_METER},
                                              {"name": "temperature", "value": "11.5", "unit": "C"}],
            "Slightly turbid after 1.3 in of rain; no plume in the wetland.", (-0.0009, 0.0004))
    other = sites[1][1] if len(sites) > 1 else permit
    _sample(ctx, other, 6, "13:05", "OF-2", [{"name": "ph", "value": "9.1", "unit": "SU", "method": "SM 4500-H+ B"},
                                             {"name": "temperature", "value": "14.2", "unit": "C"}],
            "Grey runoff from the concrete washout area reaching the swale.", (0.0003, -0.0005))
