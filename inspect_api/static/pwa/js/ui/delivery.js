// Delivery evidence of the Town's e-mail notices (GET /api/v1/notifications): for each recipient,
// whether and when the message was sent, in the Town's time zone, and why it was not.
import { h } from "../dom.js";

const TOWN_ZONE = "America/New_York";
const townFmt = new Intl.DateTimeFormat("en-US", { timeZone: TOWN_ZONE, month: "short", day: "numeric", year: "numeric",
  hour: "numeric", minute: "2-digit", timeZoneName: "short" });
const ROLE_WORDS = { violator: "violator", owner: "property owner", applicant: "applicant", contractor: "contractor" };

export function townTime(iso) {
  if (!iso) return "—";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? String(iso) : townFmt.format(d);
}

// What one message's state means to the office, in words: [chip kind, chip text, detail sentence].
export function deliveryWords(m) {
  if (m.status === "sent") return ["good", "E-mailed", `Sent ${townTime(m.sent_at)}.`];
  if (m.status === "failed") return ["bad", "Not delivered", m.failure_reason || "The message could not be delivered."];
  if (m.attempts > 0) {
    return ["warn", "Retrying", `Tried ${m.attempts} time${m.attempts === 1 ? "" : "s"}; the mail server answered “${m.smtp_reply || "nothing"}”. Next try ${townTime(m.next_attempt_at)}.`];
  }
  return ["info", "Waiting to send", `Queued ${townTime(m.created_at)}; the mail worker sends it shortly.`];
}

function row(who, m, onResend) {
  if (!m) {
    return h("li.item", { dataset: { delivery: "none" } }, h("div.split", h("span", who), h("span.chip.info", "No e-mail")),
      h("p.hint", "No e-mail notice was recorded for this recipient."));
  }
  const [kind, chip, detail] = deliveryWords(m);
  const again = m.status === "failed" && onResend
    ? h("div.actions", h("button", { type: "button", onclick: (event) => onResend(m, event.currentTarget) }, "Send again"))
    : null;
  return h("li.item", { dataset: { notification: m.id, delivery: m.status, recipientRole: m.recipient.role || "" } },
    h("div.split", h("span", who), h(`span.chip.${kind}`, chip)),
    h("p.hint", m.recipient.email ? `To ${m.recipient.email}. ${detail}` : detail), again);
}

// One line per recipient: `recipients` is [{name, role, ...}], matched to messages by `match(m, r)`;
// the latest message counts (a failed one sent again is followed by its copy). `onResend(m, button)`,
// when given, offers "Send again" on a failed message.
export function deliveryList(title, recipients, messages, match, onResend = null) {
  if (!recipients.length && !messages.length) return null;
  const rows = recipients.map((r) => {
    const found = messages.filter((m) => match(m, r));
    const latest = found[found.length - 1];
    return row(`${r.name} (${ROLE_WORDS[r.role] || r.role || "recipient"})`, latest, onResend);
  });
  return h("div", { dataset: { deliveries: title } }, h("h3", title), h("ul.plain", rows));
}

// The applicant's own notices: subject, state and time.
export function myNotices(messages) {
  return h("section.card", { dataset: { test: "my-notices" } }, h("h2", "Notices sent to you"),
    messages.length ? h("ul.plain", messages.map((m) => {
      const [kind, chip, detail] = deliveryWords(m);
      return h("li.item", { dataset: { notification: m.id, delivery: m.status } },
        h("div.split", h("span.label", m.subject), h(`span.chip.${kind}`, chip)), h("p.hint", detail));
    })) : h("p.muted", "The Town has not e-mailed you about this permit."));
}
