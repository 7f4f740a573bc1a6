// File an application (R-C1) with the determination (R-A, R-B) shown live as the area and flags
// change: computed on the device by the mirror of permits/rules.py, confirmed by POST
// /determinations when online. Saved as a draft through the outbox, so it works offline too. The site's
// point is picked on the map (a pin dragged or placed with a tap) or typed, the two kept in step, and
// its limit of work may be drawn on the same map.
import { h, mount, field, select, uuid, nowIso } from "../dom.js";
import * as store from "../store.js";
import * as outbox from "../outbox.js";
import { api } from "../api.js";
import { bestFix, onFix } from "../geo.js";
import { go } from "../router.js";
import { syncNow } from "../sync.js";
import { determine, LEVEL_TEXT, LUHPPL_KINDS, LUHPPL_LABELS } from "../rules/determination.js";
import { pickLocation } from "../ui/map.js";
import { siteLocation } from "../ui/location.js";

export function permitPayload(f, id, includeCreateOnly = true) {
  const body = {
    site: { address: f.address, parcel_id: f.parcel_id || null, location: { lat: f.lat, lon: f.lon },
      limit_of_work: f.limit_of_work || null },
    owner: { name: f.owner_name, email: f.owner_email || null, phone: f.owner_phone || null },
    disturbed_area_sqft: f.area, drains_to_ms4: f.ms4, drains_to_waters: f.waters, proposed_use: f.use,
    luhppl_kind: f.luhppl || null, luhppl_description: f.luhppl === "other" ? f.luhppl_description || null : null,
    description: f.description || null,
  };
  return includeCreateOnly ? { id, ...body, device_created_at: nowIso() } : body;
}

function levelCard() {
  const level = h("p.level", { "data-test": "level" });
  const why = h("p", { "data-test": "explanation" });
  const source = h("p.hint", { "data-test": "determination-source" });
  return { el: h("section.card.determination", { "aria-live": "polite" }, h("h2", "Review the bylaw requires"), level, why, source), level, why, source };
}

