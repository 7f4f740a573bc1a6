// Starts the app: opens the local database and the saved session, registers the service worker,
// asks for persistent storage, wires routes and the sync triggers.
import { openDb, meta } from "./db.js";
import { currentUser, loadSession, onSessionChange } from "./auth.js";
import { h, mount } from "./dom.js";
import { precacheLater, registerServiceWorker } from "./swclient.js";
import { fallback, go, route, start, currentPath } from "./router.js";
import { homePath, renderNav, watchNav } from "./ui/nav.js";
import { setStorageNote, startSyncBar, STORAGE_AT_RISK } from "./ui/syncbar.js";
import { onSynced, refreshCounts, syncNow, syncState } from "./sync.js";
import { startWatching } from "./geo.js";
import { loginScreen } from "./screens/login.js";
import { sitesScreen } from "./screens/sites.js";
import { dayScreen } from "./screens/day.js";
import { siteScreen } from "./screens/site.js";
import { entryScreen } from "./screens/entry.js";
import { inspectionScreen, startInspectionScreen } from "./screens/inspection.js";
import { sampleScreen } from "./screens/sample.js";
import { applicantScreen, permitScreen } from "./screens/applicant.js";
import { finalReportScreen } from "./screens/applicant_office.js";
import { applicationScreen } from "./screens/application.js";
import { completionScreen } from "./screens/completion.js";
import { requestsScreen } from "./screens/requests.js";
import { costNoticeScreen } from "./screens/costs.js";
import { reviewScreen } from "./screens/review.js";
import { reviewDetailScreen } from "./screens/review_detail.js";
import { issuesScreen } from "./screens/issues.js";
import { closeoutScreen, deadlinesScreen } from "./screens/closeout.js";
import { officeCostsScreen } from "./screens/office_costs.js";
import { officeProgramScreen } from "./screens/office_program.js";
import { applicationsScreen, applicationDetailScreen } from "./screens/applications.js";
import { registerScreen } from "./screens/register.js";
import { partiesScreen, newCaseScreen } from "./screens/office_cases.js";
import { publicReportsScreen, publicReportScreen } from "./screens/office_reports.js";
import { photoScreen } from "./screens/photo.js";
import { accountScreen } from "./screens/account.js";
import { mapScreen } from "./screens/map.js";
import { applyTheme } from "./ui/theme.js";

const SYNC_EVERY_MS = 60 * 1000;
const PULL_EVERY_MS = 5 * 60 * 1000;

// Screens that need a signed-in user send others to the sign-in screen.
function guarded(screen, roles) {
  return async (main, params) => {
    const user = currentUser();
    if (!user) { go("/login"); return null; }
    if (roles && !roles.includes(user.role)) { go(homePath(user)); return null; }
    const cleanup = await screen(main, params);
    if (user.expired && currentPath() !== "/account") {
      main.prepend(h("div.banner.warn", "Your sign-in has ended. ", h("a", { href: "#/login" }, "Sign in again"),
        " to send your work; everything on this device is kept."));
    }
    return cleanup;
  };
}

// A screen about a site starts the location watch as it opens (see geo.js): the first one asks.
function located(screen) {
  return (main, params) => { startWatching(); return screen(main, params); };
}

