"""Exceedances of action levels and the findings they raise (R-S2, R-I4).

Each exceedance raises exactly one finding, however often the sample is saved again: the link
table remembers which finding an exceedance raised. Keys:
  per sample      "sample:<sample id>:<parameter>"
  weekly average  "weekly:<parameter>:<outfall id>:<week start>"  (once per discharge point and week)
A corrected value that no longer exceeds removes the open finding it raised (soft delete: the
finding is kept as evidence and leaves devices as a tombstone, like a checklist answer changed
before approval). Exceeding again restores that same finding. A finding already closed by a
follow-up inspection is never touched.
"""
from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import select

from .. import clock
from .. import audit
from ..extensions import db
from ..inspections.findings import create_finding
from ..inspections.models import Finding
from ..permits.models import Permit
from ..records import bump
from . import levels as level_config
from . import rules
from .models import ExceedanceFinding, Sample
from .units import PARAMETERS, plain

REQUIRED_ACTIONS = {
    "turbidity": "Inspect and repair the erosion and sediment controls draining to this discharge point, treat "
                 "dewatering discharges, and resample to show the discharge is back below the benchmark.",
    "ph": "Find and stop the source (concrete washout, lime, treatment chemicals), contain or neutralise the "
          "discharge before it leaves the site, and resample.",
}
DEFAULT_ACTION = "Find the source, correct the controls concerned, and resample."


def _label(parameter: str) -> str:
    return PARAMETERS[parameter].label if parameter in PARAMETERS else parameter


def _where(sample: Sample) -> str:
    if sample.outfall_id:
        return f"discharge point {sample.outfall_id}"
    if sample.location_lat is not None:
        return f"{sample.location_lat:.5f}, {sample.location_lon:.5f}"
    return "the site"


def _local(at: datetime) -> str:
    return at.astimezone(clock.town_zone()).strftime("%Y-%m-%d %H:%M")


def judge(user, permit, sample: Sample, previous: tuple[str | None, datetime] | None) -> None:
    """Recompute the sample's exceedances and bring the findings they raise in line with them.
    `previous` is the (outfall, sampled_at) before an edit, whose week must be judged again too."""
    _lock_permit(permit.id)
    levels = level_config.current_levels()
    sample.exceedances = rules.sample_exceedances(sample.parameters or [], levels)
    known = rules.known_on(sample.analysis, sample.sampled_at, sample.analyzed_at, clock.now(), clock.town_zone())
    wanted = {}
    for exceedance in sample.exceedances:
        description = (f"{_label(exceedance['parameter'])} {plain(Decimal(str(exceedance['value'])))} "
                       f"{exceedance['unit']} in the {sample.sample_type} sample taken {_local(sample.sampled_at)} at "
                       f"{_where(sample)}. {exceedance['rule']}.")
        wanted[f"sample:{sample.id}:{exceedance['parameter']}"] = (exceedance["parameter"], description)
    links = db.session.scalars(select(ExceedanceFinding).where(
        ExceedanceFinding.permit_id == permit.id, ExceedanceFinding.key.like(f"sample:{sample.id}:%"))).all()
    for link in links:
        if link.key not in wanted:
            _withdraw(user, link)
    for key, (parameter, description) in wanted.items():
        _ensure(user, permit, key, sample, parameter, description, known)
    for level in levels:
        if level.basis == rules.WEEKLY_AVERAGE:
            _judge_weeks(user, permit, sample, previous, level, known)


def _lock_permit(permit_id: str) -> None:
    """Judge one save of a permit's samples at a time: two samples saved together into one outfall-week
    must not both find "no finding yet" and raise two. (FOR NO KEY UPDATE: rows referencing the
    permit can still be inserted meanwhile; SQLite serialises writers anyway.)"""
    db.session.execute(select(Permit.id).where(Permit.id == permit_id).with_for_update(key_share=True))


def _judge_weeks(user, permit, sample: Sample, previous, level: rules.Level, known: date) -> None:
    weeks = set()
    for outfall_id, at in ((sample.outfall_id, sample.sampled_at), previous or (None, None)):
        if outfall_id:
            weeks.add((outfall_id, rules.week_start(at, clock.town_zone())))
    for outfall_id, week in sorted(weeks):
        row = week_row(permit.id, outfall_id, week, level)
        key = f"weekly:{level.parameter}:{outfall_id}:{week.isoformat()}"
        if row is not None and row.exceeds:
            description = (f"Weekly average {_label(level.parameter).lower()} {plain(row.average.quantize(Decimal('0.01')))} "
                           f"{level.unit} at discharge point {outfall_id} for the week of {week.isoformat()} "
                           f"({row.samples} sample{'s' if row.samples != 1 else ''}). {level.describe()}.")
            _ensure(user, permit, key, sample, level.parameter, description, known)
        else:
            link = _link(permit.id, key)
            if link is not None:
                _withdraw(user, link)


