"""Enforcement in the app (R-O0, R-O1a): the parties on a site, an enforcement case's status, the
cease-and-desist on the site and why work may not start, as the applicant and the supervisor see them."""
from __future__ import annotations

from datetime import date

from inspect_api.enforcement.models import Order
from inspect_api.enforcement.services import sync_cease_and_desist
from inspect_api.extensions import db
from inspect_api.permits import services as permit_services

from .conftest import PHONE
from .helpers import release_db, sign_in, wait_for_service_worker, wait_synced

NAME = "Nguyễn Văn Đức"


def seed(factory):
    applicant = factory.user("applicant", name="Alex Builder")
    supervisor = factory.user("supervisor", name="Sam Reviewer")
    permit = factory.permit(applicant, status="issued", disturbed_area_sqft=9000,
                            site={"address": "7 Oxford Street, Fairhaven, MA 02719", "parcel_id": "18-033",
                                  "location": {"lat": 41.6402, "lon": -70.8998}})
    from inspect_api.permits.cases import add_party
    add_party(supervisor, permit, {"role": "violator", "name": NAME, "mailing_address": "12 Bridge St, New Bedford"})
    db.session.add(Order(permit_id=permit.id, number="ORD-2026-0001", kinds=["cease_and_desist"],
                         requirements=[{"kind": "cease_and_desist", "text": "Stop"}], finding_ids=[],
                         issued_on=date(2026, 5, 1), deadline=date(2026, 5, 9), status="open", violated=[],
                         recipient_party_ids=[], issued_by=supervisor.id))
    sync_cease_and_desist(permit, supervisor)
    case, _ = permit_services.create_permit(supervisor, factory.permit_payload(
        parties=[{"role": "violator", "name": "Lee Clearing Co."}],
        site={"address": "90 Sconticut Neck Road", "location": {"lat": 41.61, "lon": -70.88}}))
    ids = (applicant.email, supervisor.email, permit.id, case.id)
    db.session.commit()
    db.session.close()
    return ids


def test_cease_and_desist_parties_and_a_case_in_the_app(live_server, new_context, factory):
    applicant_email, supervisor_email, permit_id, case_id = seed(factory)
    release_db()
    page = new_context(PHONE).new_page()
    sign_in(page, live_server.url, applicant_email)
    wait_for_service_worker(page)
    wait_synced(page)
    page.goto(f"{live_server.url}/#/permit/{permit_id}")
    page.locator("[data-test=cease-and-desist]").wait_for()
    assert "cease-and-desist order is open" in page.inner_text("[data-test=commencement-blocked]")
    assert page.get_by_role("button", name="Work has started").count() == 0
    parties = page.inner_text("[data-test=parties]")
    # The violator's address was recorded by the Town: the applicant is told it exists, not what it is (R-O0).
    assert NAME in parties and "Violator" in parties and "12 Bridge St, New Bedford" not in parties
    assert "shown to supervisors and the inspectors assigned" in parties

    office = new_context().new_page()
    sign_in(office, live_server.url, supervisor_email)
    wait_synced(office)
    office.goto(f"{live_server.url}/#/site/{case_id}")
    office.locator("[data-test=status]:has-text('Enforcement case: no application')").wait_for()
    assert "Lee Clearing Co." in office.inner_text("[data-test=parties]")
    office.goto(f"{live_server.url}/#/site/{permit_id}")
    office.locator(f"[data-test=parties]:has-text('{NAME}')").wait_for()
    assert "12 Bridge St, New Bedford" in office.inner_text("[data-test=parties]")
