"""R-E as a pure rule: every row of the decision table in `coverage_problem`, and its edges."""
from datetime import datetime, timedelta, timezone
from types import SimpleNamespace

import pytest

from inspect_api.entry.rules import coverage_problem, coverage_reason, window_problems

AT = datetime(2026, 5, 4, 13, 0, tzinfo=timezone.utc)
PERMIT = "permit-1"


def auth(**overrides):
    values = dict(permit_id=PERMIT, scope=["examination", "survey"], valid_from=AT - timedelta(days=1),
                  valid_to=AT + timedelta(days=1), revoked_at=None)
    values.update(overrides)
    return SimpleNamespace(**values)


def test_covered():
    assert coverage_problem(auth(), PERMIT, "examination", AT) is None
    assert coverage_reason(auth(), PERMIT, "examination", AT) is None


def test_none():
    problem = coverage_problem(None, PERMIT, "examination", AT)
    assert problem.startswith("No site-entry authorization covers examination")
    assert coverage_reason(None, PERMIT, "examination", AT) == "none"


def test_other_site():
    a = auth(permit_id="permit-2")
    assert coverage_problem(a, PERMIT, "examination", AT) == "The site-entry authorization is for another site, not this permit."
    assert coverage_reason(a, PERMIT, "examination", AT) == "other_site"


def test_not_yet_valid_and_its_edge():
    a = auth(valid_from=AT + timedelta(seconds=1))
    assert "not yet valid" in coverage_problem(a, PERMIT, "examination", AT)
    assert "2026-05-04T13:00:01Z" in coverage_problem(a, PERMIT, "examination", AT)
    assert coverage_reason(a, PERMIT, "examination", AT) == "not_yet_valid"
    assert coverage_problem(auth(valid_from=AT), PERMIT, "examination", AT) is None  # starts exactly now


def test_expired_and_its_edge():
    a = auth(valid_to=AT)  # the window is half-open: at valid_to it has ended
    assert coverage_problem(a, PERMIT, "examination", AT) == \
        "The site-entry authorization expired at 2026-05-04T13:00:00Z."
    assert coverage_reason(a, PERMIT, "examination", AT) == "expired"
    assert coverage_problem(auth(valid_to=AT + timedelta(microseconds=1)), PERMIT, "examination", AT) is None


def test_revoked_before_the_record_refuses():
    a = auth(revoked_at=AT - timedelta(minutes=5))
    assert coverage_problem(a, PERMIT, "examination", AT) == \
        "The site-entry authorization was revoked at 2026-05-04T12:55:00Z."
    assert coverage_reason(a, PERMIT, "examination", AT) == "revoked"
    assert coverage_reason(auth(revoked_at=AT), PERMIT, "examination", AT) == "revoked"


def test_revoked_after_the_record_still_covers_it():
    """R-E3: records made before the revocation stay valid."""
    assert coverage_problem(auth(revoked_at=AT + timedelta(minutes=5)), PERMIT, "examination", AT) is None


def test_scope_lacks_sampling():
    a = auth(scope=["examination", "survey"])
    assert coverage_problem(a, PERMIT, "sampling", AT) == \
        "The site-entry authorization's scope (examination, survey) lacks sampling."
    assert coverage_reason(a, PERMIT, "sampling", AT) == "scope"
    assert coverage_problem(auth(scope=["sampling"]), PERMIT, "sampling", AT) is None
    assert coverage_reason(auth(scope=["sampling"]), PERMIT, "examination", AT) == "scope"


def test_first_matching_row_answers():
    # other site beats expiry; revocation beats expiry; expiry beats scope
    assert coverage_reason(auth(permit_id="x", valid_to=AT), PERMIT, "sampling", AT) == "other_site"
    assert coverage_reason(auth(revoked_at=AT - timedelta(hours=2), valid_to=AT - timedelta(hours=1)),
                           PERMIT, "examination", AT) == "revoked"
    assert coverage_reason(auth(valid_to=AT, scope=["survey"]), PERMIT, "examination", AT) == "expired"


def test_instants_compare_across_offsets():
    eastern = timezone(timedelta(hours=-4))
    a = auth(valid_from=datetime(2026, 5, 4, 9, 0, tzinfo=eastern))  # == 13:00Z
    assert coverage_problem(a, PERMIT, "examination", AT) is None
    assert coverage_reason(a, PERMIT, "examination", AT - timedelta(seconds=1)) == "not_yet_valid"


def test_open_ended_window():
    assert coverage_problem(auth(valid_to=None), PERMIT, "examination", AT + timedelta(days=900)) is None


def test_refuses_bad_input():
    with pytest.raises(ValueError):
        coverage_problem(auth(), PERMIT, "digging", AT)
    with pytest.raises(ValueError):
        coverage_problem(auth(), PERMIT, "examination", AT.replace(tzinfo=None))


def test_window_problems():
    assert window_problems("court_warrant", AT, AT + timedelta(hours=1), ["examination"], None) == {}
    assert window_problems("emergency", AT, AT, ["examination"], None) == {"valid_to": ["Must be later than valid_from."]}
    assert window_problems("emergency", AT, AT + timedelta(1), [], None) == \
        {"scope": ["Name at least one of examination, survey, sampling."]}
    assert window_problems("emergency", AT, AT + timedelta(1), ["survey", "survey"], None) == \
        {"scope": ["List each activity once."]}
    assert window_problems("owner_consent", AT, AT + timedelta(1), ["survey"], None) == \
        {"signature_photo_id": ["Owner consent needs the owner's signature image (a photo id)."]}
