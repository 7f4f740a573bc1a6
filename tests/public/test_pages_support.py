"""What the public pages' tests share (no tests here): a town with a permit of each public kind and
private values planted in it, the checks every page must pass, and the report form sent as a browser
sends it. Import what a module needs (`from .test_pages_support import World, assert_page, ...`)."""
from __future__ import annotations

import io
import re
import uuid
from datetime import UTC, datetime

from inspect_api.extensions import db
from inspect_api.permits import cases
from inspect_api.permits import services as permit_services

FORM = "/public/report"
CENTRE = (41.6376, -70.9036)
PAGES = ("/public/", "/public/map", "/public/report")


def square(lat: float, lon: float, d: float = 0.0004) -> dict:
    ring = [[lon - d, lat - d], [lon + d, lat - d], [lon + d, lat + d], [lon - d, lat + d], [lon - d, lat - d]]
    return {"type": "Polygon", "coordinates": [ring]}


def planted(what: str) -> str:
    return f"Zqx{what}{uuid.uuid4().hex[:8]}"


class World:
    """An issued permit with an open order and every kind of party, a submitted application, a withdrawn
    one and a draft; every private value is a planted string no page may ever show."""

    def __init__(self, client, factory) -> None:
        self.secrets: set[str] = set()
        supervisor, self.sup = factory.as_role("supervisor")
        self.issued = self._permit(factory, "issued", 0, "12 Harbor View Road, Fairhaven, MA 02719")
        self.submitted = self._permit(factory, "submitted", 1, "40 Mill Road, Fairhaven, MA 02719")
        self.withdrawn = self._permit(factory, "submitted", 2, "77 Withdrawn Way, Fairhaven, MA 02719")
        permit_services.force_status(self.withdrawn, "withdrawn")
        self.draft = self._permit(factory, "draft", 3, "99 Hidden Lane, Fairhaven, MA 02719")
        self.issued.submitted_at = datetime(2026, 3, 2, 15, tzinfo=UTC)
        self.issued.decided_at = datetime(2026, 3, 20, 15, tzinfo=UTC)
        for role in ("owner", "violator", "applicant", "contractor"):
            cases.create_party(supervisor, self.issued, self._party(role))
        db.session.commit()
        requirement = planted("Requirement")
        self.secrets.add(requirement)
        r = client.post("/api/v1/orders", headers=self.sup, json={
            "permit_id": self.issued.id, "kinds": ["controls"], "deadline": "2026-05-20",
            "requirements": [{"kind": "controls", "text": requirement}]})
        assert r.status_code == 201, r.get_json()
        db.session.expire_all()

    def _party(self, role: str) -> dict:
        party = {"role": role, "name": planted(f"{role}Name"), "mailing_address": planted(f"{role}Mail"),
                 "email": f"{planted(role).lower()}@secret-mail.example",
                 "phone": "+1 508 555 0199 x" + uuid.uuid4().hex[:3]}
        self.secrets.update(party[key] for key in ("name", "mailing_address", "email", "phone"))
        return party

    def _permit(self, factory, status: str, i: int, address: str):
        lat, lon = round(CENTRE[0] + 0.002 * i, 6), round(CENTRE[1] + 0.0015 * i, 6)
        owner = self._party("owner")
        description, parcel = planted("Description"), planted("Parcel")
        self.secrets.update((description, parcel))
        permit = factory.permit(status=status, site={"address": address, "parcel_id": parcel,
                                                      "location": {"lat": lat, "lon": lon},
                                                      "limit_of_work": square(lat, lon)},
                                owner={k: owner[k] for k in ("name", "email", "phone", "mailing_address")},
                                description=description, proposed_use=planted("Use"))
        self.secrets.add(permit.id)
        return permit


def html(response) -> str:
    assert response.headers["Content-Type"].startswith("text/html"), response.headers["Content-Type"]
    return response.get_data(as_text=True)


def assert_page(response, lang: str, status: int = 200) -> str:
    """A page of the public pages: its status, language, one h1, a skip link to main, the switch to
    the other language and the strict policy."""
    body = html(response)
    assert response.status_code == status, body[:500]
    assert f'<html lang="{lang}">' in body
    assert body.count("<h1") == 1
    assert '<a class="skip" href="#main">' in body and '<main id="main"' in body
    other = "pt" if lang == "en" else "en"
    assert re.search(rf'<a href="[^"]*lang={other}" lang="{other}" hreflang="{other}">', body), "no language switch"
    assert "Town of Fairhaven" in body
    policy = response.headers["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "style-src 'self'" in policy and "'unsafe-inline'" not in policy
    assert response.headers["X-Frame-Options"] == "DENY"
    # No inline script or style: the policy would refuse them.
    assert not re.search(r"<script(?![^>]*\bsrc=)", body) and "<style" not in body and " style=" not in body
    return body


def text_of(body: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", body))


def send(client, language: str = "en", photos=(), **fields):
    data = {"description": "", "address": "", "lat": "", "lon": "", "accuracy_m": "", "observed_at": "",
            "name": "", "email": "", "phone": "", "website": "", **fields}
    if photos:
        data["photos"] = [(io.BytesIO(body), name, "image/jpeg") for name, body in photos]
    return client.post(FORM, data=data, content_type="multipart/form-data", headers={"Accept-Language": language})
