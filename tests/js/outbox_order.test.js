// The order the outbox is sent in: one change per record per round, in outbox order, a conflict or a
// rejection holding that record's later changes, calls in rounds of their own.
import { test } from "node:test";
import assert from "node:assert/strict";

import { BATCH, nextRound, recordKey } from "../../inspect_api/static/pwa/js/outbox_order.js";

const m = (seq, entity, id, state = "pending") => ({ kind: "mutation", seq, entity, id, state });
const seqs = (items) => items.map((i) => i.seq);

test("changes go in outbox order, whatever order the store returns them in", () => {
  const list = [m(3, "sample", "s1"), m(1, "inspection", "i1"), m(2, "finding", "f1")];
  assert.deepEqual(seqs(nextRound(list).batch), [1, 2, 3]);
  assert.deepEqual(seqs(list), [3, 1, 2], "the caller's list is left as it was");
});

test("a record's later change waits for the next round", () => {
  const { batch } = nextRound([m(1, "inspection", "i1"), m(2, "inspection", "i1"), m(3, "inspection", "i2")]);
  assert.deepEqual(seqs(batch), [1, 3]);
  // The same id under another entity is another record.
  assert.deepEqual(seqs(nextRound([m(1, "inspection", "x"), m(2, "finding", "x")]).batch), [1, 2]);
  assert.equal(recordKey({ entity: "finding", id: "x" }), "finding:x");
});

test("a conflict or a rejection holds that record's later changes, and only that record's", () => {
  const list = [m(1, "inspection", "i1", "conflict"), m(2, "inspection", "i1"), m(3, "finding", "f1", "rejected"),
    m(4, "finding", "f1"), m(5, "sample", "s1")];
  assert.deepEqual(seqs(nextRound(list).batch), [5]);
});

test("photos are not part of a push round", () => {
  const list = [{ kind: "photo", seq: 1, entity: "photo", id: "ph1", state: "pending" }, m(2, "inspection", "i1")];
  assert.deepEqual(seqs(nextRound(list).batch), [2]);
});

test("a call goes in a round of its own, after the changes that can go before it", () => {
  const call = { kind: "call", seq: 2, entity: "inspection", id: "i2", state: "pending" };
  // Changes to other records are not held by the call: they go first, the call in a later round.
  const first = nextRound([m(1, "inspection", "i1"), call, m(3, "sample", "s1")]);
  assert.deepEqual([seqs(first.batch), first.call], [[1, 3], null]);
  const alone = nextRound([call, m(3, "sample", "s1")]);
  assert.deepEqual([seqs(alone.batch), alone.call], [[], call]);
  // A call behind a change to its own record waits for that change; a change behind the call waits for it.
  const behind = nextRound([m(1, "inspection", "i2"), { ...call }]);
  assert.deepEqual([seqs(behind.batch), behind.call], [[1], null]);
  const after = nextRound([call, m(4, "inspection", "i2")]);
  assert.deepEqual([seqs(after.batch), after.call], [[], call]);
  // Of two calls only the first goes in a round.
  const second = { ...call, seq: 5, id: "i5" };
  assert.equal(nextRound([second, call]).call, call);
});

test("a round is at most BATCH changes; an empty outbox sends nothing", () => {
  const many = Array.from({ length: BATCH + 5 }, (_, n) => m(n + 1, "finding", `f${n}`));
  const { batch } = nextRound(many);
  assert.equal(batch.length, BATCH);
  assert.equal(batch[BATCH - 1].seq, BATCH);
  assert.equal(nextRound(many, 3).batch.length, 3);
  assert.deepEqual(nextRound([]), { batch: [], call: null });
});

test("a photo's markup waits while the photo it names is still in the outbox, then goes", () => {
  const photo = { kind: "photo", seq: 1, entity: "photo", id: "ph1", state: "pending" };
  const markup = { ...m(2, "photo_annotation", "a1"), data: { photo_id: "ph1", shapes: [] } };
  const edit = { ...m(3, "photo_annotation", "a1"), data: { photo_id: "ph1", shapes: [] } };
  const other = { ...m(4, "photo_annotation", "a2"), data: { photo_id: "ph-uploaded", shapes: [] } };
  assert.deepEqual(seqs(nextRound([photo, markup, edit, other, m(5, "sample", "s1")]).batch), [4, 5]);
  // A photo the server refused still names no photo the server has: its markup keeps waiting.
  assert.deepEqual(seqs(nextRound([{ ...photo, state: "rejected" }, markup]).batch), []);
  // Once the photo has left the outbox (uploaded), the markup goes, and its later edit waits its turn.
  assert.deepEqual(seqs(nextRound([markup, edit]).batch), [2]);
  // A call is not held by a waiting markup.
  const call = { kind: "call", seq: 6, entity: "inspection", id: "i1", state: "pending" };
  assert.deepEqual(nextRound([photo, markup, call]).call, call);
});
