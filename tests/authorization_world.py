"""The cast and records of the authorization sweep (tests/test_authorization_sweep.py).

Applicant B owns one record of every kind; applicant A owns a permit of their own and must learn
nothing about B's. Everything is made through the API as the role that makes it in real life;
only permit statuses are set directly (factory.permit / force_status), as the other suites do.

B's records sit on two permits because the bylaw closes them differently: `permit` is a land
disturbance permit (final report, R-F2) and carries everything else; `closed_permit` is an
administrative review that closed with a completion notice and a certificate (R-F1, R-F3).
"""
from __future__ import annotations

import hashlib
import io
import uuid
from datetime import datetime, timedelta, timezone

from PIL import Image

from inspect_api.checklists.defaults import DEFAULT_ITEMS
from inspect_api import clock
from inspect_api.extensions import db
from inspect_api.permits import services as permit_services
from inspect_api.photos.tus import encode_metadata

API = "/api/v1"
TUS = {"Tus-Resumable": "1.0.0"}


def small_jpeg() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (32, 24), (90, 140, 60)).save(buffer, "JPEG", quality=80)
    return buffer.getvalue()


def small_pdf() -> bytes:
    from reportlab.pdfgen import canvas
    buffer = io.BytesIO()
    pdf = canvas.Canvas(buffer, invariant=1)
    pdf.drawString(72, 720, "As-built plan")
    pdf.showPage()
    pdf.save()
    return buffer.getvalue()


