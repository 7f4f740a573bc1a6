"""R-F rules, pure: due dates at their edges, overdue flags, what a notice/report/certificate needs."""
from datetime import date

import pytest

from inspect_api.completion import rules


@pytest.mark.parametrize("completed, due", [
    (date(2024, 2, 29), date(2026, 2, 28)),   # leap day into a common year: 28 February, never 1 March
    (date(2026, 2, 28), date(2028, 2, 28)),   # into a leap year: the same day, not the 29th
    (date(2026, 3, 1), date(2028, 3, 1)),
    (date(2027, 2, 28), date(2029, 2, 28)),
    (date(2026, 12, 31), date(2028, 12, 31)),
    (date(2026, 1, 1), date(2028, 1, 1)),
])
def test_final_report_due_two_years_after_completion(completed, due):
    """R-F2: due = completion of work + 2 years."""
    assert rules.final_report_due_on(completed) == due


def test_leap_day_two_years_after_leap_day_is_not_possible_and_four_years_is():
    assert rules.add_years(date(2024, 2, 29), 2) == date(2026, 2, 28)
    assert rules.add_years(date(2024, 2, 29), 4) == date(2028, 2, 29)
    assert rules.add_years(date(2024, 2, 29), -2) == date(2022, 2, 28)


def test_no_completion_date_no_due_date():
    assert rules.final_report_due_on(None) is None
    assert rules.report_overdue(None, date(2030, 1, 1), None) is False


@pytest.mark.parametrize("today, overdue", [
    (date(2026, 2, 27), False),
    (date(2026, 2, 28), False),   # the due date itself is still on time
    (date(2026, 3, 1), True),     # the day after
])
def test_overdue_only_after_the_due_date(today, overdue):
    assert rules.report_overdue(date(2026, 2, 28), today, None) is overdue


def test_a_submitted_report_is_not_overdue_but_may_be_late():
    due = date(2026, 2, 28)
    assert rules.report_overdue(due, date(2027, 1, 1), submitted_on=date(2026, 3, 2)) is False
    assert rules.submitted_late(due, date(2026, 3, 2)) is True
    assert rules.submitted_late(due, date(2026, 2, 28)) is False
    assert rules.submitted_late(due, None) is False


def test_closeout_kind_follows_the_review_level():
    """R-F1 admin review -> completion notice; R-F2 permit -> final report."""
    assert rules.closeout_kind("administrative_review") == "completion_notice"
    assert rules.closeout_kind("land_disturbance_permit") == "final_report"
    assert rules.closeout_kind("exempt") is None
    assert rules.closeout_kind("not_covered") is None


def test_notice_needs_statement_and_at_least_one_photo():
    """R-F1."""
    assert rules.notice_problems("Done per plan", ["p1"]) == {}
    assert set(rules.notice_problems("  ", ["p1"])) == {"statement"}
    assert set(rules.notice_problems("Done", [])) == {"photo_ids"}
    assert set(rules.notice_problems(None, [])) == {"statement", "photo_ids"}


def _complete_report(**overrides):
    report = {
        "pls_stamp": {"name": "A", "license_number": "1", "stamp_date": date(2026, 1, 1)},
        "pe_stamp": {"name": "B", "license_number": "2", "stamp_date": date(2026, 1, 2)},
        "pe_applicable": True,
        "certification": {"substantial_compliance": True, "permanent_erosion_controls": True,
                          "stormwater_facilities": True},
        "discrepancies": [], "controls": [{"name": "basin", "kind": "structural"}], "om_statement": "kept",
    }
    report.update(overrides)
    return report


def test_complete_report_has_no_problems():
    assert rules.report_problems(_complete_report(), ["as_built_plan", "om_documentation"], date(2026, 5, 1)) == {}


@pytest.mark.parametrize("overrides, field", [
    ({"pls_stamp": None}, "pls_stamp"),
    ({"pls_stamp": {"name": "A", "license_number": "", "stamp_date": date(2026, 1, 1)}}, "pls_stamp"),
    ({"pe_stamp": None}, "pe_stamp"),
    ({"pe_stamp": {"name": "B", "license_number": "2", "stamp_date": date(2026, 5, 2)}}, "pe_stamp"),  # future
    ({"certification": {"substantial_compliance": True, "permanent_erosion_controls": True}}, "certification"),
    ({"certification": {"substantial_compliance": False, "permanent_erosion_controls": True,
                        "stormwater_facilities": True}}, "certification"),
    ({"discrepancies": None}, "discrepancies"),
    ({"controls": []}, "controls"),
    ({"om_statement": " "}, "om_statement"),
])
def test_report_problems_name_the_missing_part(overrides, field):
    """R-F2: stamps, certification incl. permanent controls and stormwater facilities, discrepancies, controls, O&M."""
    assert set(rules.report_problems(_complete_report(**overrides), ["as_built_plan", "om_documentation"], date(2026, 5, 1))) == {field}


def test_report_needs_the_as_built_plan_document():
    problems = rules.report_problems(_complete_report(), ["cover_letter"], date(2026, 5, 1))
    assert set(problems) == {"documents"}


def test_pe_stamp_may_be_declared_not_applicable():
    """R-F2 "as applicable"."""
    report = _complete_report(pe_stamp=None, pe_applicable=False)
    assert rules.report_problems(report, ["as_built_plan", "om_documentation"], date(2026, 5, 1)) == {}


def test_stamp_dated_today_is_fine():
    report = _complete_report(pls_stamp={"name": "A", "license_number": "1", "stamp_date": date(2026, 5, 1)})
    assert rules.report_problems(report, ["as_built_plan", "om_documentation"], date(2026, 5, 1)) == {}


def test_return_needs_reasons():
    assert rules.review_problems("return", None) == {"reasons": ["Give the reasons for returning it."]}
    assert rules.review_problems("return", "  ") != {}
    assert rules.review_problems("return", "Missing PE stamp") == {}
    assert rules.review_problems("accept", None) == {}


@pytest.mark.parametrize("status, basis, exists, error", [
    ("work_complete", "accepted", False, None),
    ("work_complete", "accepted", True, "certificate_exists"),
    ("active", "accepted", False, "permit_not_work_complete"),
    ("closed", "accepted", False, "permit_not_work_complete"),
    ("work_complete", "submitted", False, "completion_not_accepted"),
    ("work_complete", "returned", False, "completion_not_accepted"),
    ("work_complete", None, False, "completion_not_accepted"),
])
def test_certificate_gating(status, basis, exists, error):
    """R-F3: a certificate needs work complete and an accepted notice or report, and is issued once."""
    problem = rules.certificate_problem(status, basis, exists)
    assert (problem[0] if problem else None) == error


def test_certificate_number_format():
    assert rules.certificate_number(2026, 7) == "COC-2026-0007"
    assert rules.certificate_number(2026, 12345) == "COC-2026-12345"
