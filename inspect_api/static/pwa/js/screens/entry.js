// Site-entry authorization (R-E1): basis, who grants it, scope, validity window, and for owner
// consent the owner's signature drawn on the screen, kept as a PNG photo of the record.
import { h, mount, field, select, uuid, nowIso, toLocalInput, fromLocalInput, label } from "../dom.js";
import * as store from "../store.js";
import * as outbox from "../outbox.js";
import { ACTIVITIES, BASES } from "../rules/entry.js";
import { signaturePad } from "../ui/signature.js";
import { bestFix } from "../geo.js";
import { sha256Hex } from "../hash.js";
import { go } from "../router.js";
import { syncNow } from "../sync.js";
import { ceaseWarning } from "../ui/status.js";

export const RELATIONS = ["owner", "tenant", "site superintendent", "owner's agent", "other"];

// The record an authorization is sent as, from what its form holds (datetime-local values, untrimmed text).
export function entryPayload({ id, permitId, basis, grantedBy, relation, scope, from, to, signatureId, notes }) {
  return { id, permit_id: permitId, basis, granted_by_name: grantedBy.trim(), granted_by_relation: relation, scope,
    valid_from: fromLocalInput(from), valid_to: fromLocalInput(to), signature_photo_id: signatureId,
    notes: notes.trim() || null, device_created_at: nowIso() };
}

export async function entryScreen(main, { id: permitId }) {
  const permit = await store.getPermit(permitId);
  const basis = select(BASES.map((b) => [b, label(b)]), "owner_consent", { name: "basis" });
  const name = h("input", { name: "granted_by_name", autocomplete: "off", required: true });
  const relation = select(RELATIONS.map((r) => [r, label(r)]), "owner", { name: "granted_by_relation" });
  const scope = ACTIVITIES.map((a) => h("input", { type: "checkbox", name: "scope", value: a, checked: a !== "survey" }));
  const from = h("input", { type: "datetime-local", name: "valid_from", value: toLocalInput(), required: true });
  const until = new Date(Date.now() + 30 * 86400000);
  const to = h("input", { type: "datetime-local", name: "valid_to", value: toLocalInput(until.toISOString()), required: true });
  const notes = h("textarea", { name: "notes", rows: 2 });
  const pad = signaturePad("Signature of the person granting entry");
  const message = h("div", { "aria-live": "polite" });
  const save = h("button.primary", { type: "submit" }, "Save authorization");

  const form = h("form.card", { novalidate: true },
    h("div.fields.cols", field("Basis", basis), field("Relation to the property", relation)),
    field("Granted by (name)", name),
    h("fieldset", h("legend", "Scope"), scope.map((box) => h("label.check", box, label(box.value)))),
    h("div.fields.cols", field("Valid from", from), field("Valid until", to)),
    field("Notes", notes, "Conditions the owner set, such as areas not to enter."),
    pad.el, message, h("div.actions", save, h("a.button", { href: `#/site/${permitId}` }, "Cancel")));

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const errors = [];
    const chosen = scope.filter((b) => b.checked).map((b) => b.value);
    if (!name.value.trim()) errors.push("Enter the name of the person granting entry.");
    if (!chosen.length) errors.push("Tick at least one activity in the scope.");
    if (!from.value || !to.value || Date.parse(fromLocalInput(to.value)) <= Date.parse(fromLocalInput(from.value))) {
      errors.push("The end of the validity window must be after its start.");
    }
    if (basis.value === "owner_consent" && !pad.hasInk()) errors.push("Owner consent needs the owner's signature.");
    if (errors.length) { mount(message, h("div.banner.error", errors.map((e) => h("p", e)))); return; }
    save.disabled = true;
    try {
      const id = uuid();
      let signatureId = null;
      if (pad.hasInk()) {
        const bytes = await pad.png();
        const fix = bestFix();
        const photo = await outbox.queuePhoto(bytes, { permit_id: permitId, parent_type: "entry_authorization", parent_id: id,
          content_type: "image/png", filename: "signature.png", captured_at: nowIso(), sha256: await sha256Hex(bytes),
          device_lat: fix && fix.lat, device_lon: fix && fix.lon, device_accuracy_m: fix && fix.accuracy_m,
          label: "Signature" });
        signatureId = photo.id;
      }
      const data = entryPayload({ id, permitId, basis: basis.value, grantedBy: name.value, relation: relation.value,
        scope: chosen, from: from.value, to: to.value, signatureId, notes: notes.value });
      await store.saveLocal("entry_authorization", { ...data, revoked_at: null, version: null });
      // The record goes before its signature photo: photos upload after the outbox's changes.
      await outbox.queueMutation("entry_authorization", id, data, `Entry authorization from ${data.granted_by_name}`);
      go(`/site/${permitId}`);
      syncNow("saved");
    } catch (err) {
      mount(message, h("div.banner.error", err.message));
      save.disabled = false;
    }
  });
  mount(main, h("p", h("a.back", { href: `#/site/${permitId}` }, "← Back to the site")),
    h("h1", "Entry authorization"), h("p.muted", permit ? (permit.site || {}).address : ""), ceaseWarning(permit), form);
}
