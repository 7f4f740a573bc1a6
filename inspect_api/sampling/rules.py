"""Sampling rules (R-S): parameter validation and units, holding times, action levels.

Pure functions over plain data: no database, no Flask. Numbers are Decimal throughout so that
comparisons against action levels and conversions are exact.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta, tzinfo
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import Any, Iterable

from .units import MASS_CONCENTRATION, PARAMETERS, convert, known_parameter, plain

_DECIMAL_TEXT = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d{1,3})?$")
MAX_MAGNITUDE = Decimal("1e12")
MIN_EXPONENT = -12


class ParameterProblem(ValueError):
    """One field of one parameter is wrong; `field` names it ("value", "unit", "name")."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


def parse_value(raw: Any) -> Decimal:
    """A finite number sent as a JSON number or as decimal text ("12.50"); never NaN or infinity."""
    if isinstance(raw, bool) or raw is None:
        raise ParameterProblem("value", "Must be a number.")
    if isinstance(raw, int):
        value = Decimal(raw)
    elif isinstance(raw, float):
        if not math.isfinite(raw):
            raise ParameterProblem("value", "Must be a finite number (not NaN or infinity).")
        value = Decimal(repr(raw))  # the shortest text that reads back as the number the client sent
    elif isinstance(raw, str) and len(raw) <= 40 and _DECIMAL_TEXT.match(raw.strip()):
        try:
            value = Decimal(raw.strip())
        except InvalidOperation:
            raise ParameterProblem("value", "Must be a number.") from None
    else:
        raise ParameterProblem("value", "Must be a number.")
    if abs(value) >= MAX_MAGNITUDE or (value != 0 and value.adjusted() < MIN_EXPONENT):
        raise ParameterProblem("value", "The number is out of any measurable range.")
    return value


def normalise_parameter(item: dict[str, Any]) -> dict[str, Any]:
    """R-S3: validate one {name, value, unit, method?}; return it with the normalised value and unit.

    A known parameter takes only its listed units (an unknown one is an error naming the allowed
    units, never a guess) and only physically possible values. Free-form parameters keep their unit;
    a mass concentration among them is still converted to mg/L and may not be negative."""
    name = str(item.get("name") or "").strip()
    unit = str(item.get("unit") or "").strip()
    if not name:
        raise ParameterProblem("name", "Name the parameter.")
    if not unit:
        raise ParameterProblem("unit", "Give the unit.")
    param = known_parameter(name)
    stored = {"name": param.name if param else name, "value": item.get("value"), "unit": unit,
              "method": item.get("method") or None, **custody_labels(item)}
    if param is not None and unit not in param.units:
        raise ParameterProblem("unit", f"Unknown unit '{unit}' for {param.name}; use one of: "
                                       f"{', '.join(param.allowed_units)}.")
    if item.get("value") is None:
        # A lab analysis requested, its result awaited: nothing to convert or judge yet.
        canonical = param.canonical_unit if param else ("mg/L" if unit in MASS_CONCENTRATION else unit)
        return {**stored, "normalized_value": None, "normalized_unit": canonical}
    value = parse_value(item.get("value"))
    if param is None:
        if unit in MASS_CONCENTRATION:
            if value < 0:
                raise ParameterProblem("value", "A concentration cannot be negative.")
            mg_per_l = convert(PARAMETERS["tss"], value, unit)
            return {**stored, "normalized_value": plain(mg_per_l), "normalized_unit": "mg/L"}
        return {**stored, "normalized_value": plain(value), "normalized_unit": unit}
    normalized = convert(param, value, unit)
    low, high = param.minimum, param.maximum
    if (low is not None and normalized < low) or (high is not None and normalized > high):
        raise ParameterProblem("value", f"{plain(value)} {unit} is not possible: {param.bound_reason}.")
    return {**stored, "normalized_value": plain(normalized), "normalized_unit": param.canonical_unit}


def custody_labels(item: dict[str, Any]) -> dict[str, str]:
    """The container and preservative written for an analysis (free text, trimmed); absent when not given,
    so parameters recorded without them keep the shape they always had."""
    labels = {}
    for key in ("container", "preservative"):
        text = str(item.get(key) or "").strip()
        if text:
            labels[key] = text
    return labels


