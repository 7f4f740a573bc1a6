// The order in which the outbox is sent: which items one sync round pushes. Pure (no storage, no
// network) so Node's test runner checks it (tests/js/outbox_order.test.js).
//
// Items go in outbox order (`seq`). One round sends at most one change per record: a record's later
// change needs the version the earlier one produced. A record whose earliest change is a conflict or
// a rejection holds its later changes until the user resolves it. Photos go by their own path. A
// call (an action with its own endpoint, such as submitting an inspection) goes in a round of its own,
// once no change that may go before it is left: changes to other records are not held by it.
// A photo's markup (photo_annotation) names the photo: it waits, with its record's later changes, while
// that photo is still in the outbox (the server knows a photo only once its bytes arrived).
export const BATCH = 100;

export const recordKey = (item) => `${item.entity}:${item.id}`;

export function nextRound(list, limit = BATCH) {
  const held = new Set();
  const batch = [];
  let call = null;
  const photos = new Set(list.filter((i) => i.kind === "photo").map((i) => i.id));
  for (const item of [...list].sort((a, b) => a.seq - b.seq)) {
    if (item.kind === "photo") continue;
    const key = recordKey(item);
    if (held.has(key)) continue;
    held.add(key);
    if (item.entity === "photo_annotation" && item.data && photos.has(item.data.photo_id)) continue;
    if (item.state !== "pending") continue;
    if (item.kind === "call") { if (!call && !batch.length) call = item; continue; }
    if (!call && batch.length < limit) batch.push(item);
  }
  return { batch, call };
}
