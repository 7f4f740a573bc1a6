// Supervisor: enforcement that reaches people outside the application (R-O0).
// - Parties: owner, violators, applicant, contractor, each with where orders and notices reach them.
// - An enforcement case for land disturbed with no application (status `unpermitted`).
// Office decisions against the server's current record: online only, like the other office screens.
// After each change the device's copy of the permit is refreshed, so the site screen shows it at once.
import { h, mount, field, banner, label, uuid, select, confirmAction, tellNext } from "../dom.js";
import { api, plain } from "../api.js";
import { bestFix } from "../geo.js";
import { go } from "../router.js";
import * as store from "../store.js";
import { statusChip } from "../ui/status.js";
import { refreshPermit } from "../ui/office.js";
import { pickLocation } from "../ui/map.js";
import { siteLocation } from "../ui/location.js";

const NEEDS_CONNECTION = "This needs a connection to the office server. Connect, then open this screen again.";
export const ROLE_WORDS = { owner: "Owner", violator: "Violator", applicant: "Applicant", contractor: "Contractor" };

// ---- parties (R-O0) -----------------------------------------------------------------------------
function partyFields(p = {}, roleDefault = "violator") {
  return {
    role: select(Object.entries(ROLE_WORDS), p.role || roleDefault, { name: "role" }),
    name: h("input", { type: "text", name: "name", value: p.name || "", autocomplete: "off" }),
    address: h("textarea", { rows: 2, name: "mailing_address" }, p.mailing_address || ""),
    email: h("input", { type: "email", name: "email", value: p.email || "", autocomplete: "off" }),
    phone: h("input", { type: "tel", name: "phone", value: p.phone || "", autocomplete: "off" }),
  };
}

function partyBody(f) {
  return { role: f.role.value, name: f.name.value.trim(), mailing_address: f.address.value.trim() || null,
    email: f.email.value.trim() || null, phone: f.phone.value.trim() || null };
}

function partyForm(f, extra, { role = true } = {}) {
  return [role ? h("div.fields.cols", field("Role", f.role), field("Name", f.name)) : field("Name", f.name),
    field("Mailing address", f.address, "Where orders and notices of costs are mailed."),
    h("div.fields.cols", field("E-mail", f.email), field("Phone", f.phone)), extra];
}

function partyItem(permit, party, run) {
  const f = partyFields(party);
  const account = permit.applicant_id ? h("input", { type: "checkbox", name: "linked", checked: party.user_id === permit.applicant_id }) : null;
  const local = h("div", { "aria-live": "polite" });
  const save = (event) => {
    event.preventDefault();
    const body = partyBody(f);
    if (!body.name) { mount(local, banner("error", "Give the party's name.")); return; }
    if (account) body.user_id = account.checked ? permit.applicant_id : (party.user_id === permit.applicant_id ? null : party.user_id);
    run(event.submitter || event.currentTarget.querySelector("button[type=submit]"), async () => {
      await api(`/api/v1/permits/${permit.id}/parties/${party.id}`, { method: "PATCH", body: { ...body, version: party.version } });
      await refreshPermit(permit.id);
    }, local);
  };
  return h("li.item", { dataset: { party: party.id } },
    h("div.split", h("span.label", party.name), h("span.chip.info", ROLE_WORDS[party.role] || label(party.role))),
    h("p.muted", [party.mailing_address, party.email, party.phone].filter(Boolean).join(" · ") || "No address recorded: orders and notices cannot be mailed."),
    party.user_id ? h("p.hint", "Linked to an applicant account: sees this record in the app.") : null,
    h("details", h("summary", `Edit ${party.name}`),
      h("form", { onsubmit: save, novalidate: true }, partyForm(f,
        account ? h("label.check", account, "Linked to the account of this application's applicant (they see this record in the app)") : null),
      local, h("div.actions", h("button.primary", { type: "submit" }, "Save party")))));
}

