// The theme chosen on this device, applied before the first paint: index.html loads this file as a plain
// (blocking) script in <head>, because the app's modules run only after the page is parsed and could be
// drawn once in the wrong colours. "Follow the device" sets nothing: the stylesheet then follows
// prefers-color-scheme. ui/theme.js shows the choice on the Account screen and keeps it (same key).
try {
  const chosen = localStorage.getItem("inspect-field.theme");
  if (chosen === "light" || chosen === "dark" || chosen === "outdoor") document.documentElement.dataset.theme = chosen;
} catch {
  // Storage refused (a locked-down browser): the device's own scheme.
}
