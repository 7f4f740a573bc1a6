// Service worker registration and clean updates: a waiting new version is announced; it takes over
// only when the user taps "Update", and then the page reloads once, so old and new never mix.
import { h, mount } from "./dom.js";
import { VERSION } from "../version.js";

let reloading = false;
let updating = false;  // the user tapped "Update now" here

function announce(worker) {
  const box = document.getElementById("update");
  mount(box,
    h("span", "A new version of the app is ready. Unsent work stays on this device."),
    h("button.primary.small", { type: "button", onclick: () => { updating = true; worker.postMessage({ type: "skip-waiting" }); } }, "Update now"),
    h("button.small", { type: "button", onclick: () => { box.hidden = true; } }, "Later"));
  box.hidden = false;
}

export async function registerServiceWorker() {
  if (!("serviceWorker" in navigator)) return null;
  // The first install claims the page silently. A later change of worker is an update the user chose
  // (here or in another tab): every page reloads into it at once; forms autosave, so nothing is lost.
  const hadController = Boolean(navigator.serviceWorker.controller);
  navigator.serviceWorker.addEventListener("controllerchange", () => {
    if (!(hadController || updating) || reloading) return;
    reloading = true;
    location.reload();
  });
  // /sw.js itself is always fetched from the server; its imports are versioned, immutable paths, so
  // the HTTP cache may serve them (the page has loaded version.js already: it crosses the network once).
  const registration = await navigator.serviceWorker.register("/sw.js", { type: "module", scope: "/", updateViaCache: "imports" });
  if (registration.waiting && navigator.serviceWorker.controller) announce(registration.waiting);
  registration.addEventListener("updatefound", () => {
    const worker = registration.installing;
    worker.addEventListener("statechange", () => {
      if (worker.state === "installed" && navigator.serviceWorker.controller) announce(worker);
    });
  });
  // Look for a new version when the app comes back to the foreground (and hourly while open).
  document.addEventListener("visibilitychange", () => { if (!document.hidden) registration.update().catch(() => {}); });
  setInterval(() => registration.update().catch(() => {}), 60 * 60 * 1000);
  return registration;
}

export const appVersion = VERSION;

// The version of the worker now serving this page (may lag behind VERSION during an update).
export function workerVersion() {
  const controller = navigator.serviceWorker && navigator.serviceWorker.controller;
  if (!controller) return Promise.resolve(null);
  return new Promise((resolve) => {
    const channel = (event) => {
      if (event.data && event.data.type === "version") {
        navigator.serviceWorker.removeEventListener("message", channel);
        resolve(event.data.version);
      }
    };
    navigator.serviceWorker.addEventListener("message", channel);
    controller.postMessage({ type: "version" });
    setTimeout(() => resolve(null), 2000);
  });
}

// Asks the worker to keep the files no screen needs to start (the map library, the viewer; shell.js
// LATER): after each sync, so they come once the user has signed in, and again if a try failed.
export function precacheLater() {
  if (!("serviceWorker" in navigator)) return;
  // `ready`: the active worker, also on the first visit, before it controls this page.
  navigator.serviceWorker.ready.then((r) => { if (r.active) r.active.postMessage({ type: "precache-later" }); }).catch(() => {});
}
