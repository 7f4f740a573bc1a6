// The checklist of an inspection: one tap per answer (ok / deficient / n/a), a note, photos per item,
// and for a deficient item the finding it will raise with its R-I4 due date. Answers carried over from
// the last inspection are marked until the inspector confirms ("Still so") or changes each.
import { h, mount, select, localDate, fmtDate, confirmAction, plural } from "../dom.js";
import { findingDueOn } from "../rules/workdays.js";
import { settle, stillCarried, confirmAll } from "../rules/carry.js";
import { cameraButton, photoStrip } from "./photos.js";

const ANSWERS = [["ok", "OK", "ok"], ["deficient", "Deficient", "deficient"], ["n/a", "N/A", "na"]];
const SEVERITIES = ["low", "moderate", "high", "critical"];

// Mirrors inspect_api/inspections/rules.py deficiency_needs_new_control / deficiency_action.
export function needsNewControl(item, answer) {
  if (answer.needs_new_control !== null && answer.needs_new_control !== undefined) return Boolean(answer.needs_new_control);
  return Boolean(item.needs_new_control_default);
}

export function requiredAction(item, newControl) {
  const control = item.control || "the control";
  return newControl ? `Install or replace ${control} as the ESC plan requires.` : `Repair or maintain ${control} so it works as the ESC plan requires.`;
}

export function unanswered(items, answers) {
  const done = new Set(answers.map((a) => a.key));
  return items.filter((i) => !done.has(i.key)).map((i) => i.key);
}

