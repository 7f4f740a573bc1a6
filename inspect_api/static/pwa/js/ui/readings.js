// A sample's readings in words, for the site's sample list and the supervisor's inspection review.
import { label } from "../dom.js";
import { PARAMETERS } from "../rules/samples.js";

// "Turbidity 120 NTU", "pH 9.1 SU": the parameter's name in words, not its key.
export function readingText(p) {
  const name = (PARAMETERS[p.name] && PARAMETERS[p.name].label) || label(p.name);
  return `${name} ${p.value} ${p.unit || ""}`.trim();
}
