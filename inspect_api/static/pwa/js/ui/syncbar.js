// The sync status, always on screen: connection, what waits to be sent, the last successful sync,
// progress ("Uploading photo 3 of 12") and errors in plain words, with a "Sync now" button.
import { h, mount, ago, plural } from "../dom.js";
import { currentUser } from "../auth.js";
import { onSyncState, syncNow } from "../sync.js";

let storageNote = "";
// The note links to the Account screen, which says what it means and what to do.
export const STORAGE_AT_RISK = "Storage not guaranteed: send work often";

export function setStorageNote(text) { storageNote = text; draw(); }

let last = null;
function draw(state = last) {
  last = state;
  const bar = document.getElementById("syncbar");
  if (!bar || !state) return;
  if (!currentUser()) { mount(bar); bar.hidden = true; return; }
  bar.hidden = false;
  const online = navigator.onLine;
  const c = state.counts;
  const waiting = c.pending ? `${c.pending} waiting to send${c.photos ? ` (${plural(c.photos, "photo")})` : ""}`
    : c.problems ? "Nothing else to send" : "Everything sent";
  // The words go in one box beside the button, so on a phone they wrap beside it rather than below.
  mount(bar, h("span.state",
    !online ? h("span.net.offline", { "data-test": "net" }, "Offline: work stays on this device")
      : state.unreachable ? h("span.net.offline", { "data-test": "net" }, "Office server not reached: work stays on this device")
        : h("span.net", { "data-test": "net" }, h("span.word", "Online")),
    h("span.pending", { "data-test": "pending" }, waiting),
    h("span.last", { "data-test": "last-sync" }, state.lastSync ? `Synced ${ago(state.lastSync)}` : "Not synced yet"),
    state.progress ? h("span.progress", { "data-test": "progress" }, state.progress) : null,
    state.error ? h("span.error", { "data-test": "sync-error" }, state.error) : null,
    c.problems ? h("a.error", { href: "#/issues", "data-test": "problems" }, `${plural(c.problems, "change")} need${c.problems === 1 ? "s" : ""} your decision`) : null,
    storageNote ? (storageNote === STORAGE_AT_RISK
      ? h("a", { href: "#/account", "data-test": "storage-note" }, storageNote)
      : h("span.muted", { "data-test": "storage-note" }, storageNote)) : null),
    h("span.spacer"),
    h("button.primary.small", { type: "button", disabled: state.running || !online, onclick: () => syncNow("manual"),
      "aria-label": state.running ? "Syncing" : "Sync now" }, state.running ? "Syncing…" : ["Sync", h("span.word", " now")]),
  );
}

export function startSyncBar() {
  onSyncState(draw);
  window.addEventListener("online", () => draw());
  window.addEventListener("offline", () => draw());
  setInterval(() => draw(), 30000);  // keeps "Last sync: 5 min ago" honest
}
