// The people a permit or enforcement case names (R-O0), as the site and permit screens show them.
import { h, label } from "../dom.js";

const ROLE_TEXT = { owner: "Owner", violator: "Violator", applicant: "Applicant", contractor: "Contractor" };

// The people the permit or case names (R-O0), with where orders and notices reach them.
export function partiesCard(permit, className = "section.card") {
  const parties = (permit && permit.parties) || [];
  return h(className, { "data-test": "parties" }, h("h2", "Parties"),
    parties.length ? h("ul.plain", parties.map((p) => h("li.item",
      h("div.split", h("span.label", p.name), h("span.chip.info", ROLE_TEXT[p.role] || label(p.role))),
      p.mailing_address || p.email ? h("p.muted", [p.mailing_address, p.email].filter(Boolean).join(" · ")) : null)))
      : h("p.muted", "No parties recorded."));
}
