"""The bylaw's review rules and the permit status flow as pure functions (DOMAIN.md R-A, R-B, R-C2).

No database, no Flask: plain values in, plain values out, so the PWA can mirror them and tests can
pin every edge (4,999 / 5,000 / 20,000 / 20,001 sq ft).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

COVERAGE_THRESHOLD_SQFT = 5_000
PERMIT_THRESHOLD_SQFT = 20_000
LUHPPL_KINDS = ("water_supply_protection_area", "npdes_industrial", "auto_fueling", "exterior_fleet_storage",
                "exterior_vehicle_service", "marina", "high_intensity_parking", "disposal_site", "other")
LUHPPL_LABELS = {
    "water_supply_protection_area": "a use listed for a water supply protection area (310 CMR 22.20B/22.20C/22.21)",
    "npdes_industrial": "an industrial site under an individual NPDES or Multi-Sector General Permit",
    "auto_fueling": "an auto fueling facility",
    "exterior_fleet_storage": "exterior fleet storage",
    "exterior_vehicle_service": "exterior vehicle service or equipment cleaning",
    "marina": "a marina or boatyard",
    "high_intensity_parking": "a high-intensity parking lot (1,000 or more trips a day)",
    "disposal_site": "a confined disposal facility or disposal site",
}
EXEMPTION_KINDS = ("B1", "B2", "B3", "B4", "B5", "B6")
DOCUMENT_EXEMPTIONS = ("B5", "B6")
UTILITY_KINDS = ("gas", "water", "sewer", "electric", "telephone", "cable", "fiber", "other")
EXEMPTION_LABELS = {
    "B1": "maintenance of existing landscaping of a single-family dwelling",
    "B2": "fencing that does not alter terrain or drainage",
    "B3": "utilities other than drainage",
    "B4": "agricultural or aquacultural maintenance and improvement",
    "B5": "a valid Conservation Commission order of conditions",
    "B6": "a valid Planning Board decision",
}


@dataclass(frozen=True)
class ExemptionClaim:
    kind: str
    document_valid: bool = False


@dataclass(frozen=True)
class Determination:
    review_level: str
    rules: list[str] = field(default_factory=list)
    explanation: str = ""

    def as_dict(self) -> dict:
        return {"review_level": self.review_level, "rules": list(self.rules), "explanation": self.explanation}


def _sqft(value: float) -> str:
    text = f"{value:,.2f}".rstrip("0").rstrip(".")
    return f"{text} sq ft"


def luhppl_problem(kind: str | None, description: str | None) -> str | None:
    """R-A4: the kinds of 310 CMR 10.04; `other` must say what the use is."""
    if kind is None:
        return None
    if kind not in LUHPPL_KINDS:
        return f"Unknown LUHPPL kind; use one of {', '.join(LUHPPL_KINDS)}."
    if kind == "other" and not (description or "").strip():
        return "Describe the higher-pollutant land use when the kind is `other`."
    return None


def exemption_stands(claim: ExemptionClaim) -> bool:
    """R-B2: B1-B4 stand on the claim alone; B5/B6 only with a valid order of conditions or decision."""
    if claim.kind in DOCUMENT_EXEMPTIONS:
        return claim.document_valid
    return claim.kind in EXEMPTION_KINDS


def exemption_status(review_level: str, accepted: bool) -> str | None:
    """R-B2, R-B1: how an application shows its exemption: `claimed` until a supervisor accepts a
    standing claim, then `accepted`; None when the project is not exempt."""
    if review_level != "exempt":
        return None
    return "accepted" if accepted else "claimed"


def document_valid_on(expires_on: date | None, issued_on: date | None, on: date, has_document: bool) -> bool:
    """R-B1: an order of conditions or Planning Board decision counts only with a document, from its
    issue date through its expiry date; an expired one voids the exemption."""
    if not has_document or issued_on is None or expires_on is None or issued_on > on:
        return False
    return on <= expires_on


def determine(disturbed_area_sqft: float, drains_to_ms4: bool, drains_to_waters: bool,
              luhppl_kind: str | None = None, exemptions: list[ExemptionClaim] | tuple = (),
              luhppl_description: str | None = None, exemption_accepted: bool = True) -> Determination:
    """Which review the bylaw requires (R-A1..R-A4, R-B2). `exemption_accepted=False`: an application
    whose standing claim no supervisor has accepted yet, explained as claimed, not decided (R-B2, R-B1);
    the stateless calculator asks what the claims would make it."""
    if disturbed_area_sqft is None or disturbed_area_sqft < 0:
        raise ValueError("disturbed area must be zero or more square feet")
    area = _sqft(disturbed_area_sqft)
    if not (drains_to_ms4 or drains_to_waters):
        return Determination("not_covered", ["R-A1"], "Part 3 does not apply: the disturbance drains neither to "
                                                      "the MS4 nor to waters of the Commonwealth.")
    if disturbed_area_sqft < COVERAGE_THRESHOLD_SQFT:
        return Determination("not_covered", ["R-A1"],
                             f"Part 3 does not apply: {area} is under the 5,000 sq ft threshold.")
    standing = sorted({c.kind for c in exemptions if exemption_stands(c)})
    if standing:
        names = "; ".join(f"{k} ({EXEMPTION_LABELS[k]})" for k in standing)
        if not exemption_accepted:
            return Determination("exempt", ["R-A1", "R-B2"],
                                 f"Part 3 applies ({area} draining to the MS4 or waters), and the applicant claims "
                                 f"exemption under bylaw §B: {names}. The claim is not yet decided: it is exempt "
                                 "only once the Stormwater Authority accepts the claim.")
        return Determination("exempt", ["R-A1", "R-B2"],
                             f"Part 3 applies ({area} draining to the MS4 or waters), but the project is exempt "
                             f"under bylaw §B: {names}. No review is required.")
    fired = ["R-A1"]
    prefix = ""
    voided = sorted({c.kind for c in exemptions if c.kind in DOCUMENT_EXEMPTIONS and not c.document_valid})
    if voided:
        fired.append("R-B1")
        prefix = (f"The claimed exemption {', '.join(voided)} does not stand without a valid, unexpired "
                  "document, so the project falls back to the review rules. ")
    if luhppl_kind:
        label = LUHPPL_LABELS.get(luhppl_kind) or (luhppl_description or "another higher-pollutant land use")
        return Determination("land_disturbance_permit", fired + ["R-A4"],
                             prefix + f"The proposed use is a land use with higher potential pollutant loads "
                             f"({label}); it needs a land disturbance permit whatever its size ({area}).")
    if disturbed_area_sqft <= PERMIT_THRESHOLD_SQFT:
        return Determination("administrative_review", fired + ["R-A2"],
                             prefix + f"{area} is from 5,000 up to and including 20,000 sq ft: an "
                             "administrative land disturbance review is required.")
    return Determination("land_disturbance_permit", fired + ["R-A3"],
                         prefix + f"{area} is more than 20,000 sq ft: a land disturbance permit is required.")


def exemption_evidence_problems(kind: str, evidence: dict) -> dict[str, list[str]]:
    """What a claim of `kind` lacks (R-B table). B5/B6 may be claimed before the document is
    attached; acceptance then needs it (see acceptance_problem)."""
    problems: dict[str, list[str]] = {}

    def need(name: str, message: str) -> None:
        problems.setdefault(name, []).append(message)

    if kind not in EXEMPTION_KINDS:
        need("kind", f"Use one of {', '.join(EXEMPTION_KINDS)}.")
        return problems
    if kind in ("B1", "B2", "B4") and not (evidence.get("statement") or "").strip():
        need("statement", "A statement describing the work is required for this exemption.")
    if kind == "B1" and evidence.get("single_family") is not True:
        need("single_family", "B1 covers only the landscaping of a single-family dwelling.")
    if kind == "B3":
        utility = evidence.get("utility_kind")
        if utility == "drainage":
            need("utility_kind", "Drainage work is not exempt under B3.")
        elif utility not in UTILITY_KINDS:
            need("utility_kind", f"Name the utility: one of {', '.join(UTILITY_KINDS)}.")
    if kind in DOCUMENT_EXEMPTIONS:
        for name in ("document_number", "issued_on", "expires_on"):
            if not evidence.get(name):
                need(name, "Required for an order of conditions or Planning Board decision.")
        issued, expires = evidence.get("issued_on"), evidence.get("expires_on")
        if issued and expires and expires < issued:
            need("expires_on", "The expiry date is before the issue date.")
    return problems


def acceptance_problem(kind: str, *, has_document: bool, issued_on: date | None, expires_on: date | None,
                       on: date) -> str | None:
    """R-B1: an accepted B5/B6 must hold its document and be valid on the day it is accepted."""
    if kind not in DOCUMENT_EXEMPTIONS:
        return None
    if not has_document:
        return "Attach the order of conditions or decision document before accepting this exemption."
    if issued_on is None or issued_on > on:
        return "The document is not yet in force on the date of acceptance."
    if expires_on is None or expires_on < on:
        return f"The document expired on {expires_on}; an expired order or decision voids the exemption."
    return None


# ---- R-A6: approval before disturbance ----------------------------------------------------------
# The one R-A6 (inspections use it too). Land may be disturbed lawfully from approval or issue until
# the certificate of completion (R-C2 "closed"): a closed permit no longer covers work, so disturbance
# seen after close is work without approval, like disturbance before approval.
COVERED_LEVELS = ("administrative_review", "land_disturbance_permit")
DISTURBANCE_ALLOWED = ("approved", "issued", "active", "work_complete")


def work_may_commence(status: str) -> bool:
    """R-A6, R-C2: work may be recorded as commenced only once approved (admin review) or issued."""
    return status in ("approved", "issued")


LEVEL_NAMES = {"administrative_review": "an administrative land disturbance review",
               "land_disturbance_permit": "a land disturbance permit"}


def commencement_day_problem(day: date, approved_on: date | None) -> str | None:
    """R-A6, R-C2 (bylaw §C: "Approval or permit must be obtained prior to the commencement"): work is
    not recorded as commenced on a day before the approval or permit was granted; the day of the
    approval itself is allowed. `approved_on` is the Town's calendar day of the decision (None when
    the record holds no decision day, so nothing bounds it)."""
    if approved_on is None or day >= approved_on:
        return None
    return (f"Work cannot be recorded as commenced on {day.isoformat()}: the approval or permit was granted on "
            f"{approved_on.isoformat()}, and it must be obtained before work commences (R-A6).")


# ---- R-C1: a decision on the plan ----------------------------------------------------------------
PLAN_KINDS = {"administrative_review": ("esc_plan",), "land_disturbance_permit": ("esc_plan", "om_plan")}
PLAN_NAMES = {"esc_plan": "the erosion and sedimentation control plan (ESC plan)",
              "om_plan": "the operation and maintenance plan (O&M plan)"}


def missing_plans(review_level: str, document_kinds) -> list[str]:
    """R-C1: the plans not on file that a decision at `review_level` rests on: an administrative review
    its ESC plan, a land disturbance permit its ESC and O&M plans; an exempt project none. Any document
    of the kind counts, an uploaded file or one recorded by name (a paper plan delivered to the Town)."""
    have = set(document_kinds)
    return [kind for kind in PLAN_KINDS.get(review_level, ()) if kind not in have]


def plans_missing_message(review_level: str, missing: list[str]) -> str:
    decision = "approved" if review_level == "administrative_review" else "issued"
    names = " and ".join(PLAN_NAMES[kind] for kind in missing)
    return (f"{LEVEL_NAMES[review_level][0].upper()}{LEVEL_NAMES[review_level][1:]} is {decision} on its plan: "
            f"record {names} on file first (R-C1).")


def approval_lapsed(status: str, review_level: str, number: str | None) -> bool:
    """R-A6: an approval that rested on an exemption (B5/B6, so it carries no ALDR/LDP number) whose
    order of conditions or Planning Board decision has since expired, leaving the project covered:
    from the lapse it no longer covers work, and the project needs the review its determination now
    calls for. A closed project is done; nothing lapses after completion."""
    return status in ("approved", "active", "work_complete") and number is None and review_level in COVERED_LEVELS


def unapproved_work(review_level: str | None, status: str) -> bool:
    """R-A6: disturbance found on a covered project without approval or permit in force (before approval,
    or after close) is work without approval."""
    return review_level in COVERED_LEVELS and status not in DISTURBANCE_ALLOWED


# ---- R-C2: the status flow ----------------------------------------------------------------------
# (from, to) -> roles that may make the move. "applicant" means the permit's own applicant: other
# applicants never see the permit. work_complete -> closed is listed with no role: only the
# certificate of completion (R-F3) closes a permit.
TRANSITIONS: dict[tuple[str, str], frozenset[str]] = {
    ("draft", "submitted"): frozenset({"applicant", "supervisor"}),
    ("submitted", "under_review"): frozenset({"supervisor"}),
    ("under_review", "approved"): frozenset({"supervisor"}),
    ("under_review", "issued"): frozenset({"supervisor"}),
    ("under_review", "denied"): frozenset({"supervisor"}),
    ("draft", "withdrawn"): frozenset({"applicant"}),
    ("submitted", "withdrawn"): frozenset({"applicant"}),
    ("under_review", "withdrawn"): frozenset({"applicant"}),
    ("approved", "active"): frozenset({"applicant", "supervisor"}),
    ("issued", "active"): frozenset({"applicant", "supervisor"}),
    ("active", "work_complete"): frozenset({"applicant", "supervisor"}),
    ("work_complete", "closed"): frozenset(),
}
# The level a decision needs: an approval ends an administrative review (or confirms an exemption),
# a permit is issued only for a land disturbance permit.
DECISION_LEVELS = {
    ("under_review", "approved"): ("administrative_review", "exempt"),
    ("under_review", "issued"): ("land_disturbance_permit",),
}


LEVEL_PHRASES = {"not_covered": "is not covered by Part 3", "exempt": "is exempt",
                 "administrative_review": "needs an administrative review",
                 "land_disturbance_permit": "needs a land disturbance permit"}


@dataclass(frozen=True)
class Verdict:
    allowed: bool
    error: str | None = None  # "invalid_transition" (409) or "forbidden" (403)
    message: str = ""


def check_transition(from_status: str, to_status: str, role: str, *, review_level: str,
                     accepted_exemption: bool = False) -> Verdict:
    """May `role` move a permit from `from_status` to `to_status` (R-C2, R-A6)?"""
    move = (from_status, to_status)
    if move not in TRANSITIONS:
        return Verdict(False, "invalid_transition", f"A permit cannot go from {from_status} to {to_status}.")
    if to_status == "closed":
        return Verdict(False, "invalid_transition", "A permit is closed only by issuing its certificate of "
                                                    "completion; review the completion notice or final report.")
    if role not in TRANSITIONS[move]:
        return Verdict(False, "forbidden", f"A {role} may not move a permit from {from_status} to {to_status}.")
    if move == ("draft", "submitted") and review_level == "not_covered":
        return Verdict(False, "invalid_transition", "Part 3 of the bylaw does not cover this project (R-A1), so "
                                                    "there is nothing to submit; no review or permit is needed.")
    levels = DECISION_LEVELS.get(move)
    if levels and review_level not in levels:
        needed = "an administrative review" if to_status == "approved" else "a land disturbance permit"
        return Verdict(False, "invalid_transition", f"Only {needed} can be {to_status}; this project "
                                                    f"{LEVEL_PHRASES.get(review_level, review_level)}.")
    if move == ("under_review", "approved") and review_level == "exempt" and not accepted_exemption:
        return Verdict(False, "invalid_transition", "Accept the exemption claim before approving an exempt project.")
    return Verdict(True)


def number_prefix(review_level: str) -> str | None:
    """ALDR for administrative review, LDP for permits; exempt and not-covered projects get no number."""
    return {"administrative_review": "ALDR", "land_disturbance_permit": "LDP"}.get(review_level)


def contacts_shown(viewer_role: str | None, viewer_id: str | None, *, assigned: bool,
                   entered_by: str | None = None, party_user_id: str | None = None) -> bool:
    """R-O0: a party's contact details (mailing address, e-mail, phone) are seen by supervisors and by
    the inspectors assigned to the permit or case, not by every inspector who may read the permit.
    An applicant sees the details they entered themselves (the owner they named) and their own
    party's; never those the Town recorded of others (a violator's home address)."""
    if viewer_role == "supervisor":
        return True
    if viewer_role == "inspector":
        return assigned
    if viewer_role == "applicant" and viewer_id is not None:
        return viewer_id in (entered_by, party_user_id)
    return False
