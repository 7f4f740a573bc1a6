"""R-S3: every known parameter and unit, exact conversions, impossible values refused (pure rules)."""
from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest

from inspect_api.sampling import rules
from inspect_api.sampling.units import PARAMETERS, fraction_to_decimal, plain

MICRO_SIGN, GREEK_MU = "\u00b5", "\u03bc"

# (parameter, value as sent, unit, normalised value, canonical unit): one row per accepted unit.
CONVERSIONS = [
    ("turbidity", 12.5, "NTU", "12.5", "NTU"),
    ("tss", 35, "mg/L", "35", "mg/L"),
    ("tss", 35, "mg/l", "35", "mg/L"),
    ("tss", 1.1, "g/L", "1100", "mg/L"),
    ("tss", "0.0351", "g/l", "35.1", "mg/L"),
    ("tss", 250, "ug/L", "0.25", "mg/L"),
    ("tss", 250, "ug/l", "0.25", "mg/L"),
    ("tss", 1, f"{MICRO_SIGN}g/L", "0.001", "mg/L"),
    ("tss", 1, f"{MICRO_SIGN}g/l", "0.001", "mg/L"),
    ("tss", 3, f"{GREEK_MU}g/L", "0.003", "mg/L"),
    ("tss", 3, f"{GREEK_MU}g/l", "0.003", "mg/L"),
    ("ph", 7.2, "SU", "7.2", "SU"),
    ("ph", 7, "s.u.", "7", "SU"),
    ("temperature", 18.5, "C", "18.5", "C"),
    ("temperature", 18.5, "\u00b0C", "18.5", "C"),
    ("temperature", 18.5, "degC", "18.5", "C"),
    ("temperature", 68, "F", "20", "C"),
    ("temperature", 50, "\u00b0F", "10", "C"),
    ("temperature", 41, "degF", "5", "C"),
    ("temperature", 70, "F", "21.1111", "C"),          # 190/9: the one non-terminating case, half-even at 4 places
    ("temperature", "293.15", "K", "20", "C"),
    ("conductivity", 450, "uS/cm", "450", "uS/cm"),
    ("conductivity", 450, f"{MICRO_SIGN}S/cm", "450", "uS/cm"),
    ("conductivity", 450, f"{GREEK_MU}S/cm", "450", "uS/cm"),
    ("conductivity", 1.234, "mS/cm", "1234", "uS/cm"),
]

# The other mass concentrations take every spelling tss takes, with the same factors: 8.4 as sent -> mg/L.
MASS_AS_MG_PER_L = {"mg/L": "8.4", "mg/l": "8.4", "g/L": "8400", "g/l": "8400"}
for _micro in ("ug", MICRO_SIGN + "g", GREEK_MU + "g"):
    MASS_AS_MG_PER_L.update({f"{_micro}/L": "0.0084", f"{_micro}/l": "0.0084"})
CONVERSIONS += [(name, "8.4", unit, expected, "mg/L") for name in ("dissolved_oxygen", "oil_and_grease")
                for unit, expected in MASS_AS_MG_PER_L.items()]


@pytest.mark.parametrize("name,value,unit,normalised,canonical", CONVERSIONS)
def test_known_units_convert_exactly(name, value, unit, normalised, canonical):
    result = rules.normalise_parameter({"name": name, "value": value, "unit": unit})
    assert result == {"name": name, "value": value, "unit": unit, "method": None,
                      "normalized_value": normalised, "normalized_unit": canonical}


def test_every_accepted_unit_is_covered_by_the_table():
    covered = {(name, unit) for name, _v, unit, _n, _c in CONVERSIONS}
    accepted = {(p.name, unit) for p in PARAMETERS.values() for unit in p.units}
    assert accepted == covered


@pytest.mark.parametrize("name,unit", [
    ("turbidity", "FNU"), ("turbidity", "ntu"), ("turbidity", "mg/L"), ("tss", "ppm"), ("tss", "%"),
    ("ph", "pH"), ("ph", "mg/L"), ("temperature", "Celsius"), ("dissolved_oxygen", "% sat"),
    ("conductivity", "MS/cm"), ("conductivity", "S/m"), ("oil_and_grease", "mg/kg"),
])
def test_unknown_unit_of_a_known_parameter_names_the_allowed_units(name, unit):
    with pytest.raises(rules.ParameterProblem) as caught:
        rules.normalise_parameter({"name": name, "value": 1, "unit": unit})
    assert caught.value.field == "unit"
    allowed = ", ".join(PARAMETERS[name].units)
    assert caught.value.message == f"Unknown unit '{unit}' for {name}; use one of: {allowed}."


def test_float_input_is_converted_from_its_decimal_text_not_its_binary_value():
    # 1.1 * 1000 in binary floating point is 1100.0000000000002.
    assert rules.normalise_parameter({"name": "tss", "value": 1.1, "unit": "g/L"})["normalized_value"] == "1100"
    assert rules.normalise_parameter({"name": "tss", "value": 0.1, "unit": "ug/L"})["normalized_value"] == "0.0001"


@pytest.mark.parametrize("value,ok", [(0, True), (14, True), ("14.0", True), (6.5, True),
                                      (15, False), (14.01, False), (-0.1, False)])