def iso(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")


class World:
    """Users A, B, an inspector, a supervisor and an admin; `ids` holds B's record ids by kind."""

    def __init__(self, client, factory) -> None:
        self.client, self.f = client, factory
        self.a, self.b = factory.user("applicant"), factory.user("applicant")
        self.inspector, self.supervisor = factory.user("inspector"), factory.user("supervisor")
        self.admin = factory.user("admin")
        self.b_device = f"b-phone-{uuid.uuid4().hex[:8]}"
        self.h = {"a": factory.headers(self.a), "b": factory.headers(self.b, device_id=self.b_device),
                  "i": factory.headers(self.inspector), "s": factory.headers(self.supervisor),
                  "admin": factory.headers(self.admin)}
        self.ids: dict[str, str] = {"user": self.b.id, "inspector": self.inspector.id, "device": self.b_device,
                                    "template_key": "esc", "template_version": "1"}
        self.a_permit = factory.permit(applicant=self.a, status="active")

    # -- plumbing ----------------------------------------------------------------------------------
    def call(self, who: str, method: str, path: str, expect: int = 201, **kwargs) -> dict:
        headers = {**self.h[who], **kwargs.pop("headers", {})}
        response = self.client.open(API + path, method=method, headers=headers, **kwargs)
        assert response.status_code == expect, (method, path, response.status_code, response.get_data(as_text=True))
        return response.get_json(silent=True) or {}

    def record(self, kind: str, body: dict) -> str:
        self.ids[kind] = body["id"]
        return body["id"]

    # -- the build ---------------------------------------------------------------------------------
    def build(self) -> "World":
        self._application()
        self._field_work()
        self._enforcement()
        self._closeout()
        self._devices_and_uploads()
        self._public_report()
        return self

    def _application(self) -> None:
        permit = self.f.permit(applicant=self.b, disturbed_area_sqft=30000)
        self.permit = permit
        pid = self.record("permit", {"id": permit.id})
        self.ids["party"] = next(p.id for p in permit.parties if p.role == "owner")   # R-O0
        # An uploaded file (R-C1), so the route that answers its bytes is swept on a real one.
        self.record("permit_document", self.call("b", "POST", f"/permits/{pid}/document-files", data=small_pdf(),
                                                 query_string={"kind": "esc_plan", "filename": "esc-plan.pdf"},
                                                 headers={"Content-Type": "application/pdf"}))
        self.record("exemption", self.call("b", "POST", f"/permits/{pid}/exemptions",
                                           json={"kind": "B2", "statement": "Only a fence along the lot line"}))
        self.record("phase", self.call("b", "POST", f"/permits/{pid}/phases",
                                       json={"name": "Phase 1 - clearing", "bond_amount": "5000.00"}))
        permit_services.force_status(permit, "submitted")
        db.session.commit()
        # A claimed exemption counts in the determination until decided; rejected, the permit is a permit again.
        self.call("s", "POST", f"/permits/{pid}/exemptions/{self.ids['exemption']}/decision", expect=200,
                  json={"decision": "rejected", "reason": "The work is grading, not fencing."})
        self.record("condition", self.call("s", "POST", f"/permits/{pid}/conditions",
                                           json={"text": "Maintain perimeter controls"}))
        permit_services.force_status(permit, "active")
        db.session.commit()
        self.call("s", "POST", f"/permits/{pid}/assignments", json={"inspector_id": self.inspector.id})

    def _field_work(self) -> None:
        pid, now = self.ids["permit"], datetime.now(timezone.utc)
        self.record("entry", self.call("i", "POST", "/entry-authorizations", json={
            "permit_id": pid, "basis": "permit_condition", "granted_by_name": "Condition 12",
            "granted_by_relation": "permit condition", "scope": ["examination", "survey", "sampling"],
            "valid_from": iso(now - timedelta(days=2)), "valid_to": iso(now + timedelta(days=30))}))
        inspection_id, photo = str(uuid.uuid4()), small_jpeg()
        self.record("photo", self.call("i", "PUT", f"/photos/{uuid.uuid4()}", data=photo,
                                       query_string={"permit_id": pid, "parent_type": "inspection",
                                                     "parent_id": inspection_id},
                                       headers={"Content-Type": "image/jpeg",
                                                "X-Content-SHA256": hashlib.sha256(photo).hexdigest()}))
        items = [{"key": item["key"], "answer": "ok"} for item in DEFAULT_ITEMS]
        items[1] = {"key": DEFAULT_ITEMS[1]["key"], "answer": "deficient", "note": "Silt fence down",
                    "photo_ids": [self.ids["photo"]]}
        self.record("inspection", self.call("i", "POST", "/inspections", json={
            "id": inspection_id, "permit_id": pid, "entry_authorization_id": self.ids["entry"], "kind": "routine",
            "started_at": iso(now - timedelta(hours=2)), "checklist": {"template": "esc", "items": items}}))
        submitted = self.call("i", "POST", f"/inspections/{inspection_id}/submit", expect=200, json={})
        self.ids["finding"] = submitted["findings"][0]["id"]
        # The inspector's markup of the photo (a sync entity with no POST of its own), so the photo's
        # annotation routes and everyone's pull are swept on a real one.
        annotation_id = str(uuid.uuid4())
        pushed = self.call("i", "POST", "/sync/push", expect=200, json={
            "device_id": f"i-tablet-{annotation_id[:8]}", "mutations": [{
                "mutation_id": str(uuid.uuid4()), "entity": "photo_annotation", "id": annotation_id, "op": "upsert",
                "base_version": None, "data": {"photo_id": self.ids["photo"], "shapes": [
                    {"kind": "arrow", "points": [[0.1, 0.1], [0.6, 0.5]], "colour": "#ff2a1a"}]}}]})
        assert pushed["results"][0]["status"] == "applied", pushed
        self.ids["photo_annotation"] = annotation_id
        self.record("sample", self.call("i", "POST", "/samples", json={
            "permit_id": pid, "entry_authorization_id": self.ids["entry"], "sampled_at": iso(now - timedelta(hours=1)),
            "sampler": "Dana Field", "outfall_id": "OF-1", "sample_type": "grab", "analysis": "field",
            "parameters": [{"name": "ph", "value": 7.1, "unit": "SU"}]}))
        self.record("inspection_request", self.call("b", "POST", "/inspection-requests", json={
            "permit_id": pid, "kind": "re_inspection", "note": "Silt fence re-installed"}))

    def _enforcement(self) -> None:
        pid, today = self.ids["permit"], clock.today()
        self.record("bond", self.call("s", "POST", "/bonds", json={
            "permit_id": pid, "form": "surety_bond", "amount": "5000.00",
            "phases": [{"phase_id": self.ids["phase"], "amount": "5000.00"}]}))
        self.record("order", self.call("s", "POST", "/orders", json={
            "permit_id": pid, "kinds": ["controls"], "finding_ids": [self.ids["finding"]],
            "requirements": [{"kind": "controls", "text": "Re-install the silt fence"}],
            "issued_on": (today - timedelta(days=80)).isoformat(),
            "deadline": (today - timedelta(days=70)).isoformat()}))
        self._notification()
        recovery = self.call("s", "POST", "/cost-recoveries", json={
            "order_id": self.ids["order"], "abatement_completed_on": (today - timedelta(days=60)).isoformat(),
            "items": [{"category": "labor", "description": "DPW crew", "amount": "720.00"}]})
        self.record("cost_recovery", recovery)
        # Noticed to the owner long enough ago that the unpaid costs are a lien (its certificate prints).
        self.call("s", "PATCH", f"/cost-recoveries/{recovery['id']}", expect=200, json={
            "version": recovery["version"], "recipients": [{
                "role": "owner", "name": "Pat Owner", "method": "certified_mail",
                "sent_on": (today - timedelta(days=58)).isoformat(),
                "received_on": (today - timedelta(days=55)).isoformat()}]})
        self.call("s", "GET", f"/cost-recoveries/{recovery['id']}/lien-certificate.pdf", expect=200)
        noticed = self.call("s", "GET", f"/cost-recoveries/{recovery['id']}", expect=200)
        [kept] = noticed["lien_certificates"]
        self.record("lien_certificate", kept)
        self.record("cost_notice", noticed["recipients"][0])
        self.record("violation", self.call("s", "POST", "/violations", json={
            "permit_id": pid, "provision_kind": "permit_condition", "condition_id": self.ids["condition"],
            "first_observed_on": (today - timedelta(days=15)).isoformat()}))
        self.record("citation", self.call("s", "POST", "/citations", json={
            "violation_id": self.ids["violation"], "violator": {"name": "Acme Site Works LLC"},
            "offense_on": (today - timedelta(days=14)).isoformat(), "bylaw_section": "194-21(C)"}))

    def _notification(self) -> None:
        """A message addressed to B's own account (the order's own go to its parties, not to B)."""
        from inspect_api.enforcement.models import Order
        from inspect_api.notifications import outbox
        order = db.session.get(Order, self.ids["order"])
        [message] = outbox.enqueue("order_issued", order, [outbox.Recipient.from_user(self.b, role="applicant")],
                                   {"order": order, "permit": self.permit, "record_label": "permit",
                                    "role_title": "applicant"}, link=f"#/permit/{self.permit.id}")
        db.session.commit()
        self.ids["notification"] = message.id

    def _closeout(self) -> None:
        permit_services.force_status(self.permit, "work_complete")
        self.permit.work_completed_on = clock.today() - timedelta(days=30)
        closed = self.f.permit(applicant=self.b, status="work_complete", disturbed_area_sqft=12000)
        closed.work_completed_on = clock.today() - timedelta(days=30)
        db.session.commit()
        self.ids["closed_permit"] = closed.id
        report = self.record("report", self.call("b", "POST", "/final-reports", json={
            "permit_id": self.ids["permit"], "om_statement": "Basin inspected quarterly."}))
        self.record("report_document", self.call(
            "b", "POST", f"/final-reports/{report}/documents", data=small_pdf(),
            query_string={"kind": "as_built_plan", "filename": "plan.pdf"},
            headers={"Content-Type": "application/pdf"}))
        notice_id, photo = str(uuid.uuid4()), small_jpeg()
        arrived = self.call("b", "PUT", f"/photos/{uuid.uuid4()}", data=photo,
                            query_string={"permit_id": closed.id, "parent_type": "completion_notice",
                                          "parent_id": notice_id},
                            headers={"Content-Type": "image/jpeg",
                                     "X-Content-SHA256": hashlib.sha256(photo).hexdigest()})["id"]
        # A photo still on its way (pending) is enough to file; the one that arrived lets it be accepted (R-F1).
        notice = self.record("notice", self.call("b", "POST", "/completion-notices", json={
            "id": notice_id, "permit_id": closed.id, "statement": "All permanent controls installed.",
            "photo_ids": [str(uuid.uuid4()), arrived]}))
        self.call("s", "POST", f"/completion-notices/{notice}/review", expect=200, json={"decision": "accept"})
        self.record("certificate", self.call("s", "POST", f"/permits/{closed.id}/certificate", json={}))

    def _devices_and_uploads(self) -> None:
        self.call("b", "GET", "/sync/pull", expect=200)  # registers B's phone as a device
        version = self.call("b", "GET", f"/permits/{self.ids['permit']}", expect=200)["version"]
        result = self.call("b", "POST", "/sync/push", expect=200, json={"device_id": self.b_device, "mutations": [{
            "mutation_id": str(uuid.uuid4()), "entity": "permit", "id": self.ids["permit"], "op": "upsert",
            "base_version": version - 1, "data": {"description": "Edited offline"}}]})["results"][0]
        assert result["status"] == "conflict", result
        self.ids["conflict"] = result["conflict_id"]
        data = small_jpeg()
        meta = {"photo_id": str(uuid.uuid4()), "permit_id": self.ids["permit"],
                "sha256": hashlib.sha256(data).hexdigest(), "content_type": "image/jpeg"}
        upload = self.call("b", "POST", "/uploads", headers={**TUS, "Upload-Length": str(len(data)),
                                                             "Upload-Metadata": encode_metadata(meta)})
        self.record("upload", upload)

    def _public_report(self) -> None:
        """A resident's report with a photo, so the office's queue is swept on a real one. It is no one's
        record (only supervisors read it), so it is not among B's (record_ids)."""
        from inspect_api.public.models import PublicReport, PublicReportPhoto
        response = self.client.post(API + "/public/reports", content_type="multipart/form-data", data={
            "description": "Mud running into the street", "address": "1 Main Street",
            "photos": [(io.BytesIO(small_jpeg()), "IMG_0001.JPG")]})
        assert response.status_code == 201, response.get_data(as_text=True)
        report = db.session.query(PublicReport).filter_by(reference=response.get_json()["reference"]).one()
        self.ids["public_report"] = report.id
        self.ids["public_report_photo"] = db.session.query(PublicReportPhoto).filter_by(report_id=report.id).one().id

    # -- what the sweep compares against -----------------------------------------------------------
    def record_ids(self) -> dict[str, str]:
        """B's record ids (no account, device or template keys): what no one but B and staff may see."""
        skip = {"user", "inspector", "device", "template_key", "template_version", "upload", "public_report",
                "public_report_photo"}
        return {kind: value for kind, value in self.ids.items() if kind not in skip}