function routes() {
  const field = ["inspector", "supervisor"];
  route("/login", loginScreen);
  route("/register", registerScreen);
  route("/", async () => { go(homePath()); });
  route("/sites", guarded(sitesScreen, field));
  route("/day", guarded(dayScreen, field));
  route("/map", guarded(located(mapScreen), field));
  route("/site/:id", guarded(located(siteScreen), field));
  route("/site/:id/entry", guarded(located(entryScreen), field));
  route("/site/:id/inspection/new", guarded(located(startInspectionScreen), field));
  route("/site/:id/inspection/from/:from", guarded(located(startInspectionScreen), field));
  route("/site/:id/inspection/:iid", guarded(located(inspectionScreen), field));
  route("/site/:id/sample/:sid", guarded(located(sampleScreen), field));
  route("/permits", guarded(applicantScreen, ["applicant"]));
  route("/permit/:id", guarded(permitScreen, ["applicant"]));
  route("/permit/:id/completion", guarded(completionScreen, ["applicant"]));
  route("/permit/:id/final-report", guarded(finalReportScreen, ["applicant"]));
  route("/permit/:id/requests", guarded(requestsScreen, ["applicant"]));
  route("/permit/:id/costs/:cid", guarded(costNoticeScreen, ["applicant"]));
  route("/apply", guarded(located(applicationScreen), ["applicant"]));
  route("/apply/:id", guarded(located(applicationScreen), ["applicant"]));
  route("/review", guarded(reviewScreen, ["supervisor"]));
  route("/review/:id", guarded(reviewDetailScreen, ["supervisor"]));
  route("/applications", guarded(applicationsScreen, ["supervisor"]));
  route("/application/:id", guarded(applicationDetailScreen, ["supervisor"]));
  route("/deadlines", guarded(deadlinesScreen, ["supervisor"]));
  route("/site/:id/parties", guarded(partiesScreen, ["supervisor"]));
  route("/cases/new", guarded(located(newCaseScreen), ["supervisor"]));
  route("/cases/new/report/:reportId", guarded(newCaseScreen, ["supervisor"]));
  route("/public-reports", guarded(publicReportsScreen, ["supervisor"]));
  route("/photo/:id", guarded(photoScreen));
  route("/public-reports/:id", guarded(publicReportScreen, ["supervisor"]));
  route("/closeout/:id", guarded(closeoutScreen, ["supervisor"]));
  route("/closeout/:id/costs/:cid", guarded(officeCostsScreen, ["supervisor"]));
  route("/program", guarded(officeProgramScreen, ["supervisor"]));
  route("/issues", guarded(issuesScreen));
  route("/account", guarded(accountScreen));
  fallback(async (main) => mount(main, h("h1", "Not found"), h("p", h("a", { href: "#/" }, "Go to the start"))));
}

async function requestPersistence() {
  if (!navigator.storage || !navigator.storage.persist) {
    await meta.set("storage_persisted", null);
    setStorageNote("");
    return;
  }
  let persisted = await navigator.storage.persisted();
  if (!persisted) persisted = await navigator.storage.persist();
  await meta.set("storage_persisted", persisted);
  setStorageNote(persisted ? "Storage kept" : STORAGE_AT_RISK);
}

function syncTriggers() {
  window.addEventListener("online", () => syncNow("online"));
  document.addEventListener("visibilitychange", () => { if (!document.hidden) syncNow("visible"); });
  setInterval(async () => {
    if (!currentUser() || !navigator.onLine || document.hidden) return;
    const lastPull = await meta.get("last_pull");
    const stale = !lastPull || Date.now() - new Date(lastPull).getTime() > PULL_EVERY_MS;
    if (syncState().counts.pending || stale) syncNow("timer");
  }, SYNC_EVERY_MS);
}

async function main() {
  applyTheme(); // theme_boot.js already set the colours before the first paint; this also colours the browser's bar
  await openDb();
  await loadSession();
  routes();
  watchNav();
  startSyncBar();
  onSessionChange(() => { renderNav(); refreshCounts(); });
  registerServiceWorker().catch((err) => console.warn("service worker not registered", err));
  onSynced(precacheLater);
  requestPersistence().catch(() => setStorageNote(""));
  syncTriggers();
  await refreshCounts();
  if (!location.hash) location.replace("#" + homePath());
  await start();
  renderNav();
  document.documentElement.dataset.ready = "true";
  if (currentUser()) syncNow("load");
}

main().catch((err) => {
  mount(document.getElementById("main"), h("div.banner.error", "The app could not start: ", String(err.message || err)));
});
