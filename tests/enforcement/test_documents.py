"""The documents the Town hands out, read back from the PDF (R-O1b, R-P2, R-O3) and the one PDF module
they share: a Unicode font shipped in the package, wrapped paragraphs."""
from __future__ import annotations

from datetime import date
from pathlib import Path

from inspect_api import pdf

from ..pdf_support import pdf_text
from .test_cases_and_commencement import open_case
from .test_costs import owner, patch, recovery  # noqa: F401  (recovery: fixture)

NAME = "Nguyễn Văn Đức"


def test_the_pdf_module_prints_a_vietnamese_name_exactly():
    s = pdf.styles()
    data = pdf.render([pdf.p(f"Violator: {NAME}", s.body), pdf.p("x " * 400, s.body)], title="t", subject="s")
    text = pdf_text(data)
    assert f"Violator: {NAME}" in text
    assert data == pdf.render([pdf.p(f"Violator: {NAME}", s.body), pdf.p("x " * 400, s.body)], title="t",
                              subject="s")                              # the same bytes every time
    from pypdf import PdfReader
    import io
    fonts = {str(f.get_object()["/BaseFont"]) for page in PdfReader(io.BytesIO(data)).pages
             for f in page["/Resources"]["/Font"].values()}
    assert fonts and all("DejaVuSans" in f for f in fonts), fonts


def test_the_font_ships_inside_the_package_with_its_licence():
    folder = Path(pdf.__file__).parent / "fonts"
    assert (folder / "DejaVuSans.ttf").stat().st_size > 500_000
    assert (folder / "DejaVuSans-Bold.ttf").is_file()
    assert "Bitstream" in (folder / "LICENSE-DejaVu.txt").read_text()


def test_order_pdf_states_what_a_served_order_needs(client, factory, cast, town_clock):
    """R-O1b, item by item."""
    case = open_case(client, factory, cast, site={"address": "77 Sconticut Neck Rd", "parcel_id": "33-101",
                                                  "location": {"lat": 41.6, "lon": -70.88}})
    r = client.post("/api/v1/orders", json={
        "permit_id": case["id"], "kinds": ["cease_and_desist", "remediation"], "deadline": "2026-05-15",
        "issuer_title": "Stormwater Agent",
        "requirements": [{"kind": "cease_and_desist", "text": "Stop all clearing and grading"},
                         {"kind": "remediation", "text": "Stabilize the cleared slope with erosion control blanket"}],
        "violated": [{"provision_kind": "bylaw", "provision": "§194-21(A): land disturbed without approval"}]},
        headers=cast.sup)
    assert r.status_code == 201, r.get_json()
    order = r.get_json()
    text = pdf_text(client.get(f"/api/v1/orders/{order['id']}.pdf", headers=cast.sup).data)
    expected = [
        f"Enforcement Order {order['number']}", "Enforcement case", case["number"],
        # who issued it: name, title, signature block
        cast.supervisor.name, "Stormwater Agent, Town of Fairhaven, Massachusetts Stormwater Authority",
        # the violator and the owner, with their mailing addresses
        f"Violator {NAME}, 12 Bridge St, New Bedford, MA 02740", "Property owner Ana Souza, 3 Fort St, Fairhaven",
        # the provision violated
        "Bylaw, §194-21(A): land disturbed without approval",
        # each required action with its deadline
        "1 Stop all clearing and grading May 15, 2026",
        "2 Stabilize the cleared slope with erosion control blanket May 15, 2026",
        # what follows if not obeyed
        "the Town of Fairhaven may perform the work itself", "written protest", "30 days of their own receipt",
        "special assessment and a lien on the owner's property", "MGL c.59 §57",
        # penalties
        "not more than $300 for each offence", "each day or part of a day", "each condition violated",
        "MGL c.40 §21D", "injunctive relief",
        # §E
        "This order is final (§E)", "court of competent jurisdiction",
    ]
    for phrase in expected:
        assert phrase in text, phrase


def test_citation_prints_as_a_ticket(client, factory, cast, permit, town_clock):
    r = client.post("/api/v1/violations", json={
        "permit_id": permit.id, "provision_kind": "bylaw", "provision": "194-21(C)",
        "description": "Sediment discharged to the Sconticut Neck Road catch basin",
        "first_observed_on": "2026-05-01"}, headers=cast.sup)
    violation = r.get_json()
    r = client.post("/api/v1/citations", json={
        "violation_id": violation["id"], "violator": {"name": NAME, "address": "12 Bridge St, New Bedford, MA"},
        "offense_on": "2026-05-01", "bylaw_section": "194-21(C)",
        "delivery": {"method": "hand", "delivered_on": "2026-05-04"}}, headers=cast.sup)
    assert r.status_code == 201, r.get_json()
    citation = r.get_json()
    response = client.get(f"/api/v1/citations/{citation['id']}.pdf", headers=cast.app)
    assert response.status_code == 200 and response.mimetype == "application/pdf"
    text = pdf_text(response.data)
    for phrase in (citation["number"], "Citation under MGL c.40 §21D", NAME,
                   "Sediment discharged to the Sconticut Neck Road catch basin", "194-21(C)",
                   "Date of offence May 1, 2026", permit.site_address, f"Fine ${citation['fine_usd']}",
                   # delivered 4 May + 21 days = 25 May 2026
                   "Pay or contest by May 25, 2026", "21 days", "non-criminal hearing", "New Bedford District Court"):
        assert phrase in text, phrase
    assert client.get(f"/api/v1/citations/{citation['id']}.pdf", headers=cast.other).status_code == 404


def test_lien_certificate_once_the_lien_attaches(client, cast, recovery, town_clock):
    url = f"/api/v1/cost-recoveries/{recovery['id']}/lien-certificate.pdf"
    r = client.get(url, headers=cast.sup)
    assert r.status_code == 409 and r.get_json()["error"] == "no_lien"
    record = patch(client, cast, recovery, recipients=[owner("2026-06-01", "2026-06-03")]).get_json()
    town_clock.set(date(2026, 7, 3))                # owner's day 30: not a lien yet
    r = client.get(url, headers=cast.sup)
    assert r.status_code == 409 and r.get_json()["error"] == "no_lien"
    town_clock.set(date(2026, 7, 4))                # the lien attached at the end of 3 July
    r = client.get(url, headers=cast.sup)
    assert r.status_code == 200 and r.mimetype == "application/pdf"
    text = pdf_text(r.data)
    for phrase in ("Lien Certificate", "Notice of special assessment to the Collector", record["order_number"],
                   "Lien attached at the end of July 3, 2026", "Amount of the lien $3,000.00",
                   # 3000.00 x 0.14 / 365 for 4 July = 1.15
                   "Total due on July 4, 2026 $3,001.15", "MGL c.59 §57"):
        assert phrase in text, phrase
    assert client.get(url, headers=cast.app).status_code == 403
