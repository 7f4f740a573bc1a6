"""R-A / R-B / R-C2 rules at their edges (pure functions, no database)."""
from datetime import date

import pytest

from inspect_api.permits import rules
from inspect_api.permits.rules import ExemptionClaim, determine


@pytest.mark.parametrize("area, level, fired", [
    (0, "not_covered", ["R-A1"]),
    (4_999, "not_covered", ["R-A1"]),
    (4_999.99, "not_covered", ["R-A1"]),
    (5_000, "administrative_review", ["R-A1", "R-A2"]),
    (20_000, "administrative_review", ["R-A1", "R-A2"]),
    (20_000.01, "land_disturbance_permit", ["R-A1", "R-A3"]),
    (20_001, "land_disturbance_permit", ["R-A1", "R-A3"]),
])
def test_area_thresholds_r_a1_r_a2_r_a3(area, level, fired):
    result = determine(area, True, False)
    assert result.review_level == level
    assert result.rules == fired


def test_explanations_name_the_area_and_the_review():
    assert "4,999 sq ft is under the 5,000 sq ft threshold" in determine(4_999, True, False).explanation
    assert "20,000 sq ft" in determine(20_000, False, True).explanation
    assert "administrative land disturbance review" in determine(20_000, False, True).explanation
    assert "more than 20,000 sq ft" in determine(20_001, True, True).explanation
    assert "4,999.99 sq ft" in determine(4_999.99, True, False).explanation


def test_not_draining_is_not_covered_whatever_the_size_r_a1():
    result = determine(1_000_000, False, False, "marina")
    assert (result.review_level, result.rules) == ("not_covered", ["R-A1"])
    assert "drains neither to the MS4 nor to waters" in result.explanation


def test_draining_to_waters_alone_is_enough_r_a1():
    assert determine(6_000, False, True).review_level == "administrative_review"


@pytest.mark.parametrize("kind", [k for k in rules.LUHPPL_KINDS if k != "other"])
def test_luhppl_needs_a_permit_at_any_covered_size_r_a4(kind):
    result = determine(5_000, True, False, kind)
    assert result.review_level == "land_disturbance_permit"
    assert result.rules == ["R-A1", "R-A4"]
    assert "higher potential pollutant loads" in result.explanation


def test_luhppl_below_threshold_is_still_not_covered_r_a4_needs_r_a1():
    assert determine(4_999, True, False, "auto_fueling").review_level == "not_covered"


def test_luhppl_other_uses_the_description():
    result = determine(8_000, True, False, "other", luhppl_description="scrap metal yard")
    assert result.review_level == "land_disturbance_permit"
    assert "scrap metal yard" in result.explanation


def test_luhppl_other_requires_a_description():
    assert rules.luhppl_problem("other", None) is not None
    assert rules.luhppl_problem("other", "  ") is not None
    assert rules.luhppl_problem("other", "scrap yard") is None
    assert rules.luhppl_problem("marina", None) is None
    assert rules.luhppl_problem("casino", None).startswith("Unknown LUHPPL kind")


@pytest.mark.parametrize("kind", ["B1", "B2", "B3", "B4"])
def test_b1_to_b4_stand_on_the_claim_alone_r_b2(kind):
    result = determine(30_000, True, False, None, [ExemptionClaim(kind)])
    assert result.review_level == "exempt"
    assert result.rules == ["R-A1", "R-B2"]
    assert kind in result.explanation


@pytest.mark.parametrize("kind", ["B5", "B6"])
def test_b5_b6_need_a_valid_document_r_b2(kind):
    assert determine(30_000, True, False, None, [ExemptionClaim(kind, True)]).review_level == "exempt"
    voided = determine(30_000, True, False, None, [ExemptionClaim(kind, False)])
    assert voided.review_level == "land_disturbance_permit"
    assert voided.rules == ["R-A1", "R-B1", "R-A3"]
    assert "does not stand without a valid, unexpired document" in voided.explanation


def test_exemption_only_where_part_3_applies_r_b2():
    assert determine(4_000, True, False, None, [ExemptionClaim("B2")]).review_level == "not_covered"
    assert determine(9_000, False, False, None, [ExemptionClaim("B2")]).review_level == "not_covered"


def test_exemption_outranks_luhppl():
    assert determine(9_000, True, False, "marina", [ExemptionClaim("B4")]).review_level == "exempt"


def test_negative_area_is_refused():
    with pytest.raises(ValueError):
        determine(-1, True, False)


@pytest.mark.parametrize("issued, expires, on, has_doc, valid", [
    (date(2025, 1, 1), date(2028, 1, 1), date(2026, 5, 4), True, True),
    (date(2025, 1, 1), date(2026, 5, 4), date(2026, 5, 4), True, True),    # last day still valid
    (date(2025, 1, 1), date(2026, 5, 3), date(2026, 5, 4), True, False),   # expired yesterday
    (date(2026, 5, 5), date(2028, 1, 1), date(2026, 5, 4), True, False),   # not yet issued
    (date(2025, 1, 1), date(2028, 1, 1), date(2026, 5, 4), False, False),  # no document
    (None, date(2028, 1, 1), date(2026, 5, 4), True, False),
    (date(2025, 1, 1), None, date(2026, 5, 4), True, False),
])
def test_document_validity_r_b1(issued, expires, on, has_doc, valid):
    assert rules.document_valid_on(expires, issued, on, has_doc) is valid


