"""The bylaw's review rules as pure functions (DOMAIN.md R-A, R-B). No database, no Flask."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

COVERAGE_THRESHOLD_SQFT = 5_000
PERMIT_THRESHOLD_SQFT = 20_000
LUHPPL_KINDS = ("water_supply_protection_area", "npdes_industrial", "auto_fueling", "exterior_fleet_storage",
                "exterior_vehicle_service", "marina", "high_intensity_parking", "disposal_site", "other")
EXEMPTION_KINDS = ("B1", "B2", "B3", "B4", "B5", "B6")
DOCUMENT_EXEMPTIONS = ("B5", "B6")


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


def exemption_stands(claim: ExemptionClaim) -> bool:
    """R-B2: B1-B4 stand on the claim alone; B5/B6 only with a valid order of conditions or decision."""
    if claim.kind in DOCUMENT_EXEMPTIONS:
        return claim.document_valid
    return claim.kind in EXEMPTION_KINDS


def document_valid_on(expires_on: date | None, issued_on: date | None, on: date, has_document: bool) -> bool:
    """R-B1: an order of conditions or Planning Board decision counts only with a document, once issued
    and until it expires (an expired one voids the exemption)."""
    if not has_document or issued_on is None or issued_on > on:
        return False
    return expires_on is None or on <= expires_on


def determine(disturbed_area_sqft: float, drains_to_ms4: bool, drains_to_waters: bool,
              luhppl_kind: str | None = None, exemptions: list[ExemptionClaim] | tuple = ()) -> Determination:
    """Which review the bylaw requires (R-A1..R-A4, R-B2)."""
    if disturbed_area_sqft is None or disturbed_area_sqft < 0:
        raise ValueError("disturbed area must be zero or more square feet")
    drains = drains_to_ms4 or drains_to_waters
    if not drains:
        return Determination("not_covered", ["R-A1"],
                             "Part 3 does not apply: the disturbance drains neither to the MS4 nor to waters of the Commonwealth.")
    if disturbed_area_sqft < COVERAGE_THRESHOLD_SQFT:
        return Determination("not_covered", ["R-A1"],
                             f"Part 3 does not apply: {disturbed_area_sqft:,.0f} sq ft is under the 5,000 sq ft threshold.")
    standing = [c.kind for c in exemptions if exemption_stands(c)]
    if standing:
        return Determination("exempt", ["R-A1", "R-B2"],
                             "Exempt under bylaw §B (" + ", ".join(sorted(set(standing))) + "); no review is required.")
    if luhppl_kind:
        return Determination("land_disturbance_permit", ["R-A1", "R-A4"],
                             f"A land use with higher potential pollutant loads ({luhppl_kind.replace('_', ' ')}) "
                             "needs a land disturbance permit whatever its size.")
    if disturbed_area_sqft <= PERMIT_THRESHOLD_SQFT:
        return Determination("administrative_review", ["R-A1", "R-A2"],
                             f"{disturbed_area_sqft:,.0f} sq ft is between 5,000 and 20,000 sq ft: administrative land disturbance review.")
    return Determination("land_disturbance_permit", ["R-A1", "R-A3"],
                         f"{disturbed_area_sqft:,.0f} sq ft is more than 20,000 sq ft: a land disturbance permit is required.")
