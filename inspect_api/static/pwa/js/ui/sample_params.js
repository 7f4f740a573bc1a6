// One analysis of a sample on the sample screen: parameter, reading and unit pickers, the bottle and
// its preservation (R-S1 chain of custody, with defaults by parameter), and a reading past an action
// level (R-S2) flagged the moment it is typed. A lab analysis may wait for its result.
import { h, mount, field, select } from "../dom.js";
import { PARAMETERS, CUSTODY_DEFAULTS, actionWarnings, valueProblem } from "../rules/samples.js";

// An analysis as the screen keeps it: "" for a reading not given; container and preservative as written.
export function formParameter(p) {
  const name = PARAMETERS[p.name] ? p.name : "turbidity";
  const defaults = CUSTODY_DEFAULTS[name];
  return { name, value: p.value ?? "", unit: p.unit || Object.keys(PARAMETERS[name].units)[0],
    container: p.container ?? defaults.container, preservative: p.preservative ?? defaults.preservative };
}

// An analysis as the API takes it: a lab analysis without its reading yet is sent with value null.
export function parameterPayload(p) {
  const pending = p.value === "" || p.value === null || p.value === undefined;
  return { name: p.name, value: pending ? null : String(p.value), unit: p.unit,
    container: (p.container || "").trim() || null, preservative: (p.preservative || "").trim() || null };
}

// Problems with the analyses before saving: a field reading needs its value; a lab one may await it.
export function parameterProblems(parameters, analysis) {
  return parameters.map((p) => (analysis === "lab" && p.value === "" ? null : valueProblem(p.name, p.value, p.unit)))
    .filter(Boolean);
}

export function parameterRow(p, levels, onChange, onRemove) {
  const name = select(Object.entries(PARAMETERS).map(([k, v]) => [k, v.label]), p.name, { "aria-label": "Parameter" });
  const unit = select(Object.keys(PARAMETERS[p.name].units).map((u) => [u, u]), p.unit, { "aria-label": "Unit" });
  const value = h("input", { type: "text", inputmode: "decimal", value: p.value ?? "", "aria-label": "Reading", placeholder: "Reading" });
  const container = h("input", { type: "text", value: p.container || "", maxlength: 100, "data-test": "container" });
  const preservative = h("input", { type: "text", value: p.preservative || "", maxlength: 100, "data-test": "preservative" });
  const notes = h("div", { "aria-live": "polite" });
  const check = () => {
    const problem = p.value === "" ? null : valueProblem(p.name, p.value, p.unit);
    const warnings = actionWarnings(p.name, p.value, p.unit, levels);
    mount(notes, problem ? h("div.banner.error", problem) : null,
      warnings.map((w) => h("div.banner.warn", { "data-test": "action-level" }, w)));
  };
  name.addEventListener("change", () => {
    // The bottle and preservation follow the parameter unless the inspector wrote their own.
    const before = CUSTODY_DEFAULTS[p.name];
    p.name = name.value;
    p.unit = Object.keys(PARAMETERS[p.name].units)[0];
    for (const [key, input] of [["container", container], ["preservative", preservative]]) {
      if (!p[key] || p[key] === before[key]) p[key] = input.value = CUSTODY_DEFAULTS[p.name][key];
    }
    mount(unit, Object.keys(PARAMETERS[p.name].units).map((u) => h("option", { value: u, selected: u === p.unit }, u)));
    check(); onChange();
  });
  unit.addEventListener("change", () => { p.unit = unit.value; check(); onChange(); });
  value.addEventListener("input", () => { p.value = value.value.trim(); check(); onChange(); });
  container.addEventListener("input", () => { p.container = container.value; onChange(); });
  preservative.addEventListener("input", () => { p.preservative = preservative.value; onChange(); });
  check();
  return h("div.item", { dataset: { parameter: p.name } },
    h("div.fields.cols3", field("Parameter", name), field("Reading", value, "Leave empty while a lab's result is awaited."),
      field("Unit", unit)),
    h("div.fields.cols", field("Container", container), field("Preservative", preservative)),
    notes, h("button.small.danger", { type: "button", onclick: onRemove }, "Remove"));
}
