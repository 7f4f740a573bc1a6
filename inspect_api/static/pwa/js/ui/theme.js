// The screen's colours: "Follow the device" (light or dark as the device is set), light, dark, or outdoor
// (high contrast for sun on a tablet). The choice is kept on this device (localStorage, read before the
// first paint by theme_boot.js; it outlives signing out) and applied as data-theme on <html>; every colour
// is a variable per theme in css/app.css. The browser's bar (theme-color) takes the top bar's colour.
import { h } from "../dom.js";

const KEY = "inspect-field.theme";

export const THEMES = [
  { value: "device", label: "Follow the device", hint: "Light or dark, as the device is set." },
  { value: "light", label: "Light" },
  { value: "dark", label: "Dark" },
  { value: "outdoor", label: "Outdoor (high contrast)", hint: "For sun on the screen: black on white, strong borders, larger buttons." },
];
const CHOSEN = new Set(THEMES.map((t) => t.value).filter((v) => v !== "device"));
const deviceDark = window.matchMedia("(prefers-color-scheme: dark)");

export function chosenTheme() {
  try {
    const value = localStorage.getItem(KEY);
    return CHOSEN.has(value) ? value : "device";
  } catch {
    return "device";
  }
}

function paintBrowserBar() {
  const bar = getComputedStyle(document.documentElement).getPropertyValue("--top-bg").trim();
  if (!bar) return;
  for (const meta of document.querySelectorAll('meta[name="theme-color"]')) meta.setAttribute("content", bar);
}

// "Follow the device" is dark when the device is (as theme_boot.js resolves it at start), else light.
export function applyTheme(choice = chosenTheme()) {
  const root = document.documentElement;
  const shown = CHOSEN.has(choice) ? choice : deviceDark.matches ? "dark" : null;
  if (shown) root.dataset.theme = shown;
  else delete root.dataset.theme;
  paintBrowserBar();
}

// When the device switches between light and dark, a screen following it switches, and the browser's bar too.
deviceDark.addEventListener("change", () => applyTheme());

export function chooseTheme(choice) {
  try {
    if (CHOSEN.has(choice)) localStorage.setItem(KEY, choice);
    else localStorage.removeItem(KEY);
  } catch {
    // Not kept (storage refused): applied for this visit only.
  }
  applyTheme(choice);
}

// The Account screen's card: one radio per theme, applied as soon as it is picked.
export function themeCard() {
  const current = chosenTheme();
  const status = h("p.hint", { "aria-live": "polite", "data-test": "theme-status" });
  const choices = THEMES.map(({ value, label, hint }) => h("div",
    h("label.check",
      h("input", { type: "radio", name: "theme", value, checked: value === current, "aria-describedby": hint ? `theme-${value}-hint` : null,
        onchange: () => {
          chooseTheme(value);
          status.textContent = `${label}: kept on this device.`;
        } }),
      label),
    hint ? h("p.hint", { id: `theme-${value}-hint` }, hint) : null));
  return h("section.card", { "data-test": "theme" },
    h("h2", "Screen"),
    h("fieldset.choices", h("legend", "Colours"), choices),
    status);
}
