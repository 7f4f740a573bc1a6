// The theme chosen on this device, applied before the first paint: index.html loads this file as a plain
// (blocking) script in <head>, because the app's modules run only after the page is parsed and could be
// drawn once in the wrong colours. "Follow the device" (nothing chosen) is resolved here too: dark when the
// device asks for it, else light (no attribute), so the stylesheet holds one dark palette; ui/theme.js
// follows the device's later switches, shows the choice on the Account screen and keeps it (same key).
let chosen = null;
try {
  chosen = localStorage.getItem("inspect-field.theme");
} catch {
  // Storage refused (a locked-down browser): the device's own scheme.
}
if (chosen === "light" || chosen === "dark" || chosen === "outdoor") document.documentElement.dataset.theme = chosen;
else if (window.matchMedia("(prefers-color-scheme: dark)").matches) document.documentElement.dataset.theme = "dark";
