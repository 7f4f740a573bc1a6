// Supervisor: the review queue (submitted inspections, oldest first) from the server when online,
// from the device's copy otherwise.
import { h, mount, label, fmtTime } from "../dom.js";
import * as store from "../store.js";
import { listAll, plain } from "../api.js";
import { statusChip } from "./site.js";

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

export async function reviewScreen(main) {
  mount(main, h("h1", "Review queue"), h("p.loading", "Loading…"));
  const { list, live, error } = await loadQueue();
  const permits = new Map((await store.allPermits()).map((p) => [p.id, p]));
  list.sort((a, b) => String(a.submitted_at || a.started_at).localeCompare(String(b.submitted_at || b.started_at)));
  const rows = list.map((i) => {
    const permit = permits.get(i.permit_id);
    const deficient = ((i.checklist && i.checklist.items) || []).filter((a) => a.answer === "deficient").length;
    return h("li", h("a.row", { href: `#/review/${i.id}`, dataset: { inspection: i.id } },
      h("span.title", (permit && permit.site && permit.site.address) || "Site", h("small", `${label(i.kind)} · ${fmtTime(i.started_at)}`)),
      h("span.meta", deficient ? h("span.chip.bad", `${deficient} deficient`) : h("span.chip.good", "No deficiencies"), statusChip(i.status))));
  });
  mount(main, h("h1", "Review queue"),
    error ? h("div.banner.error", error) : null,
    !live && !error ? h("div.banner.info", "Offline: showing the submitted inspections this device holds.") : null,
    rows.length ? h("ul.plain.card", rows) : h("p.card.muted", "Nothing waits for review."));
}
