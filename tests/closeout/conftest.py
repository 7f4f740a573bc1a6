"""Fixtures for close-out tests: permits at the end of their life, phases, documents and a live server."""
from __future__ import annotations

import io
import json
import threading
import urllib.error
import urllib.request
from datetime import date, timedelta
from decimal import Decimal

import pytest
from werkzeug.serving import make_server

from inspect_api.extensions import db
from inspect_api.clock import today as local_today
from inspect_api.permits.models import PermitPhase
from tests.photos.helpers import jpeg, put_photo

ADMIN_AREA = 12_000   # R-A2: administrative review, closes with a completion notice
PERMIT_AREA = 25_000  # R-A3: land disturbance permit, closes with a final report


def pdf_bytes(text: str = "As-built plan") -> bytes:
    from reportlab.pdfgen import canvas
    buffer = io.BytesIO()
    pdf = canvas.Canvas(buffer, invariant=1)
    pdf.drawString(72, 720, text)
    pdf.showPage()
    pdf.save()
    return buffer.getvalue()


def png_bytes(size: int = 4) -> bytes:
    from PIL import Image
    buffer = io.BytesIO()
    Image.new("RGB", (size, size), (10, 120, 40)).save(buffer, format="PNG")
    return buffer.getvalue()


class Closeout:
    def __init__(self, factory, client) -> None:
        self.f = factory
        self.client = client

    def permit(self, level: str = "admin", status: str = "work_complete", completed_on: date | None = None,
               applicant=None, **overrides):
        area = ADMIN_AREA if level == "admin" else PERMIT_AREA
        permit = self.f.permit(applicant=applicant, status=status, disturbed_area_sqft=area, **overrides)
        assert permit.review_level == ("administrative_review" if level == "admin" else "land_disturbance_permit")
        if status in ("work_complete", "closed"):
            permit.work_completed_on = completed_on or local_today() - timedelta(days=30)
        db.session.commit()
        return permit

    def phase(self, permit, number: int = 1, *, in_compliance: bool | None = None, completed_on: date | None = None):
        """A phase; `in_compliance` True/False records it complete (that way), None leaves it pending."""
        phase = PermitPhase(permit_id=permit.id, number=number, name=f"Phase {number}",
                            bond_amount=Decimal("1000.00"), status="pending", completed_in_compliance=False)
        if in_compliance is not None:
            phase.status, phase.completed_in_compliance = "complete", in_compliance
            phase.completed_on = completed_on or local_today() - timedelta(days=10)
        db.session.add(phase)
        db.session.commit()
        return phase

    def notice(self, permit, headers, **overrides):
        body = {"permit_id": permit.id, "statement": "All permanent controls installed per the approved plan.",
                "photo_ids": ["6f1c1f7e-4a53-4b5c-9a47-0d7a2c0c1b11"], **overrides}
        return self.client.post("/api/v1/completion-notices", json=body, headers=headers)

    def photo(self, permit, headers, notice_id: str | None = None) -> str:
        """A photo that has arrived (its bytes verified against their SHA-256), as the notice's evidence."""
        meta = {"parent_type": "completion_notice", "parent_id": notice_id} if notice_id else {}
        r = put_photo(self.client, headers, permit.id, jpeg(), **meta)
        assert r.status_code == 201, r.get_json()
        return r.get_json()["id"]

    def accepted_notice(self, permit, applicant_headers, supervisor_headers) -> dict:
        """R-F1: a notice is accepted once one of its photos has arrived, so one is uploaded."""
        r = self.notice(permit, applicant_headers, photo_ids=[self.photo(permit, applicant_headers)])
        assert r.status_code == 201, r.get_json()
        r = self.client.post(f"/api/v1/completion-notices/{r.get_json()['id']}/review",
                             json={"decision": "accept"}, headers=supervisor_headers)
        assert r.status_code == 200, r.get_json()
        return r.get_json()

    @staticmethod
    def report_body(permit_id: str | None = None, **overrides) -> dict:
        body = {
            "pls_stamp": {"name": "Lee Surveyor", "license_number": "PLS-41234", "stamp_date": "2026-01-15"},
            "pe_stamp": {"name": "Robin Engineer", "license_number": "PE-50321", "stamp_date": "2026-01-16"},
            "certification": {"substantial_compliance": True, "permanent_erosion_controls": True,
                              "stormwater_facilities": True, "statement": "Built in substantial compliance.",
                              "certified_by": "Robin Engineer, PE"},
            "discrepancies": [{"description": "Swale moved 3 ft east", "location": "Lot 2",
                               "resolution": "Approved field change"}],
            "controls": [{"name": "Infiltration basin", "kind": "structural"},
                         {"name": "Street sweeping schedule", "kind": "non_structural"}],
            "om_statement": "Basin inspected quarterly per the O&M plan; logs attached.",
        }
        if permit_id:
            body["permit_id"] = permit_id
        body.update(overrides)
        return body

    def upload(self, report_id: str, data: bytes, headers, kind: str = "as_built_plan",
               content_type: str = "application/pdf", **extra_headers):
        return self.client.post(f"/api/v1/final-reports/{report_id}/documents?kind={kind}&filename=plan.pdf",
                                data=data, headers={**headers, "Content-Type": content_type, **extra_headers})

    def documents(self, report_id: str, headers) -> None:
        """R-F2: the as-built plan and the O&M documentation, as documents."""
        assert self.upload(report_id, pdf_bytes(), headers).status_code == 201
        assert self.upload(report_id, pdf_bytes("O&M log"), headers, kind="om_documentation").status_code == 201

    def accepted_report(self, permit, applicant_headers, supervisor_headers) -> dict:
        r = self.client.post("/api/v1/final-reports", json=self.report_body(permit.id), headers=applicant_headers)
        assert r.status_code == 201, r.get_json()
        report_id = r.get_json()["id"]
        self.documents(report_id, applicant_headers)
        r = self.client.post(f"/api/v1/final-reports/{report_id}/submit", headers=applicant_headers)
        assert r.status_code == 200, r.get_json()
        r = self.client.post(f"/api/v1/final-reports/{report_id}/review", json={"decision": "accept"},
                             headers=supervisor_headers)
        assert r.status_code == 200, r.get_json()
        return r.get_json()

    def certificate(self, permit, supervisor_headers) -> dict:
        r = self.client.post(f"/api/v1/permits/{permit.id}/certificate", json={}, headers=supervisor_headers)
        assert r.status_code == 201, r.get_json()
        return r.get_json()


@pytest.fixture
def closeout(factory, client):
    return Closeout(factory, client)


class LiveServer:
    """The app served over real HTTP by a threaded server, for requests that must truly run at once."""

    def __init__(self, app) -> None:
        self.server = make_server("127.0.0.1", 0, app, threaded=True)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def request(self, method: str, path: str, body: dict | None, headers: dict) -> tuple[int, dict]:
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.url + path, data=data, method=method,
                                     headers={**headers, "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=60) as response:
                return response.status, json.loads(response.read() or b"{}")
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read() or b"{}")


@pytest.fixture
def live_server(app):
    server = LiveServer(app)
    server.thread.start()
    yield server
    server.server.shutdown()
    server.thread.join(timeout=10)
