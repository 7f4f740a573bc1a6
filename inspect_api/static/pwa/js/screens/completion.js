// Completion notice (R-F1): a written statement with photographic evidence that the work matches
// the approved plan. Photos are taken or chosen here and travel in the outbox like the inspector's.
import { h, mount, field, uuid, nowIso, localDate } from "../dom.js";
import * as store from "../store.js";
import * as outbox from "../outbox.js";
import { go } from "../router.js";
import { syncNow } from "../sync.js";
import { cameraButton, photoStrip } from "../ui/photos.js";

// What a notice is sent as: the whole record when new; only its `body` to correct a returned one.
export function noticePayload({ noticeId, permitId, statement, photoIds, completedOn }, existing) {
  const body = { statement: statement.trim(), photo_ids: photoIds, completed_on: completedOn || null };
  return { body, data: existing ? body : { id: noticeId, permit_id: permitId, ...body, device_created_at: nowIso() } };
}

export async function completionScreen(main, { id: permitId }) {
  const permit = await store.getPermit(permitId);
  const existing = (await store.recordsFor("completion_notice", permitId))[0] || null;
  const noticeId = existing ? existing.id : uuid();
  const photoIds = existing ? [...existing.photo_ids] : [];
  const statement = h("textarea", { rows: 5, name: "statement" }, existing ? existing.statement : "");
  const completed = h("input", { type: "date", value: (existing && existing.completed_on) || (permit && permit.work_completed_on) || localDate() });
  const strip = h("div");
  const message = h("div", { "aria-live": "polite" });
  const drawPhotos = () => mount(strip, photoIds.length ? photoStrip(photoIds) : h("p.muted", "No photos yet."));
  // Photos taken here wait (held) until the notice is saved; leaving without saving drops them,
  // so no photo is ever uploaded for a notice that was never sent.
  await outbox.dropPhotos((i) => i.parent_id === noticeId && !photoIds.includes(i.id));
  const added = [];
  let saved = false;
  const camera = cameraButton("Add photos", () => ({ permit_id: permitId, parent_type: "completion_notice", parent_id: noticeId, held: true }),
    (ids) => { photoIds.push(...ids); added.push(...ids); drawPhotos(); });
  drawPhotos();
  const cancel = async () => {
    await outbox.dropPhotos((i) => added.includes(i.id));
    go(`/permit/${permitId}`);
  };

  async function save(event) {
    event.preventDefault();
    const problems = [];
    if (!statement.value.trim()) problems.push("Write the statement that the work matches the approved plan.");
    if (!photoIds.length) problems.push("Add at least one photo of the completed work.");
    if (problems.length) { mount(message, h("div.banner.error", problems.map((p) => h("p", p)))); return; }
    const { body, data } = noticePayload({ noticeId, permitId, statement: statement.value, photoIds,
      completedOn: completed.value }, existing);
    await store.saveLocal("completion_notice", { ...(existing || { status: "submitted", version: null }), ...body, id: noticeId, permit_id: permitId });
    await outbox.queueMutation("completion_notice", noticeId, data, `Completion notice for ${(permit.site || {}).address}`);
    await outbox.releasePhotos(photoIds);
    saved = true;
    go(`/permit/${permitId}`);
    syncNow("saved");
  }

  mount(main, h("p", h("a.back", { href: `#/permit/${permitId}` }, "← Back to the permit")),
    h("h1", "Completion notice"), h("p.muted", permit ? (permit.site || {}).address : ""),
    h("form.card", { onsubmit: save, novalidate: true },
      field("Statement", statement, "For example: all work is complete and matches the approved plan; permanent controls are in place."),
      field("Work completed on", completed),
      h("h2", "Photos of the completed work"), h("p.hint", "Photograph each permanent control: swales, basins, outlets, stabilized slopes."),
      strip, camera, message,
      h("div.actions", h("button.primary", { type: "submit" }, "Send completion notice"), h("button", { type: "button", onclick: cancel }, "Cancel"))));
  return () => { if (!saved) outbox.dropPhotos((i) => added.includes(i.id)); };
}
