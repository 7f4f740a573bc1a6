// Hash routes (#/site/ID/...): one URL serves the whole app, so the service worker's cached shell
// opens any screen offline.
const routes = [];
let current = null;
let notFound = null;

export function route(pattern, screen) {
  const names = [];
  const regex = new RegExp("^" + pattern.replace(/:(\w+)/g, (_, n) => { names.push(n); return "([^/]+)"; }) + "$");
  routes.push({ regex, names, screen });
}

export function fallback(screen) { notFound = screen; }

export function go(path) {
  if (location.hash === "#" + path) render();
  else location.hash = path;
}

export function currentPath() {
  return location.hash.replace(/^#/, "") || "/";
}

export async function render() {
  const path = currentPath();
  const main = document.getElementById("main");
  if (current && current.cleanup) current.cleanup();
  current = null;
  for (const r of routes) {
    const m = r.regex.exec(path);
    if (!m) continue;
    const params = Object.fromEntries(r.names.map((n, i) => [n, decodeURIComponent(m[i + 1])]));
    current = { path };
    const cleanup = await r.screen(main, params);
    if (current && current.path === path) current.cleanup = typeof cleanup === "function" ? cleanup : null;
    focusMain(main);
    document.dispatchEvent(new CustomEvent("routechange", { detail: { path } }));
    return;
  }
  if (notFound) await notFound(main, { path });
}

function focusMain(main) {
  const heading = main.querySelector("h1");
  document.title = (heading ? heading.textContent + " — " : "") + "Stormwater Field";
  main.focus({ preventScroll: true });
  window.scrollTo(0, 0);
}

export function start() {
  window.addEventListener("hashchange", render);
  return render();
}
