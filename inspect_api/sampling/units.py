"""Known sample parameters, their units and exact conversions (R-S3).

Pure data and arithmetic: no database, no Flask. Values are Decimal and conversions are exact
fractions; a converted value is written out exactly when its decimal expansion terminates (every
mass-concentration and conductivity conversion does) and otherwise rounded half-even to
`INEXACT_PLACES` places (only Fahrenheit to Celsius can do that: 70 F = 21.1111 C).

Units are matched by exact spelling against a short list of accepted spellings; nothing is matched
case-insensitively because prefixes differ only by case (mS/cm versus MS/cm).

Turbidity accepts NTU only. FNU (ISO 7027, infrared light, 90 degree detector) and NTU (EPA 180.1,
white light) come from different instruments and are not interchangeable, and the CGP benchmark is
stated in NTU. A reading in FNU is therefore refused for `turbidity` rather than relabelled; it can
be recorded under a free-form parameter name such as `turbidity_fnu`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from decimal import Decimal
from fractions import Fraction

INEXACT_PLACES = 4

MICRO = ("ug", "\u00b5g", "\u03bcg")  # ASCII u, micro sign, Greek mu: all three are typed in the field


def _mass_units() -> dict[str, Fraction]:
    units = {"mg/L": Fraction(1), "mg/l": Fraction(1), "g/L": Fraction(1000), "g/l": Fraction(1000)}
    for prefix in MICRO:
        units[f"{prefix}/L"] = Fraction(1, 1000)
        units[f"{prefix}/l"] = Fraction(1, 1000)
    return units


MASS_CONCENTRATION = _mass_units()


@dataclass(frozen=True)
class Affine:
    """value_in_canonical = value * scale + offset (temperatures)."""

    scale: Fraction
    offset: Fraction = Fraction(0)


@dataclass(frozen=True)
class Parameter:
    name: str
    label: str
    canonical_unit: str
    units: dict[str, Affine]
    minimum: Decimal | None = None      # inclusive, in the canonical unit
    maximum: Decimal | None = None      # inclusive, in the canonical unit
    bound_reason: str = ""
    holding_time: timedelta | None = None  # 40 CFR 136.3 Table II (practice, R-S1)
    aliases: tuple[str, ...] = field(default=())

    @property
    def allowed_units(self) -> list[str]:
        return list(self.units)


def _scaled(table: dict[str, Fraction]) -> dict[str, Affine]:
    return {unit: Affine(scale) for unit, scale in table.items()}


NON_NEGATIVE = "a concentration or reading cannot be negative"

PARAMETERS: dict[str, Parameter] = {p.name: p for p in (
    Parameter("turbidity", "Turbidity", "NTU", _scaled({"NTU": Fraction(1)}), minimum=Decimal(0),
              bound_reason="turbidity cannot be negative", holding_time=timedelta(hours=48)),
    Parameter("tss", "Total suspended solids", "mg/L", _scaled(MASS_CONCENTRATION), minimum=Decimal(0),
              bound_reason=NON_NEGATIVE, holding_time=timedelta(days=7), aliases=("total_suspended_solids",)),
    Parameter("ph", "pH", "SU", _scaled({"SU": Fraction(1), "s.u.": Fraction(1)}), minimum=Decimal(0),
              maximum=Decimal(14), bound_reason="pH lies between 0 and 14 SU", holding_time=timedelta(minutes=15)),
    Parameter("temperature", "Temperature", "C", {
        "C": Affine(Fraction(1)), "\u00b0C": Affine(Fraction(1)), "degC": Affine(Fraction(1)),
        "F": Affine(Fraction(5, 9), Fraction(-160, 9)), "\u00b0F": Affine(Fraction(5, 9), Fraction(-160, 9)),
        "degF": Affine(Fraction(5, 9), Fraction(-160, 9)),
        "K": Affine(Fraction(1), Fraction(-27315, 100)),
    }, minimum=Decimal(-5), maximum=Decimal(100),
        bound_reason="a water sample is liquid: between -5 and 100 \u00b0C", holding_time=timedelta(minutes=15),
        aliases=("water_temperature",)),
    Parameter("dissolved_oxygen", "Dissolved oxygen", "mg/L", _scaled(MASS_CONCENTRATION), minimum=Decimal(0),
              bound_reason=NON_NEGATIVE, holding_time=timedelta(minutes=15)),
    Parameter("conductivity", "Conductivity", "uS/cm", _scaled({
        "uS/cm": Fraction(1), "\u00b5S/cm": Fraction(1), "\u03bcS/cm": Fraction(1), "mS/cm": Fraction(1000)}),
        minimum=Decimal(0), bound_reason=NON_NEGATIVE, holding_time=timedelta(days=28)),
    Parameter("oil_and_grease", "Oil and grease", "mg/L", _scaled(MASS_CONCENTRATION), minimum=Decimal(0),
              bound_reason=NON_NEGATIVE, holding_time=timedelta(days=28), aliases=("oil_grease",)),
)}

_BY_ALIAS = {alias: p for p in PARAMETERS.values() for alias in (p.name, *p.aliases)}


def name_key(name: str) -> str:
    """`Total Suspended Solids`, `total-suspended-solids` and `TSS` all key the same parameter."""
    return "_".join(name.strip().lower().replace("-", " ").split())


def known_parameter(name: str) -> Parameter | None:
    return _BY_ALIAS.get(name_key(name))


def fraction_to_decimal(value: Fraction) -> Decimal:
    """Exact when the expansion terminates (denominator of only 2s and 5s), else half-even rounding."""
    den = value.denominator
    for prime in (2, 5):
        while den % prime == 0:
            den //= prime
    if den == 1:
        places = 0
        while (value * 10 ** places).denominator != 1:
            places += 1
        return Decimal(int(value * 10 ** places)).scaleb(-places)
    quantum = Decimal(1).scaleb(-INEXACT_PLACES)
    scaled = value * 10 ** INEXACT_PLACES
    return Decimal(round(scaled)).scaleb(-INEXACT_PLACES).quantize(quantum)  # round() on Fraction is half-even


def convert(param: Parameter, value: Decimal, unit: str) -> Decimal:
    rule = param.units[unit]
    return fraction_to_decimal(Fraction(value) * rule.scale + rule.offset)


def plain(value: Decimal) -> str:
    """A decimal as plain text without exponent or trailing zeros: 1.50E+3 -> "1500"."""
    if value == 0:
        return "0"
    text = format(value.normalize(), "f")
    return text
