"""Test factories (indico style): each returns a real record made through the app's own code, with
keyword overrides; `headers(user)` signs a user in and returns the Authorization header."""
from __future__ import annotations

import itertools
from typing import Any

from inspect_api.auth.models import User
from inspect_api.auth.passwords import hash_password
from inspect_api.extensions import db

PASSWORD = "correct horse battery"
# The demo town's accounts sign in with these (inspect_api.demo.build_demo_data takes them).
DEMO_PASSWORDS = {"applicant": "pw-applicant-1", "inspector": "pw-inspector-1", "supervisor": "pw-supervisor-1",
                  "admin": "pw-admin-demo-1"}
_counter = itertools.count(1)
PLAN_TITLES = {"esc_plan": "Erosion and sedimentation control plan", "om_plan": "Operation and maintenance plan"}


class Factory:
    def __init__(self, app, client) -> None:
        self.app = app
        self.client = client
        self._tokens: dict[str, str] = {}

    # users -------------------------------------------------------------------------------------
    def user(self, role: str = "applicant", **overrides: Any) -> User:
        n = next(_counter)
        user = User(email=overrides.pop("email", f"{role}{n}@example.org"), name=overrides.pop("name", f"{role.title()} {n}"),
                    role=role, password_hash=hash_password(overrides.pop("password", PASSWORD)), **overrides)
        db.session.add(user)
        db.session.commit()
        return user

    def login(self, user: User, device_id: str | None = None) -> dict:
        response = self.client.post("/api/v1/auth/login", json={"email": user.email, "password": PASSWORD,
                                                                 **({"device_id": device_id} if device_id else {})})
        assert response.status_code == 200, response.get_json()
        return response.get_json()

    def headers(self, user: User, device_id: str | None = None) -> dict[str, str]:
        key = f"{user.id}:{device_id}"
        if key not in self._tokens:
            self._tokens[key] = self.login(user, device_id)["access_token"]
        return {"Authorization": f"Bearer {self._tokens[key]}"}

    def as_role(self, role: str, **overrides: Any) -> tuple[User, dict[str, str]]:
        user = self.user(role, **overrides)
        return user, self.headers(user)

    # permits -----------------------------------------------------------------------------------
    def permit_payload(self, **overrides: Any) -> dict:
        n = next(_counter)
        body = {
            "site": {"address": f"{n} Main Street, Fairhaven, MA 02719", "parcel_id": f"24-{n:03d}",
                     "location": {"lat": 41.6376, "lon": -70.9036}},
            "owner": {"name": "Pat Owner", "email": "owner@example.org", "phone": "508-555-0100"},
            "disturbed_area_sqft": 12000, "drains_to_ms4": True, "drains_to_waters": False,
            "proposed_use": "single-family dwelling", "luhppl_kind": None, "description": "New house and driveway",
        }
        body.update(overrides)
        return body

    def permit(self, applicant: User | None = None, status: str = "draft", plans: bool = False, **overrides: Any):
        """A permit created through the service layer, then moved to `status` directly (tests of the
        transition rules themselves go through the API). `plans=True` files the plans its decision
        needs (see `plans`)."""
        from inspect_api.permits import services
        applicant = applicant or self.user("applicant")
        permit, _created = services.create_permit(applicant, self.permit_payload(**overrides))
        if plans:
            self.plans(permit)
        if status != "draft":
            services.force_status(permit, status)
        db.session.commit()
        return permit

    def plans(self, permit, kinds: tuple[str, ...] | None = None):
        """R-C1: the plans an approval or permit is decided on, recorded by name (a paper plan delivered
        to the Town) by the permit's applicant: the ESC plan, and the O&M plan too for a land disturbance
        permit (or the `kinds` given)."""
        from inspect_api.permits import parts
        if kinds is None:
            kinds = ("esc_plan", "om_plan") if permit.review_level == "land_disturbance_permit" else ("esc_plan",)
        author = db.session.get(User, permit.applicant_id)
        for kind in kinds:
            parts.add_document(author, permit, {"kind": kind, "filename": f"{kind.replace('_', '-')}.pdf",
                                                "title": f"{PLAN_TITLES.get(kind, kind)} (paper copy)"})
        db.session.commit()
        return permit

    def assign(self, permit, inspector: User):
        from inspect_api.permits import services
        supervisor = db.session.query(User).filter_by(role="supervisor").first() or self.user("supervisor")
        services.assign_inspector(permit, inspector.id, supervisor)
        db.session.commit()
