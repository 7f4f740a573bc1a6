"""Realistic records for the browser tests, made through the app's own factories and services."""
from __future__ import annotations

from dataclasses import dataclass

# A small lot near Fairhaven town hall: site point and limit-of-work polygon (GeoJSON lon/lat order).
SITE = {"lat": 41.6376, "lon": -70.9036}
LIMIT_OF_WORK = {"type": "Polygon", "coordinates": [[
    [-70.9042, 41.6372], [-70.9029, 41.6372], [-70.9029, 41.6381], [-70.9042, 41.6381], [-70.9042, 41.6372]]]}


@dataclass
class People:
    inspector_email: str
    inspector_id: str
    supervisor_email: str
    applicant_email: str
    site_id: str
    site_address: str
    other_site_id: str
    far_site_id: str


def field_day(factory) -> People:
    """An inspector assigned to two sites (one with a polygon), one unassigned permit, a supervisor."""
    from inspect_api.extensions import db
    inspector = factory.user("inspector", name="Ines Ortiz")
    supervisor = factory.user("supervisor", name="Sam Reyes")
    applicant = factory.user("applicant", name="Alex Builder")
    site = factory.permit(applicant, status="issued", disturbed_area_sqft=32000,
                          site={"address": "40 Center Street, Fairhaven, MA 02719", "parcel_id": "20-114",
                                "location": SITE, "limit_of_work": LIMIT_OF_WORK},
                          proposed_use="Four-unit townhouse building", description="Townhouses with parking")
    other = factory.permit(applicant, status="approved", disturbed_area_sqft=9000,
                           site={"address": "12 Fort Street, Fairhaven, MA 02719", "parcel_id": "31-008",
                                 "location": {"lat": 41.6325, "lon": -70.9012}},
                           proposed_use="Single-family dwelling")
    far = factory.permit(applicant, status="under_review", disturbed_area_sqft=45000,
                         site={"address": "300 Sconticut Neck Road, Fairhaven, MA 02719", "parcel_id": "42-201",
                               "location": {"lat": 41.5902, "lon": -70.8801}},
                         proposed_use="Marina expansion", luhppl_kind="marina")
    other.cease_and_desist = True  # an open cease-and-desist order (R-O1(a)) on the second site
    factory.assign(site, inspector)
    factory.assign(other, inspector)
    people = People(inspector.email, inspector.id, supervisor.email, applicant.email, site.id,
                    "40 Center Street, Fairhaven, MA 02719", other.id, far.id)
    db.session.commit()
    db.session.close()
    return people


@dataclass
class Office:
    supervisor_email: str
    supervisor_headers: dict
    site_id: str
    site_number: str
    applicant_email: str


def office_and_active_site(factory) -> Office:
    """A supervisor and one active permit at SITE (40 Center Street), committed: what a resident's
    report about that site is triaged against."""
    from inspect_api.extensions import db
    supervisor, headers = factory.as_role("supervisor")
    applicant = factory.user("applicant", name="Alex Builder")
    site = factory.permit(applicant, status="active", disturbed_area_sqft=32000,
                          site={"address": "40 Center Street, Fairhaven, MA 02719", "location": SITE})
    db.session.commit()
    return Office(supervisor.email, headers, site.id, site.number, applicant.email)