def test_ph_between_0_and_14(value, ok):
    item = {"name": "ph", "value": value, "unit": "SU"}
    if ok:
        assert Decimal(rules.normalise_parameter(item)["normalized_value"]) == Decimal(str(value))
    else:
        with pytest.raises(rules.ParameterProblem) as caught:
            rules.normalise_parameter(item)
        assert caught.value.field == "value"
        assert "pH lies between 0 and 14 SU" in caught.value.message


@pytest.mark.parametrize("value,unit,ok", [(-5, "C", True), (100, "C", True), (-5.1, "C", False),
                                           (100.5, "C", False), (212, "F", True), (213, "F", False),
                                           (23, "F", True), (22, "F", False), (0, "K", False)])
def test_temperature_of_a_liquid_sample(value, unit, ok):
    item = {"name": "temperature", "value": value, "unit": unit}
    if ok:
        rules.normalise_parameter(item)
    else:
        with pytest.raises(rules.ParameterProblem, match="between -5 and 100"):
            rules.normalise_parameter(item)


@pytest.mark.parametrize("name,unit", [("turbidity", "NTU"), ("tss", "mg/L"), ("tss", "g/L"),
                                       ("dissolved_oxygen", "mg/L"), ("conductivity", "uS/cm"),
                                       ("oil_and_grease", "ug/L")])
def test_negative_readings_are_impossible(name, unit):
    with pytest.raises(rules.ParameterProblem) as caught:
        rules.normalise_parameter({"name": name, "value": -0.01, "unit": unit})
    assert caught.value.field == "value" and "negative" in caught.value.message
    assert rules.normalise_parameter({"name": name, "value": 0, "unit": unit})["normalized_value"] == "0"


@pytest.mark.parametrize("raw", [float("nan"), float("inf"), float("-inf"), "NaN", "Infinity", "abc", "", "1,5",
                                 True, [], {}, "1e400", 1e13, "0x10"])
def test_values_that_are_not_finite_numbers(raw):
    with pytest.raises(rules.ParameterProblem) as caught:
        rules.normalise_parameter({"name": "tss", "value": raw, "unit": "mg/L"})
    assert caught.value.field == "value"


def test_decimal_text_is_kept_exactly_as_sent():
    result = rules.normalise_parameter({"name": "turbidity", "value": "12.50", "unit": "NTU", "method": "EPA 180.1"})
    assert result["value"] == "12.50" and result["normalized_value"] == "12.5" and result["method"] == "EPA 180.1"


@pytest.mark.parametrize("sent", ["TSS", "Total Suspended Solids", "total-suspended-solids", " tss "])
def test_parameter_names_and_aliases(sent):
    assert rules.normalise_parameter({"name": sent, "value": 1, "unit": "mg/L"})["name"] == "tss"


def test_free_form_parameters_keep_their_unit():
    result = rules.normalise_parameter({"name": "ORP", "value": -120, "unit": "mV"})
    assert result == {"name": "ORP", "value": -120, "unit": "mV", "method": None,
                      "normalized_value": "-120", "normalized_unit": "mV"}
    fnu = rules.normalise_parameter({"name": "turbidity_fnu", "value": 7, "unit": "FNU"})
    assert fnu["normalized_unit"] == "FNU"


def test_free_form_mass_concentrations_convert_and_cannot_be_negative():
    assert rules.normalise_parameter({"name": "nitrate", "value": 2, "unit": "g/L"})["normalized_value"] == "2000"
    with pytest.raises(rules.ParameterProblem, match="cannot be negative"):
        rules.normalise_parameter({"name": "nitrate", "value": -2, "unit": "mg/L"})


def test_missing_name_or_unit():
    with pytest.raises(rules.ParameterProblem) as caught:
        rules.normalise_parameter({"name": " ", "value": 1, "unit": "NTU"})
    assert caught.value.field == "name"
    with pytest.raises(rules.ParameterProblem) as caught:
        rules.normalise_parameter({"name": "turbidity", "value": 1, "unit": ""})
    assert caught.value.field == "unit"


def test_list_errors_are_keyed_by_index_and_duplicates_refused():
    normalised, errors = rules.normalise_parameters([
        {"name": "ph", "value": 7, "unit": "SU"},
        {"name": "ph", "value": 15, "unit": "SU"},
        {"name": "pH", "value": 7.1, "unit": "SU"},
        {"name": "turbidity", "value": 5, "unit": "FNU"},
    ])
    assert [p["name"] for p in normalised] == ["ph"]
    assert set(errors) == {"1", "2", "3"}
    assert errors["1"]["value"][0].startswith("15 SU is not possible")
    assert errors["2"]["name"] == ["ph is already given (item 0); record one value per parameter."]
    assert errors["3"]["unit"] == ["Unknown unit 'FNU' for turbidity; use one of: NTU."]


def test_fraction_to_decimal_exact_or_half_even():
    assert fraction_to_decimal(Fraction(1, 8)) == Decimal("0.125")
    assert fraction_to_decimal(Fraction(2, 3)) == Decimal("0.6667")
    assert fraction_to_decimal(Fraction(1, 3)) == Decimal("0.3333")
    assert fraction_to_decimal(Fraction(-190, 9)) == Decimal("-21.1111")
    assert plain(Decimal("1.50E+3")) == "1500" and plain(Decimal("-0.00")) == "0"