def readings(permit_id: str, parameter: str, unit: str, outfall_id: str | None = None,
             bounds: tuple[datetime, datetime] | None = None) -> list[tuple[str, datetime, Decimal]]:
    """(outfall, sampled_at, value) of every sample of the permit with this parameter at an outfall.
    Samples without an outfall id are not averaged: the benchmark is per discharge point."""
    query = select(Sample).where(Sample.permit_id == permit_id, Sample.outfall_id.is_not(None))
    if outfall_id is not None:
        query = query.where(Sample.outfall_id == outfall_id)
    if bounds is not None:
        query = query.where(Sample.sampled_at >= bounds[0], Sample.sampled_at < bounds[1])
    found = []
    for sample in db.session.scalars(query.order_by(Sample.sampled_at, Sample.id)):
        value = rules.parameter_value(sample.parameters or [], parameter, unit)
        if value is not None:
            found.append((sample.outfall_id, sample.sampled_at, value))
    return found


def week_row(permit_id: str, outfall_id: str, week: date, level: rules.Level) -> rules.WeeklyRow | None:
    data = readings(permit_id, level.parameter, level.unit, outfall_id, rules.week_bounds(week, clock.town_zone()))
    rows = rules.weekly_rows(data, clock.town_zone(), level)
    return rows[0] if rows else None


def _link(permit_id: str, key: str) -> ExceedanceFinding | None:
    return db.session.scalar(select(ExceedanceFinding).where(ExceedanceFinding.permit_id == permit_id,
                                                             ExceedanceFinding.key == key))


def _ensure(user, permit, key: str, sample: Sample, parameter: str, description: str, known: date) -> None:
    link = _link(permit.id, key)
    if link is None:
        finding = create_finding(permit, kind="exceedance", description=description, observed_on=known,
                                 sample_id=sample.id, parameter=parameter, actor=user,
                                 required_action=REQUIRED_ACTIONS.get(parameter, DEFAULT_ACTION))
        db.session.add(ExceedanceFinding(permit_id=permit.id, key=key, finding_id=finding.id, sample_id=sample.id))
        db.session.flush()
        return
    finding = db.session.get(Finding, link.finding_id)
    if link.withdrawn:
        link.withdrawn = False
        _change(user, finding, "finding.restore", deleted_at=None, description=description)
    elif finding.status == "open" and finding.deleted_at is None and finding.description != description:
        _change(user, finding, "finding.update", description=description)


def _withdraw(user, link: ExceedanceFinding) -> None:
    if link.withdrawn:
        return
    finding = db.session.get(Finding, link.finding_id)
    if finding.status != "open" or finding.deleted_at is not None:
        return
    link.withdrawn = True
    _change(user, finding, "finding.withdraw", deleted_at=clock.now())


def _change(user, finding: Finding, action: str, **values: Any) -> None:
    before = {key: getattr(finding, key) for key in values}
    for key, value in values.items():
        setattr(finding, key, value)
    bump(finding)
    db.session.flush()
    audit.record(action, "finding", finding.id, audit.diff(before, values), actor=user, permit_id=finding.permit_id)


def weekly_report(permit, parameter: str = "turbidity") -> list[dict[str, Any]]:
    """Every outfall-week of the permit with its average and whether it exceeds the weekly level."""
    level = level_config.weekly_level(parameter)
    unit = level.unit if level else PARAMETERS[parameter].canonical_unit
    rows = rules.weekly_rows(readings(permit.id, parameter, unit), clock.town_zone(), level)
    links = {link.key: link for link in db.session.scalars(select(ExceedanceFinding).where(
        ExceedanceFinding.permit_id == permit.id, ExceedanceFinding.key.like(f"weekly:{parameter}:%")))}
    report = []
    for row in rows:
        link = links.get(f"weekly:{parameter}:{row.outfall_id}:{row.week_start.isoformat()}")
        report.append({
            "outfall_id": row.outfall_id, "week_start": row.week_start, "samples": row.samples,
            "average_ntu": float(row.average), "exceeds": row.exceeds,
            "action_level_ntu": float(level.maximum) if level and level.maximum is not None else None,
            "finding_id": link.finding_id if link and not link.withdrawn else None,
        })
    return report
