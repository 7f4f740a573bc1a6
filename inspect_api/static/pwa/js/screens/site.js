// A site: permit summary, level, status, conditions, open findings, entry authorizations and the
// field records made here, with the cease-and-desist warning and the R-E2 check before work starts.
// A map shows the site's point, its limit of work and where the device is (ui/map.js).
import { h, mount, label, fmtDate, fmtTime, toldNow } from "../dom.js";
import * as store from "../store.js";
import { currentUser } from "../auth.js";
import { coverageReason } from "../rules/entry.js";
import { lastInspection } from "../rules/carry.js";
import { levelText } from "../rules/determination.js";
import { bestFix, distanceM, fmtDistance } from "../geo.js";
import { onPulled, onSynced, syncState } from "../sync.js";
import { uuid } from "../dom.js";
import { go } from "../router.js";
import { findingOverdue } from "../rules/town.js";
import { statusChip, pendingChip, ceaseWarning, commencementNotice } from "../ui/status.js";
import { partiesCard } from "../ui/parties.js";
import { readingText } from "../ui/readings.js";
import { checkEntry, canDoFieldWork } from "../ui/fieldwork.js";
import { securityText } from "../ui/office.js";
import { mapFigure, showSitesMap } from "../ui/map.js";

const EA_STATE = { none: "No authorization", other_site: "Other site", not_yet_valid: "Not yet valid", revoked: "Revoked", expired: "Expired" };

function eaRow(ea, permitId) {
  const reason = coverageReason(ea, permitId, "examination", new Date());
  const state = reason && reason !== "scope" ? h("span.chip.bad", EA_STATE[reason]) : h("span.chip.good", "Valid now");
  return h("tr",
    h("td", label(ea.basis), h("br"), h("small.muted", [ea.granted_by_name, ea.granted_by_relation ? label(ea.granted_by_relation).toLowerCase() : null].filter(Boolean).join(", "))),
    h("td", (ea.scope || []).map(label).join(", ")),
    h("td", { title: `${fmtTime(ea.valid_from)} – ${fmtTime(ea.valid_to)}` }, `${fmtDate(ea.valid_from)} – ${ea.valid_to ? fmtDate(ea.valid_to) : "open"}`),
    h("td", state, " ", pendingChip(ea)));
}

function findingRow(f) {
  return h("li.item",
    h("div.split", h("span.label", f.description || label(f.kind)),
      h("span", findingOverdue(f) ? h("span.chip.bad", { "data-test": "overdue" }, "Overdue") : null, " ", h("span.chip.warn", `Due ${fmtDate(f.due_on)}`))),
    f.required_action ? h("p.muted", f.required_action) : null);
}

function recordRow(href, title, sub, record) {
  return h("li", h("a.row", { href },
    h("span.title", title, h("small", sub)),
    h("span.meta", record.status ? statusChip(record.status) : null, pendingChip(record))));
}

