"""A party linked to someone else's permit (a contractor, an owner with an account) reads it but files
nothing on it: completion notices, final reports and their documents are filed by the permit's own
applicant or a supervisor (DOMAIN.md "Who uses it")."""
from inspect_api.audit import AuditEntry
from inspect_api.completion.models import CompletionNotice, FinalReport, ReportDocument
from inspect_api.extensions import db
from inspect_api.permits.models import Party

from .conftest import pdf_bytes


def _linked(factory, permit, role: str = "contractor"):
    party_user, headers = factory.as_role("applicant")
    db.session.add(Party(permit_id=permit.id, role=role, name="Dig Co", user_id=party_user.id))
    db.session.commit()
    return party_user, headers


def _refused(r):
    assert r.status_code == 403, r.get_json()
    assert r.get_json()["error"] == "forbidden"


def test_linked_party_reads_but_files_no_completion_notice(factory, client, closeout):
    applicant, own = factory.as_role("applicant")
    permit = closeout.permit("admin", applicant=applicant)
    _party, headers = _linked(factory, permit)
    assert client.get(f"/api/v1/permits/{permit.id}", headers=headers).status_code == 200
    _refused(closeout.notice(permit, headers))
    assert db.session.query(CompletionNotice).count() == 0
    assert db.session.query(AuditEntry).filter_by(action="completion_notice.create").count() == 0
    # The applicant's own notice: the party may read it but not edit it.
    r = closeout.notice(permit, own)
    assert r.status_code == 201, r.get_json()
    notice = r.get_json()
    assert client.get(f"/api/v1/completion-notices/{notice['id']}", headers=headers).status_code == 200
    _refused(client.patch(f"/api/v1/completion-notices/{notice['id']}", json={"statement": "Changed"},
                          headers={**headers, "If-Match": f'"{notice["version"]}"'}))
    db.session.expire_all()
    stored = db.session.get(CompletionNotice, notice["id"])
    assert stored.statement == notice["statement"] and stored.version == notice["version"]


def test_linked_party_files_no_final_report_nor_its_documents(factory, client, closeout):
    applicant, own = factory.as_role("applicant")
    permit = closeout.permit("permit", applicant=applicant)
    _party, headers = _linked(factory, permit, role="owner")
    _refused(client.post("/api/v1/final-reports", json=closeout.report_body(permit.id), headers=headers))
    assert db.session.query(FinalReport).count() == 0
    # The permit's applicant still files theirs (no report_exists left behind by the party).
    r = client.post("/api/v1/final-reports", json=closeout.report_body(permit.id), headers=own)
    assert r.status_code == 201, r.get_json()
    report = r.get_json()
    _refused(closeout.upload(report["id"], pdf_bytes(), headers))
    _refused(client.patch(f"/api/v1/final-reports/{report['id']}", json={"om_statement": "Changed"},
                          headers={**headers, "If-Match": f'"{report["version"]}"'}))
    _refused(client.post(f"/api/v1/final-reports/{report['id']}/submit", headers=headers))
    db.session.expire_all()
    assert db.session.query(ReportDocument).count() == 0
    stored = db.session.get(FinalReport, report["id"])
    assert stored.status == "draft" and stored.version == report["version"]
    assert stored.om_statement == report["om_statement"]
    assert closeout.upload(report["id"], pdf_bytes(), own).status_code == 201
