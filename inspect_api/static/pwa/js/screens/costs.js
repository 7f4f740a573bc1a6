// Applicant: the Town's cost recoveries on their permits (R-O2, R-O3). When an order's deadline passed
// and the Town did the work, the owner and the violator each receive a notice of the costs; each may
// protest in writing within 30 days of their own receipt (day 30 is on time, day 31 is not). Unpaid
// costs carry interest from day 31 and become a lien on the owner's property. Every figure here is
// the office server's (the amount, each protest window's last day, interest, the balance): the app
// computes none of them, so it never disagrees with the Town's statement. Read and protest online.
import { h, mount, field, banner, label, fmtDate, money, confirmAction } from "../dom.js";
import { api, plain } from "../api.js";
import { currentUser } from "../auth.js";
import * as store from "../store.js";
import { NEEDS_CONNECTION, costChip, townToday, ROLE, METHOD, balanceCard, itemsCard, decisionCard } from "../ui/costs.js";

// Which notices the signed-in applicant answers for: one sent to a party that is their account, or
// the owner's notice on their own application (the server decides; this only offers the form).
function mine(notice, permit, user) {
  if (!permit || !user) return false;
  const party = (permit.parties || []).find((p) => p.id === notice.party_id);
  if (party && party.user_id === user.id) return true;
  return notice.role === "owner" && permit.applicant_id === user.id;
}

function protestForm(record, notice, redraw) {
  const text = h("textarea", { rows: 5, name: "protest" });
  const local = h("div", { "aria-live": "polite" });
  const file = async (event) => {
    event.preventDefault();
    const button = event.submitter || event.currentTarget.querySelector("button[type=submit]");
    if (!text.value.trim()) { mount(local, banner("error", "Write why you protest the costs: the Stormwater Authority decides on what you write.")); return; }
    const ok = await confirmAction({ title: "File this protest?", confirm: "File the protest",
      body: [`Your written protest of ${money(record.costs_total)} goes to the Stormwater Authority, which decides it: it may uphold, reduce or cancel the costs.`,
        "A protest is filed once and cannot be changed or withdrawn in the app."] });
    if (!ok) return;
    button.disabled = true;
    try {
      await api(`/api/v1/cost-recoveries/${record.id}/protest`, { method: "POST", body: { recipient_id: notice.id, text: text.value.trim() } });
      await redraw();
    } catch (err) {
      button.disabled = false;
      mount(local, banner("error", err.offline ? NEEDS_CONNECTION : plain(err)));
    }
  };
  return h("form", { onsubmit: file, novalidate: true, dataset: { protestFor: notice.id } },
    field("Your written reason", text, `Protest by ${fmtDate(notice.protest_window_ends)}: what you dispute and why (the amount, the work, the notice).`),
    local, h("div.actions", h("button.primary", { type: "submit" }, "File a protest")));
}

// One recipient's notice: when it was sent and received, the last day to protest, the protest.
function noticeItem(record, n, permit, user, redraw) {
  const today = townToday();
  const yours = mine(n, permit, user);
  const open = yours && n.received_on && !n.protest && !record.decision && n.protest_window_ends && today <= n.protest_window_ends;
  let protest;
  if (n.protest) {
    protest = [h("p", h("strong", `Protest filed ${fmtDate(n.protest.filed_on)}: `), n.protest.text)];
  } else if (!n.sent_on) {
    protest = h("p.muted", "The notice has not been sent yet.");
  } else if (!n.received_on) {
    protest = h("p.muted", "The 30 days to protest start when the notice is received; the office records that day.");
  } else if (open) {
    protest = protestForm(record, n, redraw);
  } else if (yours && record.decision) {
    protest = h("p", { "data-test": "protest-closed" }, "The Stormwater Authority has decided on these costs; further relief is through a court (bylaw §E).");
  } else if (yours) {
    protest = h("p.banner.warn", { "data-test": "protest-closed" },
      `The 30 days to protest ended on ${fmtDate(n.protest_window_ends)}; the Town can no longer take a protest of this notice. `,
      "The costs stand: pay the amount due below, or call the Stormwater office about a payment plan.");
  } else {
    protest = h("p.muted", "Only the person this notice was sent to may protest it.");
  }
  return h("li.item", { dataset: { recipient: n.id } },
    h("div.split", h("span.label", n.name), h("span.chip.info", ROLE[n.role] || label(n.role))),
    h("dl.kv",
      h("dt", "Sent"), h("dd", n.sent_on ? `${fmtDate(n.sent_on)}${n.method ? ` ${METHOD[n.method] || label(n.method).toLowerCase()}` : ""}` : "Not yet"),
      h("dt", "Received"), h("dd", n.received_on ? fmtDate(n.received_on) : "Not recorded yet"),
      h("dt", "Last day to protest"), h("dd", { "data-test": "protest-ends" }, n.protest_window_ends ? fmtDate(n.protest_window_ends) : "30 days after receipt")),
    protest);
}

export async function costNoticeScreen(main, { id, cid }) {
  const back = h("p", h("a.back", { href: `#/permit/${id}` }, "← Back to the permit"));
  const draw = async () => {
    if (!navigator.onLine) { mount(main, back, h("h1", "Town costs"), banner("warn", NEEDS_CONNECTION)); return; }
    let record, st;
    try {
      [record, st] = await Promise.all([api(`/api/v1/cost-recoveries/${cid}`), api(`/api/v1/cost-recoveries/${cid}/statement`)]);
    } catch (err) {
      mount(main, back, h("h1", "Town costs"), banner("error", err.offline ? NEEDS_CONNECTION : plain(err)));
      return;
    }
    const permit = await store.getPermit(id);
    const user = currentUser();
    mount(main, back,
      h("div.split", h("h1", "Town costs"), costChip(record.status)),
      h("p.muted", [(permit && permit.site || {}).address, record.order_number ? `Order ${record.order_number} was not complied with by its deadline, so the Town did the work` : "Work the Town did",
        `completed ${fmtDate(record.abatement_completed_on)}`].filter(Boolean).join(" · ")),
      record.description ? h("p", record.description) : null,
      h("div.grid.two",
        itemsCard(record),
        balanceCard(record, st)),
      decisionCard(record),
      h("section.card", { "data-test": "cost-recipients" }, h("h2", "Notices sent"),
        (record.recipients || []).length ? h("ul.plain", record.recipients.map((n) => noticeItem(record, n, permit, user, draw)))
          : h("p.muted", "No notice sent yet. The Town sends one to the owner and one to the violator.")));
  };
  mount(main, back, h("h1", "Town costs"), h("p.loading", "Loading…"));
  await draw();
}
