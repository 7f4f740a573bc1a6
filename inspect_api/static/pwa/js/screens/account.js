// Account and device: who is signed in, the app version, storage, and signing out. Signing out with
// unsent work asks to keep it on this device or discard it; nothing is dropped silently.
import { h, mount, plural } from "../dom.js";
import { currentUser, deviceId, logout } from "../auth.js";
import { meta } from "../db.js";
import { appVersion, workerVersion } from "../swclient.js";
import * as outbox from "../outbox.js";
import { go } from "../router.js";
import { mailCard } from "../ui/account_mail.js";
import { themeCard } from "../ui/theme.js";

const ROLE_TEXT = { inspector: "Inspector", supervisor: "Supervisor", applicant: "Applicant", admin: "Administrator" };

export async function accountScreen(main) {
  const user = currentUser();
  const persisted = await meta.get("storage_persisted");
  const estimate = navigator.storage && navigator.storage.estimate ? await navigator.storage.estimate().catch(() => null) : null;
  const sw = await workerVersion();
  const confirmBox = h("div", { "aria-live": "polite" });
  mount(main,
    h("h1", "Account and device"),
    h("div.grid.two",
      h("section.card",
        h("h2", "Signed in"),
        h("dl.kv",
          h("dt", "Name"), h("dd", user.name || "—"),
          h("dt", "E-mail"), h("dd", user.email),
          h("dt", "Role"), h("dd", ROLE_TEXT[user.role] || user.role),
          h("dt", "Device id"), h("dd", await deviceId())),
        user.expired ? h("div.banner.warn", "Your sign-in has ended. ", h("a", { href: "#/login" }, "Sign in again"), ".") : null,
        h("div.actions", h("button.danger", { type: "button", onclick: () => askLogout(confirmBox) }, "Sign out")),
        confirmBox),
      h("section.card",
        h("h2", "This device"),
        h("dl.kv",
          h("dt", "App version"), h("dd", { "data-test": "app-version" }, appVersion),
          h("dt", "Offline copy"), h("dd", sw ? `version ${sw}, ready offline` : "not installed yet"),
          h("dt", "Storage"), h("dd", { "data-test": "storage" }, persisted === true ? "Kept: the browser will not clear it"
            : persisted === false ? "Not guaranteed: the browser may clear it when space runs low" : "Decided by the browser"),
          estimate ? h("dt", "Used") : null,
          estimate ? h("dd", `${(estimate.usage / 1e6).toFixed(1)} MB of ${(estimate.quota / 1e9).toFixed(1)} GB`) : null),
        persisted === false ? h("div.banner.warn", { "data-test": "storage-explained" },
          h("p", "This browser has not promised to keep the app's data. If the device runs low on space, or the app is not opened for a long time, "
            + "the browser may delete work that has not been sent yet."),
          h("p", "What to do: sync whenever you have a connection (the bar at the top says what waits to be sent), "
            + "and install the app to the home screen: installed apps are kept.")) : null,
        h("p.hint", "Install the app from the browser menu (“Install app” or “Add to Home Screen”) to open it like any other app.")),
      mailCard(),
      // The base map kept for offline days: for those who work at assigned sites.
      ["inspector", "supervisor"].includes(user.role) ? offlineMaps() : null,
      themeCard()));
}

async function askLogout(box) {
  const unsent = await outbox.items();
  if (!unsent.length) {
    await logout();
    go("/login");
    return;
  }
  mount(box, h("div.banner.warn", { role: "alertdialog", "aria-label": "Unsent work" },
    h("p", `${plural(unsent.length, "change")} made on this device ${unsent.length === 1 ? "has" : "have"} not been sent yet.`),
    h("p", "Keep them on this device (they are sent after you sign in again) or discard them for good."),
    h("div.actions",
      h("button.primary", { type: "button", onclick: async () => { await logout(); go("/login"); } }, "Keep them and sign out"),
      h("button.danger.solid", { type: "button", onclick: async () => {
        for (const item of unsent) await outbox.removeItem(item.seq);
        await logout();
        go("/login");
      } }, "Discard them and sign out"),
      h("button", { type: "button", onclick: () => mount(box) }, "Cancel"))));
}

// The offline-maps card loads its module (and the tile arithmetic the service worker shares) when the
// Account screen is first shown, not with the app: the app's first load then fetches each shell file
// once, and the service worker's own import of that arithmetic is the only one.
function offlineMaps() {
  const slot = h("section.card", h("p.hint", "Loading…"));
  import("../ui/offline_maps.js").then(({ offlineMapsCard }) => slot.replaceWith(offlineMapsCard()))
    .catch(() => mount(slot, h("p.hint", "The offline maps could not be shown: reload the app.")));
  return slot;
}
