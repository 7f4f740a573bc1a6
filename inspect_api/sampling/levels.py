"""Action levels as configuration (R-S2): read by every sample save, replaced by supervisors.

A change applies to samples saved afterwards; each exceedance already recorded names the level it
was judged against, so past records stay explainable."""
from __future__ import annotations

from decimal import Decimal
from typing import Any

from sqlalchemy import select

from .. import audit
from ..errors import ValidationFailed
from ..extensions import db
from . import rules
from .models import ActionLevel
from .units import convert, known_parameter, plain


def _level(row: ActionLevel) -> rules.Level:
    return rules.Level(parameter=row.parameter, unit=row.unit,
                       minimum=None if row.min_value is None else Decimal(row.min_value),
                       maximum=None if row.max_value is None else Decimal(row.max_value),
                       basis=row.basis, citation=row.citation or "")


def _enabled_rows() -> list[ActionLevel]:
    return list(db.session.scalars(select(ActionLevel).where(ActionLevel.enabled.is_(True))
                                   .order_by(ActionLevel.parameter, ActionLevel.basis)))


def current_levels() -> list[rules.Level]:
    return [_level(row) for row in _enabled_rows()]


def weekly_level(parameter: str) -> rules.Level | None:
    return next((lv for lv in current_levels() if lv.parameter == parameter and lv.basis == rules.WEEKLY_AVERAGE), None)


def dump_level(row: ActionLevel) -> dict[str, Any]:
    level = _level(row)
    return {"parameter": row.parameter, "basis": row.basis, "unit": row.unit,
            "min": None if level.minimum is None else float(level.minimum),
            "max": None if level.maximum is None else float(level.maximum),
            "citation": row.citation, "rule": level.describe(), "updated_at": row.updated_at,
            "updated_by": row.updated_by}


def list_levels() -> list[dict[str, Any]]:
    return [dump_level(row) for row in _enabled_rows()]


def _bound(raw: Any, param, unit: str, field: str, errors: dict[str, list[str]]) -> str | None:
    if raw is None:
        return None
    try:
        value = rules.parse_value(raw)
    except rules.ParameterProblem as problem:
        errors.setdefault(field, []).append(problem.message)
        return None
    return plain(convert(param, value, unit) if param is not None else value)


def _validated(item: dict[str, Any]) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """One level, in the parameter's canonical unit for known parameters (R-S3)."""
    errors: dict[str, list[str]] = {}
    param = known_parameter(item["parameter"])
    unit = item["unit"].strip()
    if param is not None and unit not in param.units:
        errors["unit"] = [f"Unknown unit '{unit}' for {param.name}; use one of: {', '.join(param.allowed_units)}."]
        return {}, errors
    low = _bound(item.get("min"), param, unit, "min", errors)
    high = _bound(item.get("max"), param, unit, "max", errors)
    if not errors and low is None and high is None:
        errors["max"] = ["Give a min, a max, or both."]
    if low is not None and high is not None and Decimal(low) > Decimal(high):
        errors["min"] = ["Must not be above max."]
    values = {"parameter": param.name if param else item["parameter"].strip(), "basis": item["basis"],
              "unit": param.canonical_unit if param else unit, "min_value": low, "max_value": high,
              "citation": (item.get("citation") or "").strip()}
    return values, errors


def replace_levels(user, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Make `items` the complete set of action levels; levels left out are disabled."""
    errors: dict[str, Any] = {}
    wanted: dict[tuple[str, str], dict[str, Any]] = {}
    for index, item in enumerate(items):
        values, item_errors = _validated(item)
        if not item_errors and (values["parameter"], values["basis"]) in wanted:
            item_errors = {"basis": [f"{values['parameter']} already has a {values['basis']} level."]}
        if item_errors:
            errors[str(index)] = item_errors
            continue
        wanted[(values["parameter"], values["basis"])] = values
    if errors:
        raise ValidationFailed("Some action levels are not valid.", errors={"levels": errors})
    before = {f"{row.parameter}/{row.basis}": dump_level(row) for row in _enabled_rows()}
    rows = {(row.parameter, row.basis): row for row in db.session.scalars(select(ActionLevel))}
    for key, row in rows.items():
        if key not in wanted and row.enabled:
            row.enabled, row.updated_by = False, user.id
    for key, values in wanted.items():
        row = rows.get(key) or ActionLevel(parameter=key[0], basis=key[1])
        changed = not row.enabled or any(getattr(row, k) != v for k, v in values.items())
        if row.id is None or changed:
            for name, value in values.items():
                setattr(row, name, value)
            row.enabled, row.updated_by = True, user.id
            db.session.add(row)
    db.session.flush()
    after = {f"{row.parameter}/{row.basis}": dump_level(row) for row in _enabled_rows()}
    audit.record("action_levels.replace", "action_levels", "action_levels", audit.diff(before, after), actor=user)
    return list_levels()