export async function siteScreen(main, { id }) {
  let missing = false;
  const told = toldNow();  // what the screen the user came from just did (a draft discarded)
  if (told) told.dataset.test = "told";
  // The map is made once and kept across redraws (a sync redraws the screen): the user's zoom stays.
  const figure = mapFigure({ caption: "Square: the site's point. Outlined area: its limit of work, when one was drawn. " });
  const mapCard = h("section.card.right.map-card", { "data-test": "site-map" }, h("h2", "Map"), figure.figure);
  let siteMap = null;
  let mapAsked = false;
  let gone = false;
  const draw = async () => {
    const permit = await store.getPermit(id);
    missing = !permit;
    if (!permit && syncState().running && syncState().firstSync) {
      // Opened from a link during the first sync: it shows itself when its page lands (onPulled).
      mount(main, h("h1", "Site not on this device yet"), h("p.banner.info", { "data-test": "site-waiting" },
        "The first sync is still receiving records; this site appears here when it arrives."),
        h("p", h("a", { href: "#/sites" }, "Go back to the sites"), "."));
      return;
    }
    if (!permit) {
      mount(main, h("h1", "Site not on this device"), h("p", "Sync while online, or ", h("a", { href: "#/sites" }, "go back to the sites"), "."));
      return;
    }
    const [eas, inspections, samples, findings] = await Promise.all([
      store.recordsFor("entry_authorization", id), store.recordsFor("inspection", id),
      store.recordsFor("sample", id), store.recordsFor("finding", id)]);
    const site = permit.site || {};
    const d = distanceM(bestFix(), site.location);
    const problem = h("div", { "aria-live": "polite" });
    const fieldWork = canDoFieldWork(permit);
    const start = async (activity, path) => {
      const { problem: why } = await checkEntry(id, activity);
      if (why) {
        mount(problem, h("div.banner.error", { "data-test": "entry-problem" }, why, " ",
          h("a", { href: `#/site/${id}/entry` }, "Record an entry authorization")));
        return;
      }
      go(path);
    };
    const open = findings.filter((f) => f.status === "open");
    // The newest submitted or approved visit on this device: its answers can start the next one.
    const last = lastInspection(inspections, id);
    mount(main,
      h("p", h("a.back", { href: "#/sites" }, "← All sites")),
      h("h1", site.address || "Site"),
      told,
      ceaseWarning(permit),
      commencementNotice(permit),
      // One list of cards in reading order (phone and portrait); on a landscape tablet the
      // authorizations and conditions move to a right-hand column.
      h("div.site-grid",
        h("section.card.left",
          h("div.split", h("h2", permit.number || "Application"), h("span", statusChip(permit.status))),
          h("dl.kv",
            h("dt", "Review"), h("dd", levelText(permit) || label(permit.review_level)),
            h("dt", "Owner"), h("dd", (permit.owner && permit.owner.name) || "—"),
            h("dt", "Parcel"), h("dd", site.parcel_id || "—"),
            h("dt", "Disturbed area"), h("dd", `${Number(permit.disturbed_area_sqft || 0).toLocaleString("en-US")} sq ft`),
            h("dt", "Use"), h("dd", permit.proposed_use || "—"),
            securityText(permit) ? [h("dt", "Security"), h("dd", { "data-test": "security-text" }, securityText(permit).replace(/^Security required/, "Required"))] : null,
            d !== null ? h("dt", "Distance") : null, d !== null ? h("dd", fmtDistance(d)) : null),
          fieldWork ? h("div.actions",
            h("button.primary", { type: "button", onclick: () => start("examination", `/site/${id}/inspection/new`) }, "Start inspection"),
            last ? h("button", { type: "button", "data-test": "start-from-last", onclick: () => start("examination", `/site/${id}/inspection/from/${last.id}`) },
              `Start from the last inspection (${label(last.kind)}, ${fmtDate(last.started_at)})`) : null,
            h("button", { type: "button", onclick: () => start("sampling", `/site/${id}/sample/${uuid()}`) }, "Take a sample"),
            h("a.button", { href: `#/site/${id}/entry` }, "Record entry authorization"))
            : h("p.banner.info", "You are not assigned to this site: you can read it, not record field work."),
          problem,
          currentUser().role === "supervisor" ? h("div.actions", { "data-test": "office-links" },
            h("a.button", { href: `#/application/${id}` }, "Application and decision"),
            h("a.button", { href: `#/closeout/${id}` }, "Close-out, bonds and orders"),
            h("a.button", { href: `#/site/${id}/parties` }, "Parties")) : null),
        mapCard,
        h("section.card.right", h("h2", "Entry authorizations"),
          eas.length ? h("table", h("thead", h("tr", h("th", "Basis"), h("th", "Scope"), h("th", "Valid"), h("th", "State"))),
            h("tbody", eas.map((ea) => eaRow(ea, id)))) : h("p.muted", "None recorded. Record one before inspecting or sampling.")),
        h("section.card.left", h("h2", `Open findings (${open.length})`),
          open.length ? h("ul.plain", open.map(findingRow)) : h("p.muted", "No open findings.")),
        partiesCard(permit, "section.card.right"),
        h("section.card.right", h("h2", "Permit conditions"),
          (permit.conditions || []).length ? h("ol", permit.conditions.map((c) => h("li", c.text))) : h("p.muted", "No conditions listed.")),
        h("section.card.left", h("h2", "Inspections"),
          inspections.length ? h("ul.plain", inspections.sort((a, b) => Date.parse(b.started_at) - Date.parse(a.started_at))
            .map((r) => recordRow(`#/site/${id}/inspection/${r.id}`, label(r.kind), fmtTime(r.started_at), r))) : h("p.muted", "None yet.")),
        h("section.card.left", h("h2", "Samples"),
          samples.length ? h("ul.plain", samples.sort((a, b) => Date.parse(b.sampled_at) - Date.parse(a.sampled_at)).map((r) => recordRow(`#/site/${id}/sample/${r.id}`,
            (r.parameters || []).map(readingText).join(", ") || "Sample", fmtTime(r.sampled_at), r)))
            : h("p.muted", "None yet."))));
    if (siteMap) siteMap.setSites([permit]);
    else if (!mapAsked) {
      mapAsked = true;
      showSitesMap(figure.box, { sites: [permit], label: `Map of ${site.address || "the site"}`, hint: figure.hintId })
        .then((made) => { if (gone) made.destroy(); else siteMap = made; }).catch(figure.failed);
    }
  };
  await draw();
  // Pages landing redraw only a site still missing: one the user is reading does not jump under them.
  const stopPulled = onPulled(() => { if (missing) draw(); });
  const stopSynced = onSynced(draw);
  return () => { gone = true; stopPulled(); stopSynced(); if (siteMap) siteMap.destroy(); };
}
