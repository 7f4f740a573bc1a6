// What the sync bar says while pull pages arrive (pure, unit-tested in tests/js). The pull answers
// no total, only has_more, so the bar counts what has landed and says whether more is coming.
const count = (n) => n.toLocaleString("en-US");

export function pullProgress(first, received, more) {
  const what = first ? "First sync" : "Receiving updates";
  if (!received) return more ? `${what}: asking the server…` : `${what}: nothing new`;
  return `${what}: ${count(received)} record${received === 1 ? "" : "s"} received${more ? ", more coming…" : ""}`;
}

// A push the server answered 503 sync_busy (it was applying other devices' batches and applied
// nothing of this one) is sent again after its Retry-After, within the same run, up to BUSY_TRIES
// times; a little more than asked, at random, so tablets told the same moment do not all return at
// once. Anything else, or one try too many, is not ours to wait on: null.
export const BUSY_TRIES = 6;

export function busyRetry(err, attempt, random = Math.random) {
  if (!err || err.status !== 503 || err.key !== "sync_busy" || attempt + 1 >= BUSY_TRIES) return null;
  const asked = Number(((err.errors || {}).retry_after_s || [])[0]);
  const seconds = Math.min(60, Math.max(1, Number.isFinite(asked) ? asked : 2));
  return { ms: Math.round(seconds * 1000 * (1 + random() / 2)), progress: `Server busy; sending again in ${seconds} s…` };
}