export async function applicationScreen(main, { id } = {}) {
  const existing = id ? await store.getPermit(id) : null;
  const recordId = existing ? existing.id : uuid();
  const site = (existing && existing.site) || {};
  const fix = bestFix();
  const loc = site.location || (fix ? { lat: fix.lat, lon: fix.lon } : { lat: "", lon: "" });
  const input = (name, attrs = {}) => h("input", { name, ...attrs });
  const f = {
    address: input("address", { value: site.address || "", required: true, autocomplete: "street-address" }),
    parcel: input("parcel_id", { value: site.parcel_id || "" }),
    lat: input("lat", { type: "number", step: "0.000001", value: loc.lat }),
    lon: input("lon", { type: "number", step: "0.000001", value: loc.lon }),
    owner: input("owner_name", { value: (existing && existing.owner && existing.owner.name) || "" }),
    email: input("owner_email", { type: "email", value: (existing && existing.owner && existing.owner.email) || "" }),
    phone: input("owner_phone", { type: "tel", value: (existing && existing.owner && existing.owner.phone) || "" }),
    area: input("disturbed_area_sqft", { type: "number", min: "0", step: "1", inputmode: "numeric", value: existing ? existing.disturbed_area_sqft : "" }),
    ms4: input("drains_to_ms4", { type: "checkbox", checked: existing ? existing.drains_to_ms4 : true }),
    waters: input("drains_to_waters", { type: "checkbox", checked: existing ? existing.drains_to_waters : false }),
    use: input("proposed_use", { value: (existing && existing.proposed_use) || "" }),
    luhppl: select([["", "None of these"], ...LUHPPL_KINDS.map((k) => [k, LUHPPL_LABELS[k] || "Other (describe)"])], (existing && existing.luhppl_kind) || ""),
    luhpplText: input("luhppl_description", { value: (existing && existing.luhppl_description) || "" }),
    description: h("textarea", { rows: 3 }, (existing && existing.description) || ""),
  };
  const card = levelCard();
  const message = h("div", { "aria-live": "polite" });
  let serverTimer = null;
  let asked = 0;
  let limitOfWork = site.limit_of_work || null;
  let picker = null;
  let gone = false;

  const values = () => ({ address: f.address.value.trim(), parcel_id: f.parcel.value.trim(), lat: Number(f.lat.value), lon: Number(f.lon.value),
    owner_name: f.owner.value.trim(), owner_email: f.email.value.trim(), owner_phone: f.phone.value.trim(),
    area: f.area.value === "" ? null : Number(f.area.value), ms4: f.ms4.checked, waters: f.waters.checked, use: f.use.value.trim(),
    luhppl: f.luhppl.value || null, luhppl_description: f.luhpplText.value.trim(), description: f.description.value.trim(),
    limit_of_work: limitOfWork });

  function show(result, source) {
    card.level.textContent = LEVEL_TEXT[result.review_level] || result.review_level;
    card.why.textContent = result.explanation;
    card.source.textContent = source;
  }

  function update() {
    const v = values();
    if (v.area === null || Number.isNaN(v.area) || v.area < 0) {
      card.level.textContent = "Enter the disturbed area";
      card.why.textContent = "The review depends on the area of land disturbed and where it drains.";
      card.source.textContent = "";
      return;
    }
    show(determine(v.area, v.ms4, v.waters, v.luhppl, [], v.luhppl_description), "Worked out on this device");
    clearTimeout(serverTimer);
    if (!navigator.onLine) return;
    serverTimer = setTimeout(async () => {
      const mine = ++asked;
      try {
        const body = { disturbed_area_sqft: v.area, drains_to_ms4: v.ms4, drains_to_waters: v.waters, luhppl_kind: v.luhppl, exemptions: [] };
        if (v.luhppl === "other") body.luhppl_description = v.luhppl_description || null;
        const result = await api("/api/v1/determinations", { method: "POST", body });
        if (mine === asked) show(result, "Confirmed by the Town's server");
      } catch { /* the device's answer stands until the server can be asked */ }
    }, 400);
  }
  for (const el of [f.area, f.ms4, f.waters, f.luhppl, f.luhpplText]) el.addEventListener("input", update);

  async function save(event) {
    event.preventDefault();
    const v = values();
    const problems = [];
    if (!v.address) problems.push("Enter the site address.");
    if (!Number.isFinite(v.lat) || !Number.isFinite(v.lon) || f.lat.value === "" || f.lon.value === "") problems.push("Give the site's location (latitude and longitude).");
    if (!v.owner_name) problems.push("Enter the owner's name.");
    if (v.area === null || v.area < 0) problems.push("Enter the disturbed area in square feet.");
    if (!v.use) problems.push("Describe the proposed use.");
    if (v.luhppl === "other" && !v.luhppl_description) problems.push("Describe the higher-pollutant land use.");
    if (problems.length) { mount(message, h("div.banner.error", problems.map((p) => h("p", p)))); return; }
    const det = determine(v.area, v.ms4, v.waters, v.luhppl, [], v.luhppl_description);
    const body = permitPayload(v, recordId, !existing);
    await store.saveLocal("permit", { ...(existing || { status: "draft", number: null, version: null }), ...body, id: recordId,
      review_level: det.review_level, determination: det });
    await outbox.queueMutation("permit", recordId, existing ? { ...body } : body, `Application for ${v.address}`);
    go(`/permit/${recordId}`);
    syncNow("saved");
  }

  // The typed coordinates and the map's pin say the same point: each follows the other.
  const setFields = (p) => { f.lat.value = p.lat.toFixed(6); f.lon.value = p.lon.toFixed(6); };
  const typedPoint = () => {
    const lat = Number(f.lat.value), lon = Number(f.lon.value);
    const ok = f.lat.value !== "" && f.lon.value !== "" && Math.abs(lat) <= 90 && Math.abs(lon) <= 180;
    return ok ? { lat, lon } : null;
  };
  const follow = () => { const p = typedPoint(); if (p && picker) picker.setPoint(p); };
  f.lat.addEventListener("input", follow);
  f.lon.addEventListener("input", follow);
  const locate = h("button.small", { type: "button", onclick: () => { const p = bestFix(); if (p) { setFields(p); follow(); } } }, "Use my location");
  const pickBox = h("div.map-pick", { "data-test": "map-pick" });
  mount(main, h("p", h("a.back", { href: "#/permits" }, "← My permits")), h("h1", existing ? "Edit application" : "New application"),
    h("div.grid.wide-left",
      h("form.card", { onsubmit: save, novalidate: true },
        h("h2", "Site"), field("Address", f.address), h("div.fields.cols3", field("Parcel id", f.parcel), field("Latitude", f.lat), field("Longitude", f.lon)), locate,
        h("h3", "On the map"), pickBox,
        h("h2", "Owner"), field("Owner's name", f.owner), h("div.fields.cols", field("Owner's e-mail", f.email), field("Owner's phone", f.phone)),
        h("h2", "Project"), field("Land disturbed (sq ft)", f.area, "All land cleared, graded or filled by the single project."),
        h("label.check", f.ms4, "Drains to the Town's storm drains (MS4)"), h("label.check", f.waters, "Drains to waters of the Commonwealth"),
        field("Proposed use", f.use), field("Higher-pollutant land use (LUHPPL)", f.luhppl), field("Describe the land use (if other)", f.luhpplText),
        card.el,
        field("Description of the work", f.description), message,
        h("div.actions", h("button.primary", { type: "submit" }, "Save application"), h("a.button", { href: "#/permits" }, "Cancel"))),
      h("aside", h("section.card", h("h2", "How the review is decided"),
        h("p", "Part 3 of the bylaw covers land disturbance of 5,000 sq ft or more that drains to the Town's storm drains or to waters of the Commonwealth."),
        h("ul", h("li", "5,000 to 20,000 sq ft: administrative land disturbance review."), h("li", "More than 20,000 sq ft: land disturbance permit."),
          h("li", "A land use with higher potential pollutant loads: land disturbance permit at any size.")),
        h("p.hint", "Documents (the ESC plan; for a permit also the O&M plan) and exemption claims (bylaw §B) are added on the application's page once it is saved.")))));
  update();
  // The location watch starts as this screen opens, so the first fix usually arrives after it is drawn:
  // it fills the site's coordinates while they are still empty (a typed or saved location stays).
  const stopFix = onFix((p) => {
    if (p && f.lat.value === "" && f.lon.value === "") { setFields(p); follow(); }
  });
  const near = (await store.allPermits()).map(siteLocation).filter(Boolean);
  pickLocation(pickBox, { point: typedPoint(), polygon: limitOfWork, near, label: "Map: the site's point and its limit of work",
    onChange: ({ point, polygon }) => { if (point) setFields(point); limitOfWork = polygon; } })
    .then((p) => { if (gone) p.destroy(); else { picker = p; follow(); } })
    .catch((err) => mount(pickBox, h("p.banner.warn", { "data-test": "map-failed" }, `The map could not be drawn (${err.message || err}): type the latitude and longitude.`)));
  return () => { gone = true; clearTimeout(serverTimer); stopFix(); if (picker) picker.destroy(); };
}