export async function partiesScreen(main, { id }) {
  const back = h("p", h("a.back", { href: `#/site/${id}` }, "← Site"));
  const message = h("div", { "aria-live": "polite" });
  const draw = async () => {
    if (!navigator.onLine) { mount(main, back, h("h1", "Parties"), banner("warn", NEEDS_CONNECTION)); return; }
    let permit;
    try { permit = await refreshPermit(id); } catch (err) {
      mount(main, back, h("h1", "Parties"), banner("error", err.offline ? NEEDS_CONNECTION : plain(err)));
      return;
    }
    const run = async (button, call, where = message) => {
      button.disabled = true;
      try { await call(); mount(message); await draw(); } catch (err) {
        button.disabled = false;
        mount(where, banner("error", err.offline ? NEEDS_CONNECTION : plain(err)));
      }
    };
    const f = partyFields({}, "violator");
    const local = h("div", { "aria-live": "polite" });
    const add = (event) => {
      event.preventDefault();
      const body = partyBody(f);
      if (!body.name) { mount(local, banner("error", "Give the party's name.")); return; }
      run(event.submitter || event.currentTarget.querySelector("button[type=submit]"), async () => {
        await api(`/api/v1/permits/${id}/parties`, { method: "POST", body });
        await refreshPermit(id);
      }, local);
    };
    mount(main, back, h("div.split", h("h1", `Parties — ${(permit.site || {}).address || permit.number || "Site"}`), statusChip(permit.status)),
      h("p.muted", "Orders go to every violator and owner named here (bylaw §B(3): the violator and the property owner); notices of costs to each."),
      message,
      h("section.card", { "data-test": "party-list" }, h("h2", `Named (${(permit.parties || []).length})`),
        (permit.parties || []).length ? h("ul.plain", permit.parties.map((p) => partyItem(permit, p, run))) : h("p.muted", "No parties recorded.")),
      h("form.card", { onsubmit: add, novalidate: true, "data-test": "party-add" }, h("h2", "Add a party"),
        h("p.hint", "A violator who disturbed the land, a contractor, another owner."),
        partyForm(f), local, h("div.actions", h("button.primary", { type: "submit" }, "Add party"))));
  };
  mount(main, back, h("h1", "Parties"), h("p.loading", "Loading…"));
  await draw();
}

