// Which review the bylaw requires (R-A1..R-A4, R-B1, R-B2), live on the applicant's form.
// Mirrors inspect_api/permits/rules.py `determine` (with `exemption_stands` and `_sqft`): the same
// order of checks, levels, rule ids and sentences. The server's answer (POST /determinations) decides.
export const COVERAGE_THRESHOLD_SQFT = 5000;
export const PERMIT_THRESHOLD_SQFT = 20000;
export const LUHPPL_LABELS = {
  water_supply_protection_area: "a use listed for a water supply protection area (310 CMR 22.20B/22.20C/22.21)",
  npdes_industrial: "an industrial site under an individual NPDES or Multi-Sector General Permit",
  auto_fueling: "an auto fueling facility",
  exterior_fleet_storage: "exterior fleet storage",
  exterior_vehicle_service: "exterior vehicle service or equipment cleaning",
  marina: "a marina or boatyard",
  high_intensity_parking: "a high-intensity parking lot (1,000 or more trips a day)",
  disposal_site: "a confined disposal facility or disposal site",
};
export const LUHPPL_KINDS = [...Object.keys(LUHPPL_LABELS), "other"];
export const EXEMPTION_LABELS = {
  B1: "maintenance of existing landscaping of a single-family dwelling",
  B2: "fencing that does not alter terrain or drainage",
  B3: "utilities other than drainage",
  B4: "agricultural or aquacultural maintenance and improvement",
  B5: "a valid Conservation Commission order of conditions",
  B6: "a valid Planning Board decision",
};
export const EXEMPTION_KINDS = Object.keys(EXEMPTION_LABELS);
const DOCUMENT_EXEMPTIONS = ["B5", "B6"];

export function exemptionStands(claim) {
  if (DOCUMENT_EXEMPTIONS.includes(claim.kind)) return Boolean(claim.document_valid);
  return EXEMPTION_KINDS.includes(claim.kind);
}

// Python: f"{value:,.2f}".rstrip("0").rstrip(".") + " sq ft"
function sqft(value) {
  const text = value.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  return `${text.replace(/0+$/, "").replace(/\.$/, "")} sq ft`;
}

const sorted = (list) => [...new Set(list)].sort();

export function determine(area, drainsToMs4, drainsToWaters, luhpplKind = null, exemptions = [], luhpplDescription = null) {
  if (area === null || area === undefined || Number.isNaN(area) || area < 0) {
    throw new RangeError("disturbed area must be zero or more square feet");
  }
  const text = sqft(area);
  if (!(drainsToMs4 || drainsToWaters)) {
    return { review_level: "not_covered", rules: ["R-A1"], explanation: "Part 3 does not apply: the disturbance drains neither to "
      + "the MS4 nor to waters of the Commonwealth." };
  }
  if (area < COVERAGE_THRESHOLD_SQFT) {
    return { review_level: "not_covered", rules: ["R-A1"], explanation: `Part 3 does not apply: ${text} is under the 5,000 sq ft threshold.` };
  }
  const standing = sorted(exemptions.filter(exemptionStands).map((c) => c.kind));
  if (standing.length) {
    const names = standing.map((k) => `${k} (${EXEMPTION_LABELS[k]})`).join("; ");
    return { review_level: "exempt", rules: ["R-A1", "R-B2"], explanation: `Part 3 applies (${text} draining to the MS4 or waters), but the project is exempt `
      + `under bylaw §B: ${names}. No review is required.` };
  }
  const fired = ["R-A1"];
  let prefix = "";
  const voided = sorted(exemptions.filter((c) => DOCUMENT_EXEMPTIONS.includes(c.kind) && !c.document_valid).map((c) => c.kind));
  if (voided.length) {
    fired.push("R-B1");
    prefix = `The claimed exemption ${voided.join(", ")} does not stand without a valid, unexpired `
      + "document, so the project falls back to the review rules. ";
  }
  if (luhpplKind) {
    const label = LUHPPL_LABELS[luhpplKind] || luhpplDescription || "another higher-pollutant land use";
    return { review_level: "land_disturbance_permit", rules: [...fired, "R-A4"], explanation: prefix + "The proposed use is a land use with higher potential pollutant loads "
      + `(${label}); it needs a land disturbance permit whatever its size (${text}).` };
  }
  if (area <= PERMIT_THRESHOLD_SQFT) {
    return { review_level: "administrative_review", rules: [...fired, "R-A2"], explanation: prefix + `${text} is from 5,000 up to and including 20,000 sq ft: an `
      + "administrative land disturbance review is required." };
  }
  return { review_level: "land_disturbance_permit", rules: [...fired, "R-A3"],
    explanation: prefix + `${text} is more than 20,000 sq ft: a land disturbance permit is required.` };
}

export const LEVEL_TEXT = {
  not_covered: "Not covered by the bylaw",
  exempt: "Exempt",
  administrative_review: "Administrative land disturbance review",
  land_disturbance_permit: "Land disturbance permit",
};
export const CLAIMED_TEXT = "Exemption claimed, not yet decided";

// R-B2: an application shows its exemption as claimed until a supervisor accepts the claim (R-B1);
// the server says which in determination.exemption_status. Undefined for an unknown level.
export function levelText(permit) {
  const det = (permit && permit.determination) || {};
  if (permit && permit.review_level === "exempt" && det.exemption_status === "claimed") return CLAIMED_TEXT;
  return LEVEL_TEXT[permit && permit.review_level];
}
