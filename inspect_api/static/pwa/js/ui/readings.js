// A sample's readings in words, for the site's sample list and the supervisor's inspection review.
import { label } from "../dom.js";
import { PARAMETERS } from "../rules/samples.js";

// "Turbidity 120 NTU", "pH 9.1 SU": the parameter's name in words, not its key; "TSS: result pending"
// for a lab analysis whose result is awaited.
export function readingText(p) {
  const name = (PARAMETERS[p.name] && PARAMETERS[p.name].label) || label(p.name);
  if (p.value === null || p.value === undefined || p.value === "") return `${name}: result pending`;
  return `${name} ${p.value} ${p.unit || ""}`.trim();
}
