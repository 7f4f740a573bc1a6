"""The business-day calendar behind R-I4 due dates: weekends and Massachusetts legal holidays."""
from datetime import date

import holidays
import pytest

from inspect_api import workdays
from inspect_api.inspections.rules import finding_due_on


@pytest.mark.parametrize("day, name", [
    (date(2026, 1, 1), "New Year's Day"),
    (date(2026, 1, 19), "Martin Luther King Jr. Day"),
    (date(2026, 2, 16), "Washington's Birthday"),
    (date(2026, 4, 20), "Patriots' Day"),
    (date(2025, 4, 21), "Patriots' Day"),
    (date(2026, 5, 25), "Memorial Day"),
    (date(2026, 6, 19), "Juneteenth Independence Day"),
    (date(2026, 7, 4), "Independence Day"),
    (date(2026, 9, 7), "Labor Day"),
    (date(2026, 10, 12), "Columbus Day"),
    (date(2026, 11, 11), "Veterans Day"),
    (date(2026, 11, 26), "Thanksgiving Day"),
    (date(2026, 12, 25), "Christmas Day"),
])
def test_each_legal_holiday(day, name):
    assert workdays.holiday_name(day) == name
    assert not workdays.is_business_day(day)


@pytest.mark.parametrize("day, name", [
    (date(2026, 7, 3), "Independence Day (observed)"),   # July 4, 2026 is a Saturday -> Friday
    (date(2027, 7, 5), "Independence Day (observed)"),   # July 4, 2027 is a Sunday -> Monday
    (date(2022, 12, 26), "Christmas Day (observed)"),    # Sunday -> Monday
    (date(2027, 12, 24), "Christmas Day (observed)"),    # Saturday -> Friday
    (date(2023, 1, 2), "New Year's Day (observed)"),     # Sunday -> Monday
    (date(2021, 12, 31), "New Year's Day (observed)"),   # Jan 1, 2022 a Saturday -> Friday of the year before
    (date(2022, 6, 20), "Juneteenth Independence Day (observed)"),
    (date(2023, 11, 10), "Veterans Day (observed)"),
])
def test_observed_days(day, name):
    assert workdays.holiday_name(day) == name
    assert not workdays.is_business_day(day)


def test_juneteenth_only_from_2021():
    assert workdays.is_business_day(date(2020, 6, 19))
    assert not workdays.is_business_day(date(2021, 6, 18))  # Saturday holiday observed Friday


def test_ordinary_days_and_weekends():
    assert workdays.is_business_day(date(2026, 5, 6))       # Wednesday
    assert not workdays.is_business_day(date(2026, 5, 9))   # Saturday
    assert not workdays.is_business_day(date(2026, 5, 10))  # Sunday
    assert workdays.is_business_day(date(2026, 3, 17))      # Evacuation Day is Suffolk County only
    assert workdays.is_business_day(date(2026, 6, 17))      # Bunker Hill Day likewise


@pytest.mark.parametrize("start, expected", [
    (date(2026, 5, 4), date(2026, 5, 5)),     # Monday -> Tuesday
    (date(2026, 5, 8), date(2026, 5, 11)),    # Friday -> Monday over the weekend
    (date(2026, 5, 9), date(2026, 5, 11)),    # Saturday -> Monday
    (date(2026, 5, 22), date(2026, 5, 26)),   # Friday before Memorial Day -> Tuesday
    (date(2026, 4, 17), date(2026, 4, 21)),   # Friday before Patriots' Day -> Tuesday
    (date(2026, 7, 2), date(2026, 7, 6)),     # Thursday; Friday July 3 observed -> Monday
    (date(2026, 11, 25), date(2026, 11, 27)), # Wednesday before Thanksgiving -> Friday
    (date(2027, 12, 23), date(2027, 12, 27)), # Thursday; Christmas observed Friday Dec 24
    (date(2021, 12, 30), date(2022, 1, 3)),   # New Year's observed Dec 31 across the year end
    (date(2027, 7, 2), date(2027, 7, 6)),     # Friday; July 4 Sunday observed Monday July 5
    (date(2026, 1, 16), date(2026, 1, 20)),   # Friday before MLK Day
    (date(2026, 2, 13), date(2026, 2, 17)),   # Friday before Presidents' Day
    (date(2026, 6, 18), date(2026, 6, 22)),   # Thursday before Juneteenth (a Friday)
    (date(2026, 9, 4), date(2026, 9, 8)),     # Friday before Labor Day
    (date(2026, 10, 9), date(2026, 10, 13)),  # Friday before Columbus Day
    (date(2026, 11, 10), date(2026, 11, 12)), # Tuesday before Veterans Day
    (date(2025, 12, 31), date(2026, 1, 2)),   # New Year's Eve -> Friday Jan 2
])
def test_next_business_day(start, expected):
    assert workdays.next_business_day(start) == expected


def test_add_business_days():
    assert workdays.add_business_days(date(2026, 5, 20), 0) == date(2026, 5, 20)
    assert workdays.add_business_days(date(2026, 5, 20), 3) == date(2026, 5, 26)  # over Memorial Day
    with pytest.raises(ValueError):
        workdays.add_business_days(date(2026, 5, 20), -1)


def test_due_date_rule_r_i4():
    # maintenance: close of the next business day after the day observed
    assert finding_due_on(date(2026, 5, 8), needs_new_control=False) == date(2026, 5, 11)
    assert finding_due_on(date(2026, 7, 2), needs_new_control=False) == date(2026, 7, 6)
    # a new or replaced control: 7 calendar days, even when that lands on a weekend or holiday
    assert finding_due_on(date(2026, 5, 4), needs_new_control=True) == date(2026, 5, 11)
    assert finding_due_on(date(2026, 5, 18), needs_new_control=True) == date(2026, 5, 25)  # Memorial Day
    assert finding_due_on(date(2026, 5, 2), needs_new_control=True) == date(2026, 5, 9)    # a Saturday


def test_agrees_with_the_holidays_package_for_massachusetts():
    """Cross-check against the `holidays` package (US, MA): the same days, except that this calendar
    also keeps Saturday holidays on the Friday before (the package moves only Sunday ones, as the
    statute does). Suffolk-only days are left out."""
    for year in range(2021, 2051):
        ours = set(workdays.holidays_in(year))
        theirs = {d for d, n in holidays.country_holidays("US", subdiv="MA", years=year).items()
                  if "Evacuation" not in n and "Bunker Hill" not in n}
        assert theirs <= ours, year
        for extra in ours - theirs:
            assert extra.weekday() == workdays.FRIDAY and workdays.holiday_name(extra).endswith("(observed)")