def test_evidence_each_exemption():
    assert rules.exemption_evidence_problems("B1", {"statement": "mowing", "single_family": True}) == {}
    assert set(rules.exemption_evidence_problems("B1", {"statement": "mowing"})) == {"single_family"}
    assert set(rules.exemption_evidence_problems("B2", {})) == {"statement"}
    assert rules.exemption_evidence_problems("B3", {"utility_kind": "gas"}) == {}
    assert rules.exemption_evidence_problems("B3", {"utility_kind": "drainage"}) == {
        "utility_kind": ["Drainage work is not exempt under B3."]}
    assert set(rules.exemption_evidence_problems("B3", {})) == {"utility_kind"}
    assert set(rules.exemption_evidence_problems("B4", {"statement": " "})) == {"statement"}
    assert set(rules.exemption_evidence_problems("B5", {})) == {"document_number", "issued_on", "expires_on"}
    assert rules.exemption_evidence_problems("B6", {"document_number": "PB-1", "issued_on": date(2026, 1, 2),
                                                    "expires_on": date(2026, 1, 1)}) == {
        "expires_on": ["The expiry date is before the issue date."]}
    assert set(rules.exemption_evidence_problems("B9", {})) == {"kind"}


def test_acceptance_needs_document_valid_that_day_r_b1():
    on = date(2026, 5, 4)
    ok = dict(has_document=True, issued_on=date(2025, 1, 1), expires_on=date(2026, 5, 4), on=on)
    assert rules.acceptance_problem("B5", **ok) is None
    assert rules.acceptance_problem("B2", **{**ok, "has_document": False}) is None
    assert "Attach" in rules.acceptance_problem("B5", **{**ok, "has_document": False})
    assert "expired on 2026-05-03" in rules.acceptance_problem("B6", **{**ok, "expires_on": date(2026, 5, 3)})
    assert "not yet in force" in rules.acceptance_problem("B6", **{**ok, "issued_on": date(2026, 5, 5)})


def test_work_without_approval_r_a6():
    assert rules.unapproved_work("administrative_review", "submitted")
    assert rules.unapproved_work("land_disturbance_permit", "draft")
    assert not rules.unapproved_work("land_disturbance_permit", "issued")
    assert not rules.unapproved_work("administrative_review", "active")
    assert not rules.unapproved_work("exempt", "draft")
    assert not rules.unapproved_work("not_covered", "draft")
    assert rules.work_may_commence("approved") and rules.work_may_commence("issued")
    assert not rules.work_may_commence("under_review")


@pytest.mark.parametrize("status, unapproved", [
    ("draft", True), ("submitted", True), ("under_review", True), ("denied", True), ("withdrawn", True),
    ("approved", False), ("issued", False), ("active", False), ("work_complete", False),
    # R-C2: closed means the certificate of completion is issued; the permit no longer covers work (R-A6)
    ("closed", True)])
def test_r_a6_is_one_rule_for_permits_and_inspections(status, unapproved):
    from inspect_api.inspections import rules as inspection_rules
    assert rules.unapproved_work("land_disturbance_permit", status) is unapproved
    assert inspection_rules.disturbance_without_approval(True, "land_disturbance_permit", status) is unapproved
    assert inspection_rules.disturbance_without_approval(False, "land_disturbance_permit", status) is False


def test_transition_verdicts_r_c2():
    ok = rules.check_transition("under_review", "approved", "supervisor", review_level="administrative_review")
    assert ok.allowed
    wrong_level = rules.check_transition("under_review", "approved", "supervisor", review_level="land_disturbance_permit")
    assert (wrong_level.allowed, wrong_level.error) == (False, "invalid_transition")
    assert not rules.check_transition("under_review", "issued", "supervisor",
                                      review_level="administrative_review").allowed
    assert rules.check_transition("draft", "submitted", "inspector", review_level="exempt").error == "forbidden"
    assert rules.check_transition("draft", "approved", "supervisor", review_level="exempt").error == "invalid_transition"
    closed = rules.check_transition("work_complete", "closed", "supervisor", review_level="administrative_review")
    assert closed.error == "invalid_transition" and "certificate of completion" in closed.message
    not_covered = rules.check_transition("draft", "submitted", "applicant", review_level="not_covered")
    assert not_covered.error == "invalid_transition" and "nothing to submit" in not_covered.message
    exempt = rules.check_transition("under_review", "approved", "supervisor", review_level="exempt")
    assert not exempt.allowed and "Accept the exemption" in exempt.message
    assert rules.check_transition("under_review", "approved", "supervisor", review_level="exempt",
                                  accepted_exemption=True).allowed


def test_numbers():
    assert rules.number_prefix("administrative_review") == "ALDR"
    assert rules.number_prefix("land_disturbance_permit") == "LDP"
    assert rules.number_prefix("exempt") is None and rules.number_prefix("not_covered") is None
    from inspect_api.numbering import format_number
    assert format_number("LDP", 2026, 7) == "LDP-2026-0007"
