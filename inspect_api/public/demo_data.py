"""Demo data: two reports from residents. One, in Portuguese, waits in the office's queue near an active
site (the supervisor links it there and a complaint inspection falls due); the other was closed with the
Town's answer, which anyone holding its reference reads on the public pages."""
from __future__ import annotations

from datetime import datetime, time, timedelta

from ..clock import town_zone
from ..demo_steps import DemoContext, demo_step
from ..entry.demo_data import field_sites
from .reports import submit_report
from .triage import triage


@demo_step
def seed_public_reports(ctx: DemoContext) -> None:
    sites = field_sites(ctx)
    if not sites:
        return
    site = sites[0][1]
    point = (site.site or {}).get("location") or {}
    seen = datetime.combine(ctx.today - timedelta(days=1), time(17, 40), tzinfo=town_zone())
    waiting = {"description": "Água barrenta a sair da obra para a sarjeta da rua depois da chuva de ontem.",
               "location": {"lat": point["lat"] + 0.0003, "lon": point["lon"], "accuracy_m": 12.0} if point else None,
               "address": None if point else (site.site or {}).get("address"),
               "observed_at": seen, "contact": {"name": "Maria Medeiros", "email": "maria.medeiros@example.org",
                                                "phone": None}}
    submit_report(waiting, [], language="pt")
    answered = submit_report({"description": "Trucks leaving mud on the street at the corner every morning.",
                              "location": None, "address": (site.site or {}).get("address"), "observed_at": None,
                              "contact": None}, [], language="en")
    triage(ctx.users["supervisor"], answered.id, {
        "action": "close", "answer": "The contractor swept the street the same day and added a second row of "
                                     "stone at the construction entrance."}, answered.version)
