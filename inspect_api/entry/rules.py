"""Entry to property (DOMAIN.md R-E) as pure functions. No database, no Flask.

The same decision runs on the server (direct API and sync) and, mirrored line for line, in the PWA
while offline; keep the table in `coverage_problem` and the PWA's copy identical.
"""
from __future__ import annotations

from datetime import datetime
from typing import Any

BASES = ("owner_consent", "permit_condition", "court_warrant", "emergency")
ACTIVITIES = ("examination", "survey", "sampling")


def _when(value: datetime) -> str:
    return value.isoformat().replace("+00:00", "Z")


def coverage_problem(auth: Any, permit_id: str, activity: str, at: datetime) -> str | None:
    """Does `auth` cover `activity` on permit `permit_id` at instant `at`? None if it does, else a
    plain sentence saying what is missing (R-E1, R-E2, R-E3).

    `auth` is anything with permit_id, scope (list), valid_from, valid_to, revoked_at; or None.
    Times are timezone-aware instants and are compared as instants. An authorization covers the
    half-open window valid_from <= at < valid_to, cut short at revoked_at (R-E3: revocation stops
    coverage from that instant on; records made before it stay valid). A missing valid_to means
    open-ended.

    Decision table, checked top to bottom; the first row that matches answers:
      1. auth is None                                   -> "none":          no authorization
      2. auth.permit_id != permit_id                    -> "other site":    it is for another permit
      3. at < auth.valid_from                           -> "not yet valid": starts later
      4. auth.revoked_at is set and at >= revoked_at    -> "revoked":       revoked before `at`
      5. auth.valid_to is set and at >= valid_to        -> "expired":       ended before `at`
      6. activity not in auth.scope                     -> "scope":         scope lacks the activity
      7. otherwise                                      -> None (covered)
    """
    result = _check(auth, permit_id, activity, at)
    return result[1] if result else None


def coverage_reason(auth: Any, permit_id: str, activity: str, at: datetime) -> str | None:
    """The row of the table in `coverage_problem` that refused, as a stable key: "none",
    "other_site", "not_yet_valid", "revoked", "expired", "scope"; None when covered."""
    result = _check(auth, permit_id, activity, at)
    return result[0] if result else None


def _check(auth: Any, permit_id: str, activity: str, at: datetime) -> tuple[str, str] | None:
    if activity not in ACTIVITIES:
        raise ValueError(f"unknown activity {activity!r}")
    if at.tzinfo is None:
        raise ValueError("`at` must be timezone-aware")
    if auth is None:
        return "none", (f"No site-entry authorization covers {activity} at this site: record the owner's "
                        "consent, a permit condition, a warrant or an emergency first.")
    if str(auth.permit_id) != str(permit_id):
        return "other_site", "The site-entry authorization is for another site, not this permit."
    if at < auth.valid_from:
        return "not_yet_valid", (f"The site-entry authorization is not yet valid at {_when(at)}; "
                                 f"it starts at {_when(auth.valid_from)}.")
    if auth.revoked_at is not None and at >= auth.revoked_at:
        return "revoked", f"The site-entry authorization was revoked at {_when(auth.revoked_at)}."
    if auth.valid_to is not None and at >= auth.valid_to:
        return "expired", f"The site-entry authorization expired at {_when(auth.valid_to)}."
    if activity not in (auth.scope or []):
        scope = ", ".join(auth.scope or []) or "nothing"
        return "scope", f"The site-entry authorization's scope ({scope}) lacks {activity}."
    return None


def window_problems(basis: str, valid_from: datetime, valid_to: datetime | None, scope: list[str],
                    signature_photo_id: str | None) -> dict[str, list[str]]:
    """Field errors of an authorization's own content (R-E1): the window runs forward, the scope is a
    non-empty set of known activities, and owner consent carries the owner's signature image."""
    errors: dict[str, list[str]] = {}
    if valid_to is not None and valid_from is not None and valid_to <= valid_from:
        errors["valid_to"] = ["Must be later than valid_from."]
    if not scope:
        errors["scope"] = ["Name at least one of examination, survey, sampling."]
    elif len(set(scope)) != len(scope):
        errors["scope"] = ["List each activity once."]
    elif any(item not in ACTIVITIES for item in scope):
        errors["scope"] = ["Only examination, survey and sampling."]
    if basis == "owner_consent" and not signature_photo_id:
        errors["signature_photo_id"] = ["Owner consent needs the owner's signature image (a photo id)."]
    return errors
