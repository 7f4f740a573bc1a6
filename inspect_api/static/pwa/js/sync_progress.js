// What the sync bar says while pull pages arrive (pure, unit-tested in tests/js). The pull answers
// no total, only has_more, so the bar counts what has landed and says whether more is coming.
const count = (n) => n.toLocaleString("en-US");

export function pullProgress(first, received, more) {
  const what = first ? "First sync" : "Receiving updates";
  if (!received) return more ? `${what}: asking the server…` : `${what}: nothing new`;
  return `${what}: ${count(received)} record${received === 1 ? "" : "s"} received${more ? ", more coming…" : ""}`;
}
