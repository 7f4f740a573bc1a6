"""Demo data: yesterday's rain (a NOAA CDO daily total over the threshold), so every active site assigned
to the demo inspector owes a storm-event inspection today, and a re-inspection the demo applicant asked for."""
from __future__ import annotations

from datetime import timedelta

from ..demo_steps import DemoContext, demo_step
from ..entry.demo_data import field_sites
from ..extensions import db
from .inspection_requests import create_inspection_request
from .storm_events import import_daily_csv


@demo_step
def seed_storm_and_request(ctx: DemoContext) -> None:
    yesterday = ctx.today - timedelta(days=1)
    import_daily_csv(ctx.users["supervisor"],
                     '"STATION","NAME","DATE","PRCP"\n'
                     f'"USW00094726","NEW BEDFORD REGIONAL AIRPORT, MA US","{yesterday.isoformat()}","0.62"\n',
                     "demo-cdo.csv")
    applicant = ctx.users["applicant"]
    mine = [permit for _key, permit in field_sites(ctx) if permit.applicant_id == applicant.id]
    if mine:
        create_inspection_request(applicant, {
            "permit_id": mine[0].id, "kind": "re_inspection", "preferred_dates": [ctx.today + timedelta(days=1)],
            "note": "Silt fence behind lot 6 re-trenched and staked; please check it before the next rain."})
    db.session.flush()
