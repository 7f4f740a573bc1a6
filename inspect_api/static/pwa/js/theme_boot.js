// The theme chosen on this device, applied before the first paint: index.html loads this file as a plain
// (blocking) script in <head>, because the app's modules run only after the page is parsed and could be
// drawn once in the wrong colours. "Follow the device" (nothing chosen) is resolved here too: dark when the
// device asks for it, else light (no attribute), so the stylesheet holds one dark palette; ui/theme.js
// follows the device's later switches, shows the choice on the Account screen and keeps it (same key).
// It also says whether someone is signed in on this device (auth.js keeps the mark): a device with no
// session sees the sign-in form index.html draws itself, before any module has run, and one with a
// session sees "Loading…" instead of a form it will never use.
let chosen = null;
let signedIn = false;
try {
  chosen = localStorage.getItem("inspect-field.theme");
  signedIn = localStorage.getItem("inspect-field.signed-in") === "1";
} catch {
  // Storage refused (a locked-down browser): the device's own scheme.
}
if (chosen === "light" || chosen === "dark" || chosen === "outdoor") document.documentElement.dataset.theme = chosen;
else if (window.matchMedia("(prefers-color-scheme: dark)").matches) document.documentElement.dataset.theme = "dark";
// The page's own sign-in form is for the sign-in screen of a device with no session; anything else
// (someone signed in, or a link to another screen) shows "Loading…" until the app draws its screen.
const route = location.hash.replace(/^#/, "") || "/";
if (signedIn || (route !== "/" && route !== "/login")) document.documentElement.dataset.loading = "on";