// `state.answers` is the list sent to the API; `change()` saves after every edit. `carried` ({date,
// photosOf(key)}) names the inspection the answers were carried from, whose photos are shown read-only.
export function checklistView(template, state, { editable, photoMeta, change, observedOn, carried = null }) {
  const box = h("div");
  const answerOf = (key) => state.answers.find((a) => a.key === key);

  function setAnswer(item, value) {
    let answer = answerOf(item.key);
    if (!answer) { answer = { key: item.key, answer: value, note: null, photo_ids: [] }; state.answers.push(answer); }
    answer.answer = value;
    settle(answer);
    if (value !== "deficient") { delete answer.severity; delete answer.needs_new_control; }
    else if (!answer.severity) answer.severity = "moderate";
    change();
    redraw(item);
  }

  function itemView(item, index) {
    const answer = answerOf(item.key);
    const value = answer && answer.answer;
    const deficient = value === "deficient";
    const headingId = `item-${item.key}`;
    const buttons = ANSWERS.map(([v, text, cls]) => h(`button.${cls}`, { type: "button", "aria-pressed": String(value === v),
      disabled: !editable, dataset: { answer: v }, onclick: () => setAnswer(item, v) }, text));
    const note = h("input", { type: "text", value: (answer && answer.note) || "", disabled: !editable || !answer,
      placeholder: answer ? "Note (what you saw, where)" : "Answer first, then add a note", "aria-label": `Note for ${item.label}` });
    const mark = answer && answer.carried_over ? carriedMark(item, answer) : null;
    note.addEventListener("input", () => {
      const a = answerOf(item.key);
      if (!a) return;
      a.note = note.value || null;
      if (a.carried_over) { settle(a); if (mark) mark.remove(); count(); }
      change({ debounce: true });
    });
    const photos = answer ? photoStrip(answer.photo_ids) : null;
    const camera = editable && answer ? cameraButton("Add photo", photoMeta, (ids) => {
      const a = answerOf(item.key);
      a.photo_ids = [...(a.photo_ids || []), ...ids];
      change();
      redraw(item);
    }) : null;
    return h(`div.item${deficient ? ".deficient" : ""}`, { dataset: { item: item.key }, role: "group", "aria-labelledby": headingId },
      h("div.label", { id: headingId }, `${index + 1}. ${item.label}`),
      item.help_text ? h("details", h("summary", "What to look for"), h("p.muted", item.help_text)) : null,
      mark,
      h("div.answers", buttons),
      answer ? note : null,
      deficient ? findingBox(item, answer) : null,
      deficient && item.photo_expected_when_deficient && !(answer.photo_ids || []).length
        ? h("p.hint", "A photo is expected for a deficient item.") : null,
      photos, camera, earlierPhotos(item));
  }

  // "Carried over from <date>" with the control that confirms the answer unchanged.
  function carriedMark(item, answer) {
    return h("div.carried", { "data-test": "carried" },
      h("span.chip.info", `Carried over from ${carried ? carried.date : "the last inspection"}`),
      editable ? h("button.small", { type: "button", "data-test": "still-so", "aria-label": `Still so: ${item.label}`,
        onclick: () => { settle(answer); change(); redraw(item); } }, "Still so") : null);
  }

  // The last inspection's photos of this item, beside this visit's: read-only, labelled with their date.
  function earlierPhotos(item) {
    const ids = carried ? carried.photosOf(item.key) : [];
    if (!ids.length) return null;
    return h("div.earlier-photos", { "data-test": "earlier-photos" },
      h("p.hint", `Photos from the inspection of ${carried.date} (not part of this inspection)`), photoStrip(ids));
  }

  function findingBox(item, answer) {
    const newControl = needsNewControl(item, answer);
    const due = findingDueOn(observedOn || localDate(), newControl);
    const severity = select(SEVERITIES.map((s) => [s, s[0].toUpperCase() + s.slice(1)]), answer.severity || "moderate",
      { disabled: !editable, "aria-label": `Severity for ${item.label}` });
    severity.addEventListener("change", () => { answer.severity = severity.value; const was = settle0(answer); change(); if (was) redraw(item); });
    const checkbox = h("input", { type: "checkbox", checked: newControl, disabled: !editable });
    checkbox.addEventListener("change", () => { answer.needs_new_control = checkbox.checked; settle(answer); change(); redraw(item); });
    return h("div.finding", { "data-test": "finding" },
      h("div.split", h("strong", "Finding"), h("span.chip.warn", { "data-test": "due" }, `Due ${fmtDate(due)}`)),
      h("p", requiredAction(item, newControl)),
      h("div.fields.cols", h("div.field", h("label", "Severity"), severity),
        h("label.check", checkbox, "A new or replaced control is needed (7 days)")),
      h("p.hint", newControl ? "Within 7 calendar days (R-I4)." : "By the close of the next business day (R-I4)."));
  }

  // A change to a carried answer settles it; true when it was still carried (its mark must go).
  function settle0(answer) {
    const was = Boolean(answer.carried_over);
    settle(answer);
    return was;
  }

  const views = new Map();
  const counter = h("span.chip.info", { "data-test": "answered" });
  const carriedCount = h("span.chip.warn", { "data-test": "carried-count" });
  const items = template.items || [];
  // Offered after the last item, so every answer it confirms has been on the screen first.
  const confirmBox = h("div.actions", { "data-test": "confirm-all" });

  function count() {
    counter.textContent = `${items.length - unanswered(items, state.answers).length} of ${items.length} answered`;
    const left = stillCarried(state.answers).length;
    carriedCount.textContent = left ? `${left} carried over` : "";
    carriedCount.hidden = !left;
    mount(confirmBox, editable && left ? h("button", { type: "button", onclick: confirmAllUnchanged }, "Confirm all unchanged") : null);
  }

  async function confirmAllUnchanged() {
    const keys = stillCarried(state.answers);
    const deficient = state.answers.filter((a) => a.carried_over && a.answer === "deficient").length;
    const ok = await confirmAction({ title: `Confirm ${plural(keys.length, "answer")} unchanged?`, confirm: "Confirm all unchanged",
      body: [`Each answer still carried over from ${carried ? carried.date : "the last inspection"} becomes this visit's answer, as it is.`,
        deficient === 1 ? "One of them is deficient and stays so: it raises a finding when you submit." : null,
        deficient > 1 ? `${deficient} of them are deficient and stay so: each raises a finding when you submit.` : null].filter(Boolean) });
    if (!ok) return;
    confirmAll(state.answers);
    change();
    for (const item of items) if (keys.includes(item.key)) redraw(item);
    count();
  }

  // Only the touched item is rebuilt, so the page does not jump while the inspector works down the list.
  function redraw(item) {
    const fresh = itemView(item, items.indexOf(item));
    views.get(item.key).replaceWith(fresh);
    views.set(item.key, fresh);
    count();
  }

  mount(box, h("div.split", h("h2", template.title || "Checklist"), h("span", counter, " ", carriedCount)),
    items.map((item, i) => { const v = itemView(item, i); views.set(item.key, v); return v; }), confirmBox);
  count();
  return box;
}
