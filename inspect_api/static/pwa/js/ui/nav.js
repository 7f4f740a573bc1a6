// Main navigation per role, with the count of sync issues that need the user.
import { h, mount } from "../dom.js";
import { currentUser } from "../auth.js";
import { currentPath } from "../router.js";
import { syncState, onSyncState } from "../sync.js";

const LINKS = {
  inspector: [["#/day", "My day"], ["#/sites", "Sites"], ["#/map", "Map"], ["#/issues", "Sync issues"], ["#/account", "Account"]],
  supervisor: [["#/applications", "Applications"], ["#/review", "Inspections"], ["#/deadlines", "Deadlines"], ["#/program", "Program"], ["#/public-reports", "Public reports"], ["#/sites", "Sites"], ["#/map", "Map"], ["#/issues", "Conflicts"], ["#/account", "Account"]],
  applicant: [["#/permits", "My permits"], ["#/issues", "Sync issues"], ["#/account", "Account"]],
  admin: [["#/account", "Account"]],
};

// The words the navigation gives a screen are the screen's own heading too.
export function navLabel(href, user = currentUser()) {
  const link = (LINKS[user && user.role] || []).find(([h]) => h === href);
  return link ? link[1] : null;
}

export function homePath(user = currentUser()) {
  if (!user) return "/login";
  return { inspector: "/sites", supervisor: "/review", applicant: "/permits" }[user.role] || "/account";
}

export function renderNav() {
  const nav = document.getElementById("nav");
  const user = currentUser();
  if (!user) { mount(nav); return; }
  const path = "#" + currentPath();
  const problems = syncState().counts.problems;
  mount(nav, (LINKS[user.role] || []).map(([href, text]) => {
    const active = path === href || (href !== "#/" && path.startsWith(href + "/"));
    const badge = href === "#/issues" && problems ? h("span.count", { "aria-label": `${problems} to resolve` }, problems) : null;
    return h("a", { href, "aria-current": active ? "page" : null }, text, badge);
  }));
}

export function watchNav() {
  document.addEventListener("routechange", renderNav);
  let last = -1;
  onSyncState((s) => { if (s.counts.problems !== last) { last = s.counts.problems; renderNav(); } });
}
