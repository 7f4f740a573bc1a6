"""The default erosion and sediment control (ESC) checklist of DOMAIN.md R-I3.

Practice: Massachusetts Erosion and Sediment Control Guidelines for Urban and Suburban Areas, the
EPA Construction General Permit inspection form, and Massachusetts town regulations.
`needs_new_control_default` says whether a deficiency usually means installing or replacing a control
(7 calendar days, R-I4) rather than maintaining one (next business day); the inspector may override it
per answer.
"""
from __future__ import annotations

from sqlalchemy import select

from ..extensions import db
from ..seed import seeder
from .models import ChecklistTemplate

DEFAULT_KEY = "esc"
DEFAULT_TITLE = "Erosion and sediment control inspection"


def _item(key: str, label: str, control: str, help_text: str, *, new_control: bool, photo: bool = True) -> dict:
    return {"key": key, "label": label, "help_text": help_text, "control": control,
            "photo_expected_when_deficient": photo, "needs_new_control_default": new_control}


DEFAULT_ITEMS = [
    _item("limit_of_work_marked", "Limit of work marked", "limit of work flagging or fencing",
          "The limit of work shown on the ESC plan is marked in the field (flagging, orange fence or stakes) and no "
          "clearing or grading has gone past it. Note any disturbance outside the line.", new_control=False),
    _item("perimeter_controls_installed", "Perimeter controls installed", "perimeter controls",
          "Silt fence, compost filter sock or straw wattles are in place along every down-slope edge shown on the "
          "plan before upslope grading; silt fence is trenched in and staked, socks and wattles are staked with "
          "no gaps at joints.", new_control=True),
    _item("perimeter_controls_maintained", "Perimeter controls maintained", "perimeter controls",
          "Perimeter controls are upright and intact, with no undercutting, tears or overtopping, and sediment "
          "behind them is removed before it reaches one half of the control's above-ground height.",
          new_control=False),
    _item("construction_entrance_stabilized", "Stabilized construction entrance", "stabilized construction entrance",
          "Every vehicle exit has a stone construction entrance (typically 2-3 in. crushed stone on geotextile, at "
          "least 50 ft long or as the plan shows) that is not clogged with mud.", new_control=True),
    _item("no_tracking_street_sweeping", "No tracking onto streets; street sweeping", "street sweeping",
          "No sediment is tracked onto public or private ways; any tracked sediment is swept (not washed) from the "
          "street by the end of the working day.", new_control=False),
    _item("inlet_protection", "Catch basin and inlet protection", "catch basin / inlet protection",
          "Every catch basin and inlet that can receive runoff from the site, on or off site, has inlet protection "
          "(silt sack, filter fabric or sock) that is intact, not clogged and not bypassed.", new_control=True),
    _item("check_dams", "Check dams", "check dams",
          "Check dams in swales and ditches are in place as designed, the center lower than the edges, with "
          "sediment removed before it reaches half the dam height and no flow around the ends.", new_control=False),
    _item("stockpiles_managed", "Stockpiles covered or stabilized", "stockpile cover and perimeter",
          "Soil and material stockpiles are covered or stabilized, ringed by a perimeter control, and placed away "
          "from drainage ways, inlets, wetlands and the street.", new_control=False),
    _item("inactive_areas_stabilized", "Inactive disturbed areas stabilized", "temporary stabilization",
          "Disturbed areas where work has stopped for 14 days or more are stabilized (seed and mulch, hydroseed, "
          "erosion control blanket or similar) within 14 days of the last disturbance.", new_control=True),
    _item("slopes_protected", "Slopes protected", "slope protection",
          "Slopes are protected with erosion control blankets, mulch or other measures shown on the plan; no rills "
          "or gullies are forming and runoff is not concentrated down the slope face.", new_control=True),
    _item("sediment_traps_basins", "Sediment traps and basins", "sediment trap / basin",
          "Sediment traps and basins hold their design capacity (cleaned out at one half full or as the plan says), "
          "and outlets and spillways are stable and not eroding or discharging turbid water.", new_control=False),
    _item("dewatering_treated", "Dewatering discharge treated", "dewatering treatment",
          "Water pumped from excavations passes through a dewatering bag, sediment basin or other treatment before "
          "discharge, onto a stable area, with no visibly turbid discharge leaving the site.", new_control=True),
    _item("concrete_washout_contained", "Concrete washout contained", "concrete washout",
          "Concrete trucks and tools are washed out only into a lined, leak-free washout container or pit that is "
          "not overflowing and is away from drains and waters.", new_control=True),
    _item("dust_control", "Dust control", "dust control",
          "Dust is controlled (watering, covering, limiting traffic) so that no visible dust leaves the site.",
          new_control=False),
    _item("waste_sanitary_facilities", "Waste, litter and sanitary facilities", "waste and sanitary facilities",
          "Waste and litter are contained and covered; fuel and chemicals have secondary containment; portable "
          "toilets are secured and at least 50 ft from inlets, drainage ways and waters.", new_control=False),
    _item("outfalls_receiving_waters", "Outfalls and receiving waters free of sediment", "discharge points",
          "Discharge points, outfalls and receiving waters (streams, wetlands, the harbor) show no sediment deposits, "
          "turbid plumes or sheen from the site.", new_control=False),
    _item("plans_posted", "ESC plan and permit posted on site", "posted permit and ESC plan",
          "The approval or permit, with its number, and the current ESC plan are posted or kept on site and "
          "available to the inspector.", new_control=False, photo=False),
]


@seeder
def seed_default_checklist() -> None:
    """Version 1 of the default checklist; later versions are published by supervisors, never overwritten."""
    exists = db.session.scalar(select(ChecklistTemplate.id).where(ChecklistTemplate.key == DEFAULT_KEY,
                                                                  ChecklistTemplate.version == 1))
    if exists is None:
        db.session.add(ChecklistTemplate(key=DEFAULT_KEY, version=1, title=DEFAULT_TITLE, items=DEFAULT_ITEMS,
                                         description="Default ESC checklist (DOMAIN.md R-I3)."))
        db.session.flush()
