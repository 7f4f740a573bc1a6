// Supervisor: the review queue (submitted inspections, oldest first) from the server when online,
// from the device's copy otherwise.
import { h, mount, label, fmtTime, banner, toldNow } from "../dom.js";
import { onSynced } from "../sync.js";
import * as store from "../store.js";
import { api, listAll, plain } from "../api.js";
import { statusChip } from "../ui/status.js";

export async function loadQueue() {
  if (navigator.onLine) {
    try {
      return { list: await listAll("/api/v1/inspections?status=submitted"), live: true };
    } catch (err) {
      if (!err.offline) return { list: [], live: false, error: plain(err) };
    }
  }
  return { list: (await store.allOf("inspection")).filter((i) => i.status === "submitted"), live: false };
}

// The permits the rows name. A fresh device has none until its first pull ends, so the queue
// asks the server for those it lacks (the first sign-in otherwise showed "Site" on every row), and
// draws again when a sync finishes.
async function permitsFor(list, live) {
  const permits = new Map((await store.allPermits()).map((p) => [p.id, p]));
  const missing = [...new Set(list.map((i) => i.permit_id))].filter((id) => id && !permits.has(id));
  if (live && missing.length) {
    const found = await Promise.all(missing.map((id) => api(`/api/v1/permits/${id}`).catch(() => null)));
    for (const p of found) if (p) permits.set(p.id, p);
  }
  return permits;
}

export async function reviewScreen(main) {
  const told = toldNow();  // what the decision just made did, kept above the queue while it redraws
  if (told) told.dataset.test = "told";
  mount(main, h("h1", "Inspections to review"), told, h("p.loading", "Loading…"));
  const draw = async () => {
    const { list, live, error } = await loadQueue();
    const permits = await permitsFor(list, live);
    list.sort((a, b) => String(a.submitted_at || a.started_at).localeCompare(String(b.submitted_at || b.started_at)));
    const rows = list.map((i) => {
      const permit = permits.get(i.permit_id);
      const deficient = ((i.checklist && i.checklist.items) || []).filter((a) => a.answer === "deficient").length;
      return h("li", h("a.row", { href: `#/review/${i.id}`, dataset: { inspection: i.id } },
        h("span.title", (permit && permit.site && permit.site.address) || "Site not on this device yet",
          h("small", `${label(i.kind)} inspection · ${fmtTime(i.started_at)}${permit && permit.number ? ` · ${permit.number}` : ""}`)),
        h("span.meta", deficient ? h("span.chip.bad", `${deficient} deficient`) : h("span.chip.good", "No deficiencies"), statusChip(i.status))));
    });
    mount(main, h("h1", "Inspections to review"), told,
      error ? banner("error", error) : null,
      !live && !error ? banner("info", "Offline: showing the submitted inspections this device holds.") : null,
      rows.length ? h("ul.plain.card", rows) : h("p.card.muted", "Nothing waits for review."));
  };
  await draw();
  return onSynced(draw);
}