def pending_problems(parameters: list[dict[str, Any]], analysis: str) -> dict[str, Any]:
    """R-S1: only a lab analysis may wait for its result; a field reading is taken on the spot."""
    if analysis == "lab":
        return {}
    errors = {str(index): {"value": ["A field reading needs its value; only a lab analysis may await its result."]}
              for index, item in enumerate(parameters) if item.get("value") is None}
    return {"parameters": errors} if errors else {}


def normalise_parameters(items: Iterable[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """All parameters of a sample: (normalised list, field errors keyed by list index)."""
    result: list[dict[str, Any]] = []
    errors: dict[str, Any] = {}
    seen: dict[str, int] = {}
    for index, item in enumerate(items):
        try:
            normalised = normalise_parameter(item)
        except ParameterProblem as problem:
            errors.setdefault(str(index), {})[problem.field] = [problem.message]
            continue
        key = normalised["name"].lower()
        if key in seen:
            # One value per parameter keeps exceedances and averages unambiguous; replicates are averaged first.
            errors.setdefault(str(index), {})["name"] = [
                f"{normalised['name']} is already given (item {seen[key]}); record one value per parameter."]
            continue
        seen[key] = index
        result.append(normalised)
    return result, errors


# Holding times (R-S1, practice: 40 CFR 136.3 Table II) ------------------------------------------

def iso_duration(delta: timedelta) -> str:
    """A duration as ISO 8601 text in whole seconds (`P1DT2H`, `PT0S`, `-PT5M`)."""
    return _iso_seconds(int(delta.total_seconds()))


@lru_cache(maxsize=4096)
def _iso_seconds(seconds: int) -> str:
    """iso_duration of a whole number of seconds, kept: a page of samples writes one per sample, most of
    them again and again (an analysed sample's time never changes)."""
    sign = "-" if seconds < 0 else ""
    seconds = abs(seconds)
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    time = "".join(f"{n}{u}" for n, u in ((hours, "H"), (minutes, "M"), (secs, "S")) if n)
    text = f"P{days}D" if days else "P"
    if time or not days:
        text += "T" + (time or "0S")
    return sign + text


# Each parameter with a holding time, by the names it is stored under: its name, its limit and the
# limit as ISO 8601 text and as seconds, worked out once (a page of samples reports a few hundred).
_HOLDS = {key: (param.name, param.holding_time, iso_duration(param.holding_time),
                int(param.holding_time.total_seconds()))
          for key, param in PARAMETERS.items() if param.holding_time is not None}


def duration_words(seconds: int) -> str:
    """A holding time, time left or overrun in the words the app and the custody form use (and the app's
    rules/samples.js mirrors): whole minutes, rounded down; under an hour in minutes ("15 min"), under
    three days in hours and minutes ("48 h", "1 h 12 min"), beyond in days and hours ("7 days", "3 days 4 h")."""
    minutes = max(0, int(seconds)) // 60
    if minutes == 0:
        return "under 1 min"
    if minutes < 60:
        return f"{minutes} min"
    hours, rest = divmod(minutes, 60)
    if hours < 72:
        return f"{hours} h" + (f" {rest} min" if rest else "")
    days, hours = divmod(hours, 24)
    return f"{days} days" + (f" {hours} h" if hours else "")


RUNNING, WITHIN, EXCEEDED, NOT_JUDGED = "running", "within", "exceeded", "not_judged"


def holding_status(limit: timedelta, elapsed: timedelta | None, analyzed: bool) -> str:
    """The holding-time verdict for one analysis (R-S1). The edge, to the exact instant: an analysis
    made exactly at the limit (48 h 0 min 0 s for turbidity) is within it; any time after it (one
    second, one minute) is exceeded. Not analysed yet: running while within, exceeded once past."""
    if elapsed is None:
        return NOT_JUDGED
    if elapsed > limit:
        return EXCEEDED
    return WITHIN if analyzed else RUNNING


def holding_times(parameters: list[dict[str, Any]], sampled_at: datetime, analyzed_at: datetime | None,
                  analysis: str, now: datetime) -> list[dict[str, Any]]:
    """Per known parameter with a holding time: the time from sampling to analysis against the limit.

    Lab samples not analysed yet are measured to `now` (the clock is running); a field reading
    without `analyzed_at` cannot be judged and reports elapsed and ok as null. Exactly at the
    limit is still within it (holding_status)."""
    end = analyzed_at or (now if analysis == "lab" else None)
    elapsed = None if end is None else end - sampled_at  # the same for each of the sample's parameters
    elapsed_text = elapsed_seconds = None
    if elapsed is not None:
        elapsed_seconds = int(elapsed.total_seconds())
        elapsed_text = _iso_seconds(elapsed_seconds)
    analyzed = analyzed_at is not None
    report = []
    for item in parameters:
        hold = _HOLDS.get(item["name"])
        if hold is None:
            continue
        name, limit, limit_text, limit_seconds = hold
        status = holding_status(limit, elapsed, analyzed)
        report.append({
            "parameter": name, "limit": limit_text, "limit_seconds": limit_seconds,
            "elapsed": elapsed_text, "elapsed_seconds": elapsed_seconds,
            "analyzed": analyzed, "deadline": sampled_at + limit,
            "ok": None if elapsed is None else status != EXCEEDED, "status": status,
            "exceeded_by_seconds": int((elapsed - limit).total_seconds()) if status == EXCEEDED else None,
        })
    return report


# Action levels (R-S2) ------------------------------------------------------------------------------

PER_SAMPLE, WEEKLY_AVERAGE = "per_sample", "weekly_average"


@dataclass(frozen=True)
class Level:
    parameter: str
    unit: str
    minimum: Decimal | None
    maximum: Decimal | None
    basis: str
    citation: str

    def outside(self, value: Decimal) -> bool:
        """Exceeding means strictly beyond the level: 50 NTU meets a 50 NTU benchmark."""
        return (self.minimum is not None and value < self.minimum) or (self.maximum is not None and value > self.maximum)

    def describe(self) -> str:
        label = PARAMETERS[self.parameter].label if self.parameter in PARAMETERS else self.parameter
        basis = " (weekly average per discharge point)" if self.basis == WEEKLY_AVERAGE else ""
        if self.minimum is not None and self.maximum is not None:
            text = f"{label} outside {plain(self.minimum)}\u2013{plain(self.maximum)} {self.unit}"
        elif self.maximum is not None:
            text = f"{label} above {plain(self.maximum)} {self.unit}"
        else:
            text = f"{label} below {plain(self.minimum)} {self.unit}"
        return f"R-S2: {text}{basis}" + (f"; {self.citation}" if self.citation else "")

    def as_dict(self) -> dict[str, Any]:
        return {"min": None if self.minimum is None else float(self.minimum),
                "max": None if self.maximum is None else float(self.maximum), "unit": self.unit, "basis": self.basis}


def sample_exceedances(parameters: list[dict[str, Any]], levels: Iterable[Level]) -> list[dict[str, Any]]:
    """Per-sample levels only; weekly averages are judged per outfall-week (see weekly_rows)."""
    by_name = {item["name"]: item for item in parameters}
    found = []
    for level in levels:
        item = by_name.get(level.parameter)
        if (level.basis != PER_SAMPLE or item is None or item["normalized_unit"] != level.unit
                or item["normalized_value"] is None):
            continue
        value = Decimal(item["normalized_value"])
        if level.outside(value):
            found.append({"parameter": level.parameter, "value": float(value), "unit": level.unit,
                          "action_level": level.as_dict(), "rule": level.describe()})
    return found


def parameter_value(parameters: list[dict[str, Any]], name: str, unit: str) -> Decimal | None:
    for item in parameters:
        if item["name"] == name and item["normalized_unit"] == unit and item["normalized_value"] is not None:
            return Decimal(item["normalized_value"])
    return None


def week_start(at: datetime, zone: tzinfo) -> date:
    """The Monday of the local (town) calendar week holding `at`."""
    local = at.astimezone(zone).date()
    return local - timedelta(days=local.weekday())


@dataclass(frozen=True)
class WeeklyRow:
    outfall_id: str
    week_start: date
    samples: int
    total: Decimal
    exceeds: bool

    @property
    def average(self) -> Decimal:
        return self.total / self.samples


def weekly_rows(readings: Iterable[tuple[str, datetime, Decimal]], zone: tzinfo,
                level: Level | None) -> list[WeeklyRow]:
    """Group (outfall_id, sampled_at, value) by outfall and town-calendar week (Monday start) and
    judge each average against `level`. The comparison is made on the exact sum (sum > level x n),
    so an average of exactly 50 NTU never counts as above 50 through rounding."""
    groups: dict[tuple[str, date], list[Decimal]] = {}
    for outfall_id, at, value in readings:
        groups.setdefault((outfall_id, week_start(at, zone)), []).append(value)
    rows = []
    for (outfall_id, week), values in sorted(groups.items()):
        total, count = sum(values, Decimal(0)), len(values)
        exceeds = False
        if level is not None:
            exceeds = ((level.maximum is not None and total > level.maximum * count)
                       or (level.minimum is not None and total < level.minimum * count))
        rows.append(WeeklyRow(outfall_id, week, count, total, exceeds))
    return rows


def place_problems(location_lat: float | None, outfall_id: str | None) -> dict[str, list[str]]:
    """R-S1: a sample is placed by a location point and/or an outfall id."""
    if location_lat is None and not outfall_id:
        return {"location": ["Give the location, the outfall_id, or both."]}
    return {}


def check_times(sampled_at: datetime, analyzed_at: datetime | None, received_by_lab_at: datetime | None,
                chain_of_custody: list[dict[str, Any]], lab_receipt_given: bool = False) -> dict[str, list[str]]:
    """Times that cannot be (R-S1 chain of custody): analysis or custody before the sample existed,
    hand-overs out of time order, the lab's receipt before the last hand-over (the lab cannot receive
    a sample someone still held), and a lab receipt (who, temperature) without its time. Equal times
    are in order: a hand-over at the very minute of sampling, or the lab signing at the courier's minute."""
    errors: dict[str, list[str]] = {}
    if analyzed_at is not None and analyzed_at < sampled_at:
        errors["analyzed_at"] = ["Cannot be before sampled_at."]
    if received_by_lab_at is not None and received_by_lab_at < sampled_at:
        errors["received_by_lab_at"] = ["Cannot be before sampled_at."]
    previous = sampled_at
    for index, transfer in enumerate(chain_of_custody):
        if transfer["at"] < previous:
            errors.setdefault("chain_of_custody", []).append(
                f"Transfer {index} is before " + ("sampled_at." if index == 0 else f"transfer {index - 1}."))
        previous = max(previous, transfer["at"])
    if (received_by_lab_at is not None and received_by_lab_at >= sampled_at and chain_of_custody
            and received_by_lab_at < max(t["at"] for t in chain_of_custody)):
        errors["received_by_lab_at"] = ["The lab cannot receive the sample before its last hand-over."]
    if received_by_lab_at is None and lab_receipt_given:
        errors["received_by_lab_at"] = ["Give when the lab received the sample."]
    return errors


def known_on(analysis: str, sampled_at: datetime, analyzed_at: datetime | None, now: datetime, zone: tzinfo) -> date:
    """The town-calendar day a result became known, from which a finding's due date runs (R-I4):
    a field reading is known when taken; a lab result when analysed, or today if not yet dated."""
    if analysis == "field":
        at = sampled_at
    else:
        at = analyzed_at or now
    return at.astimezone(zone).date()


def week_bounds(week: date, zone: tzinfo) -> tuple[datetime, datetime]:
    """The instants [Monday 00:00, next Monday 00:00) of a town-calendar week, DST included."""
    start = datetime.combine(week, datetime.min.time(), zone)
    end = datetime.combine(week + timedelta(days=7), datetime.min.time(), zone)
    return start, end
