// The people a permit or enforcement case names (R-O0), as the site and permit screens show them.
import { h, label } from "../dom.js";

const ROLE_TEXT = { owner: "Owner", violator: "Violator", applicant: "Applicant", contractor: "Contractor" };

// A party's contact details go to supervisors and the inspectors assigned to the site (R-O0).
export const WITHHELD_TEXT = "Contact details are shown to supervisors and the inspectors assigned to this site.";

function contact(p) {
  if (p.contact_withheld) return h("p.muted", { "data-test": "contact-withheld" }, WITHHELD_TEXT);
  const bits = [p.mailing_address, p.email, p.phone].filter(Boolean);
  return bits.length ? h("p.muted", bits.join(" · ")) : null;
}

// The people the permit or case names (R-O0), with where orders and notices reach them.
export function partiesCard(permit, className = "section.card") {
  const parties = (permit && permit.parties) || [];
  return h(className, { "data-test": "parties" }, h("h2", "Parties"),
    parties.length ? h("ul.plain", parties.map((p) => h("li.item",
      h("div.split", h("span.label", p.name), h("span.chip.info", ROLE_TEXT[p.role] || label(p.role))),
      contact(p))))
      : h("p.muted", "No parties recorded."));
}
