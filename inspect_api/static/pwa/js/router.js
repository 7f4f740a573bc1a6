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

// Each render gets its own view element inside <main>. A screen still loading when the user moves
// on keeps drawing into its own, now detached, view and can no longer cover the new screen (a slow
// close-out load used to overwrite the application opened after it).
export async function render() {
  const path = currentPath();
  const host = document.getElementById("main");
  const main = document.createElement("div");
  main.className = "view";
  host.replaceChildren(main);
  if (current && current.cleanup) current.cleanup();
  current = null;
  for (const r of routes) {
    const m = r.regex.exec(path);
    if (!m) continue;
    const params = Object.fromEntries(r.names.map((n, i) => [n, decodeURIComponent(m[i + 1])]));
    current = { path };
    const cleanup = await r.screen(main, params);
    if (current && current.path === path && main.isConnected) current.cleanup = typeof cleanup === "function" ? cleanup : null;
    else if (typeof cleanup === "function") cleanup();  // the user already moved on: stop this screen's listeners
    if (main.isConnected) focusMain(host);
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