// ---- an enforcement case with no application (R-O0) ---------------------------------------------
// `reportId`: the case is opened from a report from the public, which it starts from (its place and
// what the resident saw) and answers: the report is triaged with it (POST .../triage, open_case).
export async function newCaseScreen(main, { reportId } = {}) {
  const back = h("p", reportId ? h("a.back", { href: `#/public-reports/${reportId}` }, "← The report")
    : h("a.back", { href: "#/sites" }, "← Sites"));
  if (!navigator.onLine) { mount(main, back, h("h1", "Open an enforcement case"), banner("warn", NEEDS_CONNECTION)); return; }
  let report = null;
  if (reportId) {
    try { report = await api(`/api/v1/public-reports/${reportId}`); } catch (err) {
      mount(main, back, h("h1", "Open an enforcement case"), banner("error", err.offline ? NEEDS_CONNECTION : plain(err)));
      return;
    }
  }
  const fix = report && report.location ? report.location : bestFix();
  const f = {
    address: h("input", { type: "text", name: "address", autocomplete: "off", value: report ? report.address || "" : "" }),
    parcel: h("input", { type: "text", name: "parcel_id", autocomplete: "off" }),
    lat: h("input", { type: "text", inputmode: "decimal", name: "lat", value: fix ? fix.lat.toFixed(6) : "" }),
    lon: h("input", { type: "text", inputmode: "decimal", name: "lon", value: fix ? fix.lon.toFixed(6) : "" }),
    area: h("input", { type: "text", inputmode: "numeric", name: "area" }),
    ms4: h("input", { type: "checkbox", name: "ms4" }),
    waters: h("input", { type: "checkbox", name: "waters" }),
    seen: h("textarea", { rows: 3, name: "description" },
      report ? `Reported by the public (${report.reference}): ${report.description}` : ""),
    answer: h("textarea", { rows: 3, name: "answer", maxlength: 4000 }),
    owner: partyFields({}, "owner"),
    violator: partyFields({}, "violator"),
  };
  const message = h("div", { "aria-live": "polite" });
  // The typed coordinates and the map's pin say the same point: each follows the other.
  let picker = null;
  let limitOfWork = null;
  let gone = false;
  const setFields = (p) => { f.lat.value = p.lat.toFixed(6); f.lon.value = p.lon.toFixed(6); };
  const typedPoint = () => {
    const lat = Number(f.lat.value), lon = Number(f.lon.value);
    return f.lat.value !== "" && f.lon.value !== "" && Math.abs(lat) <= 90 && Math.abs(lon) <= 180 ? { lat, lon } : null;
  };
  const follow = () => { const p = typedPoint(); if (p && picker) picker.setPoint(p); };
  f.lat.addEventListener("input", follow);
  f.lon.addEventListener("input", follow);
  const pickBox = h("div.map-pick", { "data-test": "map-pick" });
  const locate = h("button", { type: "button", onclick: () => { const p = bestFix(); if (p) { setFields(p); follow(); } else mount(message, banner("warn", "No location fix yet: type the latitude and longitude.")); } }, "Use my location");
  const open = async (event) => {
    event.preventDefault();
    const problems = [];
    const lat = Number(f.lat.value), lon = Number(f.lon.value);
    if (!f.address.value.trim()) problems.push("Give the site's address.");
    if (f.lat.value === "" || f.lon.value === "" || !Number.isFinite(lat) || !Number.isFinite(lon)) problems.push("Give the site's location (latitude and longitude).");
    if (!f.owner.name.value.trim()) problems.push("Name the property owner.");
    if (!f.violator.name.value.trim()) problems.push("Name the violator: the person who disturbed the land.");
    if (report && !f.answer.value.trim()) problems.push("Write the answer the resident reads.");
    const area = f.area.value.trim() === "" ? 0 : Number(f.area.value.replace(/,/g, ""));
    if (!Number.isFinite(area) || area < 0) problems.push("Give the disturbed area in square feet, or leave it empty.");
    if (problems.length) { mount(message, banner("error", problems.map((p) => h("p", p)))); return; }
    const owner = partyBody(f.owner);
    const violator = { ...partyBody(f.violator), role: "violator" };
    const ok = await confirmAction({ title: "Open an enforcement case?", confirm: "Open the case",
      body: [`${f.address.value.trim()}: a case with no application is opened, naming ${owner.name} as owner and ${violator.name} as violator. Orders, findings, violations and costs can then be recorded on it.`,
        "A case cannot be deleted in the app; an application filed for this site later is linked to it."] });
    if (!ok) return;
    const button = event.submitter || event.currentTarget.querySelector("button[type=submit]");
    button.disabled = true;
    const body = {
      id: uuid(), site: { address: f.address.value.trim(), parcel_id: f.parcel.value.trim() || null, location: { lat, lon },
        limit_of_work: limitOfWork },
      owner: { name: owner.name, email: owner.email, phone: owner.phone, mailing_address: owner.mailing_address },
      parties: [violator], disturbed_area_sqft: area, drains_to_ms4: f.ms4.checked, drains_to_waters: f.waters.checked,
      proposed_use: "Land disturbed without an application", description: f.seen.value.trim() || null };
    try {
      let created;
      if (report) {
        const triaged = await api(`/api/v1/public-reports/${report.id}/triage`, { method: "POST", body: {
          action: "open_case", case: body, answer: f.answer.value.trim(), version: report.version } });
        created = await api(`/api/v1/permits/${triaged.permit.id}`);
        tellNext("ok", `Case ${created.number || ""} opened from report ${report.reference}: a complaint inspection is due there, and the resident is answered.`);
      } else {
        created = await api("/api/v1/permits", { method: "POST", body });
      }
      await store.saveServer("permit", { ...created, _server_version: created.version });
      go(report ? `/public-reports/${report.id}` : `/site/${created.id}`);
    } catch (err) {
      button.disabled = false;
      const details = Object.entries(err.errors || {}).map(([k, v]) => `${label(k.split(".").pop())}: ${[].concat(v).join(" ")}`);
      mount(message, banner("error", err.offline ? NEEDS_CONNECTION : plain(err), details.map((d) => h("p", d))));
    }
  };
  mount(main, back, h("h1", "Open an enforcement case"),
    h("p.muted", "For land disturbed with no application: the case names the owner and the violator, and orders, findings, violations, citations and costs attach to it (R-O0)."),
    h("form.card", { onsubmit: open, novalidate: true, "data-test": "new-case" },
      h("h2", "The site"), field("Site address", f.address), field("Parcel", f.parcel, "Assessor's map and lot, if known."),
      h("div.fields.cols", field("Latitude", f.lat), field("Longitude", f.lon)), h("div.actions", locate),
      h("h3", "On the map"), pickBox,
      field("Land disturbed (sq ft, estimated)", f.area),
      h("label.check", f.ms4, "Drains to the Town's storm drains (MS4)"), h("label.check", f.waters, "Drains to waters of the Commonwealth"),
      field("What was seen", f.seen, "Date, what was disturbed, by whom."),
      h("fieldset", { "data-test": "case-owner" }, h("legend", "Property owner"), partyForm(f.owner, null, { role: false })),
      h("fieldset", { "data-test": "case-violator" }, h("legend", "Violator"), partyForm(f.violator, null, { role: false })),
      report ? field("Answer to the resident", f.answer, "Public: the resident reads it with the reference, and by e-mail if they left one.") : null,
      message, h("div.actions", h("button.primary", { type: "submit" }, "Open the case"))));
  // With no point yet the map frames the sites this device holds: the Town, not the world.
  const near = (await store.allPermits()).map(siteLocation).filter(Boolean);
  pickLocation(pickBox, { point: typedPoint(), near, label: "Map: the site's point and the area disturbed",
    onChange: ({ point, polygon }) => { if (point) setFields(point); limitOfWork = polygon; } })
    .then((p) => { if (gone) p.destroy(); else { picker = p; follow(); } })
    .catch((err) => mount(pickBox, banner("warn", `The map could not be drawn (${err.message || err}): type the latitude and longitude.`)));
  return () => { gone = true; if (picker) picker.destroy(); };
}
