// A sample's chain of custody on the sample screen (R-S1): each analysis's holding time counting down,
// the hand-overs (relinquished by, received by, time, a signature drawn on the tablet), the lab's
// receipt, and the custody form for the lab as a PDF. The holding-time rule is rules/samples.js's.
import { h, mount, field, fmtTime, localDate, nowIso, toLocalInput, fromLocalInput } from "../dom.js";
import { PARAMETERS, holdingTimes, durationWords } from "../rules/samples.js";
import { signaturePad } from "./signature.js";
import { fetchedLink } from "./files.js";

// A time picked to the minute, in the same minute as `earliest` (sampling, the last hand-over) but
// before it by seconds, is taken as that instant: the picker cannot show the seconds that order them.
export function notBefore(iso, earliest) {
  if (!iso || !earliest) return iso;
  const minute = (t) => Math.floor(Date.parse(t) / 60000);
  return Date.parse(iso) < Date.parse(earliest) && minute(iso) === minute(earliest) ? earliest : iso;
}

// One analysis's holding time in words: "Analyse by May 6, 2:32 PM — 1 h 12 min left".
export function holdingText(hold, now = new Date()) {
  const label = (PARAMETERS[hold.parameter] || {}).label || hold.parameter;
  if (hold.status === "exceeded") return `${label}: Holding time exceeded by ${durationWords(hold.exceeded_by_seconds)}`;
  if (hold.status === "within") return `${label}: analysed within the holding time (${durationWords(hold.limit_seconds)})`;
  if (hold.status === "not_judged") return `${label}: field reading (holding time ${durationWords(hold.limit_seconds)})`;
  const left = (Date.parse(hold.deadline) - new Date(now).getTime()) / 1000;
  return `${label}: Analyse by ${fmtTime(hold.deadline)} — ${durationWords(left)} left`;
}

// The holding times of `record()` (read at each tick, so edits show), redrawn every 20 seconds while on
// screen; `stop()` ends the clock when the screen goes.
export function holdingPanel(record) {
  const list = h("ul.plain", { "data-test": "holding-times", "aria-live": "off" });
  const el = h("section", h("h2", "Holding times"), list,
    h("p.hint", "Counted from the time sampled to the lab's analysis (40 CFR 136.3). Exactly at the limit is within it."));
  const draw = () => {
    const r = record();
    const holds = r.analysis === "lab" || r.analyzed_at ? holdingTimes(r.parameters, r.sampled_at, r.analyzed_at, r.analysis) : [];
    el.hidden = holds.length === 0;
    mount(list, holds.map((hold) => h(hold.status === "exceeded" ? "li.banner.error" : "li", {
      dataset: { holding: hold.parameter, status: hold.status } }, holdingText(hold))));
  };
  draw();
  const timer = setInterval(draw, 20000);
  return { el, draw, stop: () => clearInterval(timer) };
}

export function transferList(transfers) {
  if (!transfers.length) return h("p.muted", { "data-test": "transfers" }, "No hand-overs recorded yet.");
  return h("ol", { "data-test": "transfers" }, transfers.map((t) => h("li", { dataset: { transfer: t.at } },
    `${t.from_name} → ${t.to_name}, ${fmtTime(t.at)}`, t.signature_photo_id ? " (signed)" : " (no signature)")));
}

