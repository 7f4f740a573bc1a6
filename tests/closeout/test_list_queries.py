"""Close-out lists load what their records show for the whole page at once (README "Layers", "One
serialiser style"): a list of three runs the same SQL statements as a list of one."""
from __future__ import annotations

from tests.sql_count import list_statements

from .conftest import pdf_bytes


_statements = list_statements


def _same_for_one_and_three(client, url: str, headers, add_one) -> None:
    counts = {}
    for n in (1, 2, 3):
        add_one(n)
        if n != 2:
            counts[n] = _statements(client, url, headers, n)
    assert len(counts[1]) == len(counts[3]), "\n".join(s[:120] for s in counts[3])


def test_bond_list(factory, client, closeout):
    _, sup = factory.as_role("supervisor")

    def add_bond(_n):
        permit = closeout.permit("permit", status="active")
        done, pending = closeout.phase(permit, 1, in_compliance=True), closeout.phase(permit, 2)
        r = client.post("/api/v1/bonds", headers=sup, json={
            "permit_id": permit.id, "form": "surety_bond", "amount": "10000.00", "received_on": "2025-01-06",
            "phases": [{"phase_id": done.id, "amount": "3000"}, {"phase_id": pending.id, "amount": "2000"}]})
        assert r.status_code == 201, r.get_json()
        r = client.post(f"/api/v1/bonds/{r.get_json()['id']}/releases", headers=sup,
                        json={"kind": "partial", "phase_id": done.id})
        assert r.status_code == 201, r.get_json()

    _same_for_one_and_three(client, "/api/v1/bonds", sup, add_bond)


def test_final_report_list(factory, client, closeout):
    applicant, headers = factory.as_role("applicant")

    def add_report(_n):
        permit = closeout.permit("permit", applicant=applicant)
        r = client.post("/api/v1/final-reports", json=closeout.report_body(permit.id), headers=headers)
        assert r.status_code == 201, r.get_json()
        assert closeout.upload(r.get_json()["id"], pdf_bytes(), headers).status_code == 201

    _same_for_one_and_three(client, "/api/v1/final-reports", headers, add_report)


def test_completion_notice_list(factory, client, closeout):
    applicant, headers = factory.as_role("applicant")

    def add_notice(_n):
        r = closeout.notice(closeout.permit("admin", applicant=applicant), headers)
        assert r.status_code == 201, r.get_json()

    _same_for_one_and_three(client, "/api/v1/completion-notices", headers, add_notice)


def test_certificate_list(factory, client, closeout):
    applicant, headers = factory.as_role("applicant")
    _, sup = factory.as_role("supervisor")

    def add_certificate(_n):
        permit = closeout.permit("admin", applicant=applicant)
        closeout.accepted_notice(permit, headers, sup)
        closeout.certificate(permit, sup)

    _same_for_one_and_three(client, "/api/v1/certificates", headers, add_certificate)
