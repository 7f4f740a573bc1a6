// The Account screen's "E-mail messages" card: one switch per optional message (GET/PUT
// /me/notification-preferences), saved as soon as it is flipped, and the notices that are always
// sent, listed so nobody expects to turn off an order or a notice of costs. Online only: the choice
// lives on the server, which writes the messages.
import { h, mount } from "../dom.js";
import { api, plain } from "../api.js";

const PATH = "me/notification-preferences";

export function mailCard() {
  const card = h("section.card", { "data-test": "mail-preferences" }, h("h2", "E-mail messages"), h("p.hint", "Loading…"));
  load(card);
  return card;
}

async function load(card) {
  try {
    draw(card, await api(PATH));
  } catch (err) {
    mount(card, h("h2", "E-mail messages"), h("p.hint", "Your e-mail choices can be changed when the app is online. " + plain(err)));
  }
}

function draw(card, body) {
  const status = h("p.hint", { "aria-live": "polite", "data-test": "mail-status" });
  const switches = body.preferences.map((pref) => {
    const box = h("input", { type: "checkbox", role: "switch", checked: pref.enabled, "data-event": pref.event });
    box.addEventListener("change", () => save(card, box, pref, status));
    return h("label.check", box, pref.label);
  });
  mount(card,
    h("h2", "E-mail messages"),
    switches.length ? h("p", "Choose which messages the office sends you by e-mail.") : null,
    switches,
    body.always_sent.length ? h("p.hint", "Always sent, whatever you choose: "
      + body.always_sent.map((a) => a.label + (a.required_by_bylaw ? " (required by the bylaw)" : " (security)")).join("; ") + ".") : null,
    status);
}

async function save(card, box, pref, status) {
  const enabled = box.checked;
  box.disabled = true;
  status.textContent = "Saving…";
  try {
    await api(PATH, { method: "PUT", body: { preferences: [{ event: pref.event, enabled }] } });
    pref.enabled = enabled;
    status.textContent = `Saved: ${pref.label} is ${enabled ? "on" : "off"}.`;
  } catch (err) {
    box.checked = pref.enabled;  // the server's choice stands
    status.textContent = "Not saved. " + plain(err);
  } finally {
    box.disabled = false;
  }
}