// The hand-over form. `onRecord({from_name, to_name, at}, pngBytes)` saves it; it resolves to a problem
// text, or null once recorded (the form is then cleared for the next one).
export function handOverForm({ defaultFrom, earliest, onRecord }) {
  const from = h("input", { type: "text", value: defaultFrom(), maxlength: 200, "data-test": "relinquished-by" });
  const to = h("input", { type: "text", maxlength: 200, "data-test": "received-by" });
  let shown = nowIso();  // the time the picker was filled with: left as it is, the hand-over is "now"
  const at = h("input", { type: "datetime-local", value: toLocalInput(shown), "data-test": "handed-at" });
  const pad = signaturePad("Signature of the person receiving the sample", "Hand the tablet to the person receiving the sample to sign with a finger.");
  const message = h("div", { "aria-live": "polite" });
  const button = h("button", { type: "button", "data-test": "record-hand-over" }, "Record hand-over");
  button.addEventListener("click", async () => {
    const picked = at.value === toLocalInput(shown) ? nowIso() : fromLocalInput(at.value);
    const when = notBefore(picked, earliest().at);
    const problems = [];
    if (!from.value.trim()) problems.push("Enter who relinquished the sample.");
    if (!to.value.trim()) problems.push("Enter who received the sample.");
    if (!when) problems.push("Enter the time of the hand-over.");
    else if (Date.parse(when) < Date.parse(earliest().at)) problems.push(`The hand-over cannot be before ${earliest().what} (${fmtTime(earliest().at)}).`);
    if (!pad.hasInk()) problems.push("The person receiving the sample signs on the tablet.");
    if (problems.length) { mount(message, h("div.banner.error", problems.map((p) => h("p", p)))); return; }
    button.disabled = true;
    try {
      const problem = await onRecord({ from_name: from.value.trim(), to_name: to.value.trim(), at: when }, await pad.png());
      if (problem) { mount(message, h("div.banner.error", problem)); return; }
      mount(message, h("div.banner.ok", { "data-test": "hand-over-recorded" }, `Hand-over to ${to.value.trim()} recorded.`));
      from.value = to.value.trim();
      to.value = "";
      shown = nowIso();
      at.value = toLocalInput(shown);
      pad.clear();
    } finally {
      button.disabled = false;
    }
  });
  return h("fieldset.handover", h("legend", "Record a hand-over"),
    h("div.fields.cols", field("Relinquished by", from), field("Received by", to)), field("Time", at),
    pad.el, message, h("div.actions", button));
}

// The lab's receipt and analysis time: inputs, and `values()` as the API takes them (or a problem).
export function labReceipt(record) {
  const received = h("input", { type: "datetime-local", value: record.received_by_lab_at ? toLocalInput(record.received_by_lab_at) : "", "data-test": "lab-received-at" });
  const by = h("input", { type: "text", value: record.lab_received_by || "", maxlength: 200, "data-test": "lab-received-by" });
  const temperature = h("input", { type: "number", step: "0.1", min: "-5", max: "60", inputmode: "decimal",
    value: record.lab_receipt_temperature_c ?? "", "data-test": "lab-temperature" });
  const analyzed = h("input", { type: "datetime-local", value: record.analyzed_at ? toLocalInput(record.analyzed_at) : "", "data-test": "analyzed-at" });
  // The pickers show minutes: a stored instant is kept unless the user changed it.
  const keep = (input, stored) => (stored && input.value === toLocalInput(stored) ? stored : fromLocalInput(input.value));
  const el = h("section", h("h2", "Received at the lab"),
    h("div.fields.cols", field("Received by the lab at", received), field("Received for the lab by", by),
      field("Temperature on receipt (°C)", temperature), field("Analysed at", analyzed, "When the lab analysed it: stops the holding-time clock.")));
  return {
    el,
    values() {
      const t = temperature.value.trim();
      const transfers = record.chain_of_custody || [];
      const last = transfers.length ? transfers[transfers.length - 1].at : null;
      const out = { received_by_lab_at: notBefore(keep(received, record.received_by_lab_at), last), lab_received_by: by.value.trim() || null,
        lab_receipt_temperature_c: t === "" ? null : Number(t), analyzed_at: keep(analyzed, record.analyzed_at) };
      const problems = [];
      if (t !== "" && !(Number.isFinite(out.lab_receipt_temperature_c) && out.lab_receipt_temperature_c >= -5 && out.lab_receipt_temperature_c <= 60)) {
        problems.push("The temperature on receipt is between -5 and 60 °C.");
      }
      if (!out.received_by_lab_at && (out.lab_received_by || out.lab_receipt_temperature_c !== null)) problems.push("Enter when the lab received the sample.");
      if (out.received_by_lab_at && last && Date.parse(out.received_by_lab_at) < Date.parse(last)) problems.push("The lab cannot receive the sample before its last hand-over.");
      return { values: out, problems };
    },
  };
}

// The custody form for the lab, fetched with the sign-in token once the sample is on the server.
export function custodyLink(record, permit, urls) {
  if (record._new || record.version === null || record.version === undefined) {
    return h("p.hint", { "data-test": "custody-pdf-later" }, "The chain-of-custody form can be printed once the sample has reached the server.");
  }
  const day = localDate(new Date(record.sampled_at));  // the Town's calendar day, as the server names the file
  return h("div.actions", fetchedLink(`/api/v1/samples/${record.id}/custody.pdf`, "Chain-of-custody form (PDF)",
    `custody-${(permit && permit.number) || "draft"}-${day}.pdf`, urls, { test: "custody-pdf" }));
}
