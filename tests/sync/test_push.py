"""POST /sync/push: each mutation alone, idempotent on mutation id and record id, nothing overwritten."""
from __future__ import annotations

import uuid

from sqlalchemy import func, select

from inspect_api.audit import AuditEntry
from inspect_api.entry.models import EntryAuthorization
from inspect_api.extensions import db
from inspect_api.inspections.models import Inspection
from inspect_api.sync.models import SyncConflict, SyncMutation

from .conftest import API, create, edit, entry_data, inspection_data, mid, remove


def _audit_count(record_id: str, action: str) -> int:
    return db.session.scalar(select(func.count()).select_from(AuditEntry).where(
        AuditEntry.record_id == record_id, AuditEntry.action == action))


def test_same_mutation_id_twice_is_a_duplicate_with_the_same_outcome(site):
    tablet = site.tablet()
    mutation = create("entry_authorization", entry_data(site.permit.id))
    first = tablet.push([mutation])[0]
    again = tablet.push([mutation])[0]
    assert first == {"mutation_id": mutation["mutation_id"], "status": "applied", "entity": "entry_authorization",
                     "id": mutation["id"], "version": 1}
    assert again == {**first, "status": "duplicate", "original_status": "applied"}
    assert db.session.scalar(select(func.count()).select_from(EntryAuthorization)) == 1
    assert _audit_count(mutation["id"], "entry_authorization.create") == 1


def test_resent_edit_is_not_applied_twice(site):
    tablet = site.tablet()
    record_id = site.new_entry(tablet)
    change = edit("entry_authorization", record_id, 1, {"notes": "gate code 1234"})
    assert tablet.push([change, change]) == [
        {"mutation_id": change["mutation_id"], "status": "applied", "entity": "entry_authorization",
         "id": record_id, "version": 2},
        {"mutation_id": change["mutation_id"], "status": "duplicate", "original_status": "applied",
         "entity": "entry_authorization", "id": record_id, "version": 2}]
    assert tablet.push([change])[0]["status"] == "duplicate"
    assert db.session.get(EntryAuthorization, record_id).version == 2


def test_same_record_id_under_a_new_mutation_id_is_a_duplicate(site):
    tablet = site.tablet()
    data = entry_data(site.permit.id)
    first = create("entry_authorization", data)
    second = create("entry_authorization", data, record_id=first["id"])
    results = tablet.push([first, second])
    assert [r["status"] for r in results] == ["applied", "duplicate"]
    assert results[1]["version"] == 1 and "original_status" not in results[1]
    assert db.session.scalar(select(func.count()).select_from(EntryAuthorization)) == 1


def test_other_data_under_the_same_record_id_is_a_surfaced_conflict(site, client):
    tablet = site.tablet()
    first = create("entry_authorization", entry_data(site.permit.id))
    other = create("entry_authorization", entry_data(site.permit.id, granted_by_name="Someone Else"),
                   record_id=first["id"])
    applied, conflict = tablet.push([first, other])
    assert applied["status"] == "applied"
    assert conflict["status"] == "conflict" and conflict["error"] == "conflict" and conflict["version"] == 1
    assert conflict["server_record"]["granted_by_name"] == "Pat Owner"
    stored = db.session.get(EntryAuthorization, first["id"])
    assert stored.granted_by_name == "Pat Owner" and stored.version == 1
    body = client.get(f"{API}/sync/conflicts/{conflict['conflict_id']}", headers=tablet.headers).get_json()
    assert body["fields"] == ["granted_by_name"] and body["device_version"]["base_version"] is None
    assert body["server_version"]["version"] == 1 and body["status"] == "open"


def test_stale_base_version_is_a_conflict_carrying_the_server_record(site, client):
    tablet = site.tablet()
    record_id = site.new_entry(tablet)
    assert tablet.push([edit("entry_authorization", record_id, 1, {"notes": "first"})])[0]["version"] == 2
    stale = edit("entry_authorization", record_id, 1, {"notes": "second", "granted_by_name": "Pat Owner"})
    result = tablet.push([stale])[0]
    assert result["status"] == "conflict" and result["error"] == "version_conflict" and result["version"] == 2
    assert result["server_record"]["notes"] == "first" and result["server_record"]["version"] == 2
    assert db.session.get(EntryAuthorization, record_id).notes == "first"
    conflict = db.session.get(SyncConflict, result["conflict_id"])
    assert conflict.fields == ["notes"] and conflict.base_version == 1 and conflict.server_version == 2
    assert conflict.device_data == {"notes": "second", "granted_by_name": "Pat Owner"}
    assert conflict.permit_id == site.permit.id and conflict.device_id == tablet.device_id
    # Resending the stale edit answers the same conflict and raises no second one.
    again = tablet.push([stale])[0]
    assert again["status"] == "duplicate" and again["original_status"] == "conflict"
    assert again["conflict_id"] == result["conflict_id"]
    assert db.session.scalar(select(func.count()).select_from(SyncConflict)) == 1


def test_one_bad_mutation_among_good_ones(site, factory):
    tablet = site.tablet()
    other_permit = factory.permit(status="issued")  # not assigned to this inspector
    good1 = create("entry_authorization", entry_data(site.permit.id))
    invalid = create("entry_authorization", entry_data(site.permit.id, scope=["dancing"]))
    unassigned = create("entry_authorization", entry_data(other_permit.id))
    missing = edit("entry_authorization", str(uuid.uuid4()), 1, {"notes": "x"})
    unknown = create("spaceship", {"name": "x"})
    malformed = {"mutation_id": mid(), "entity": "inspection", "op": "explode"}
    good2 = create("entry_authorization", entry_data(site.permit.id, granted_by_name="Second"))
    results = tablet.push([good1, invalid, unassigned, missing, unknown, malformed, good2])
    assert [r["status"] for r in results] == ["applied", "rejected", "rejected", "rejected", "rejected",
                                              "rejected", "applied"]
    assert results[1]["error"] == "validation_error" and "scope" in results[1]["errors"]
    assert results[2]["error"] == "forbidden" and "not assigned" in results[2]["message"]
    assert results[3]["error"] == "not_found"
    assert results[4]["error"] == "validation_error" and results[4]["errors"] == {"entity": ["Unknown entity."]}
    assert results[5]["error"] == "validation_error" and set(results[5]["errors"]) == {"id", "op"}
    ids = set(db.session.scalars(select(EntryAuthorization.id)))
    assert ids == {good1["id"], good2["id"]}


def test_rejection_is_recorded_and_a_retry_needs_a_new_mutation_id(site):
    tablet = site.tablet()
    entry_id, inspection_id = str(uuid.uuid4()), str(uuid.uuid4())
    too_early = create("inspection", inspection_data(site.permit.id, entry_id), inspection_id)
    rejected = tablet.push([too_early])[0]
    assert rejected["status"] == "rejected" and rejected["error"] == "entry_not_authorized"
    tablet.push([create("entry_authorization", entry_data(site.permit.id), entry_id)])
    again = tablet.push([too_early])[0]
    assert again == {**rejected, "status": "duplicate", "original_status": "rejected"}
    retried = tablet.push([{**too_early, "mutation_id": mid()}])[0]
    assert retried["status"] == "applied" and retried["version"] == 1


def test_entry_authorization_and_inspection_in_one_batch_in_order(site, client):
    tablet = site.tablet()
    entry_id, inspection_id = str(uuid.uuid4()), str(uuid.uuid4())
    batch = [create("entry_authorization", entry_data(site.permit.id), entry_id),
             create("inspection", inspection_data(site.permit.id, entry_id), inspection_id),
             edit("inspection", inspection_id, 1, {"notes": "Silt fence down on the east side."})]
    assert [(r["status"], r["version"]) for r in tablet.push(batch)] == [("applied", 1), ("applied", 1),
                                                                         ("applied", 2)]
    body = client.get(f"{API}/inspections/{inspection_id}", headers=site.headers(site.supervisor)).get_json()
    assert body["entry_authorization_id"] == entry_id and body["notes"] == "Silt fence down on the east side."
    assert body["device_id"] == tablet.device_id and body["version"] == 2


def test_inspection_before_its_authorization_in_a_batch_is_rejected_alone(site):
    tablet = site.tablet()
    entry_id, inspection_id = str(uuid.uuid4()), str(uuid.uuid4())
    batch = [create("inspection", inspection_data(site.permit.id, entry_id), inspection_id),
             create("entry_authorization", entry_data(site.permit.id), entry_id)]
    results = tablet.push(batch)
    assert [r["status"] for r in results] == ["rejected", "applied"]
    assert results[0]["error"] == "entry_not_authorized" and results[0]["message"]
    assert db.session.get(Inspection, inspection_id) is None


def test_delete_makes_a_tombstone_and_stale_delete_conflicts(site):
    tablet = site.tablet()
    entry_id, inspection_id = site.new_entry(tablet), str(uuid.uuid4())
    tablet.push([create("inspection", inspection_data(site.permit.id, entry_id), inspection_id)])
    tablet.sync_down()
    assert inspection_id in tablet.ids("inspection")
    stale = tablet.push([remove("inspection", inspection_id, 7)])[0]
    assert stale["status"] == "conflict" and stale["error"] == "version_conflict"
    unversioned = tablet.push([remove("inspection", inspection_id, None)])[0]
    assert unversioned["status"] == "rejected" and unversioned["errors"] == {
        "base_version": ["Send the version you are deleting."]}
    assert tablet.push([remove("inspection", inspection_id, 1)])[0]["status"] == "applied"
    changes = tablet.sync_down()
    assert [(c["entity"], c["id"], c["op"], c["data"]) for c in changes] == [
        ("inspection", inspection_id, "delete", None)]
    no_delete = tablet.push([remove("entry_authorization", entry_id, 1)])[0]
    assert no_delete["status"] == "rejected" and no_delete["error"] == "delete_not_allowed"


def test_photos_are_not_pushed(site):
    result = site.tablet().push([create("photo", {"permit_id": site.permit.id})])[0]
    assert result["status"] == "rejected" and result["error"] == "not_pushable"
    assert "PUT /photos" in result["message"]


def test_record_referencing_a_photo_not_yet_uploaded_is_accepted(site):
    photo_id = str(uuid.uuid4())
    result = site.tablet().push([create("entry_authorization", entry_data(
        site.permit.id, basis="owner_consent", signature_photo_id=photo_id))])[0]
    assert result["status"] == "applied"
    assert db.session.get(EntryAuthorization, result["id"]).signature_photo_id == photo_id


def test_mutation_id_reused_by_another_user_is_rejected(site, factory):
    mine = create("entry_authorization", entry_data(site.permit.id))
    site.tablet().push([mine])
    other_inspector = factory.user("inspector")
    factory.assign(site.permit, other_inspector)
    reuse = create("entry_authorization", entry_data(site.permit.id), mutation_id=mine["mutation_id"])
    result = site.tablet(other_inspector).push([reuse])[0]
    assert result["status"] == "rejected" and result["error"] == "mutation_id_reused"
    assert db.session.get(EntryAuthorization, reuse["id"]) is None
    assert db.session.get(SyncMutation, mine["mutation_id"]).record_id == mine["id"]


def test_batch_bounded(site, app):
    app.config["SYNC_MAX_BATCH"] = 3
    body = site.tablet().push([create("entry_authorization", entry_data(site.permit.id)) for _ in range(4)],
                              status=413)
    assert body["code"] == 413 and body["error"] == "payload_too_large" and body["status"] == "Request Entity Too Large"
    assert body["errors"] == {"mutations": ["4 sent, at most 3 allowed."]}
    assert db.session.scalar(select(func.count()).select_from(EntryAuthorization)) == 0


def test_push_needs_a_device_and_a_list(site, client):
    response = client.post(f"{API}/sync/push", json={"mutations": "nope"}, headers=site.headers(site.inspector))
    body = response.get_json()
    assert response.status_code == 422 and body["error"] == "validation_error"
    assert set(body["errors"]) == {"device_id", "mutations"}
    assert client.post(f"{API}/sync/push", json={"device_id": "x", "mutations": []}).status_code == 401


def test_applicant_edits_own_draft_permit_inspector_may_not(site, factory):
    draft = factory.permit(applicant=site.applicant)
    base = draft.version
    applicant_tablet = site.tablet(site.applicant)
    result = applicant_tablet.push([edit("permit", draft.id, base, {"description": "Bigger driveway"})])[0]
    assert result["status"] == "applied" and result["version"] == base + 1
    inspector_result = site.tablet().push([edit("permit", draft.id, result["version"], {"description": "No"})])[0]
    assert inspector_result["status"] == "rejected" and inspector_result["error"] in ("forbidden", "not_found")
    db.session.refresh(draft)
    assert draft.description == "Bigger driveway"


def test_applicant_cannot_push_records_of_anothers_permit(site, factory):
    stranger = factory.user("applicant")
    result = site.tablet(stranger).push([create("entry_authorization", entry_data(site.permit.id))])[0]
    assert result["status"] == "rejected" and result["error"] == "not_found"


def test_hidden_record_id_is_not_revealed_by_a_create(site, factory):
    record_id = site.new_entry()
    stranger = factory.user("applicant")
    own = factory.permit(applicant=stranger)
    result = site.tablet(stranger).push([create("entry_authorization", entry_data(own.id), record_id)])[0]
    assert result["status"] == "rejected" and result["error"] == "id_taken"
    assert "server_record" not in result


def test_same_batch_sent_twice_at_once_applies_once(site, app):
    """A retry that races the original request (two connections): one applies, the other answers
    duplicate (PostgreSQL makes the second wait on the outcome row; SQLite serialises writers).
    Two pushes may run at once here, so the race is the claim row's, not the push lane's."""
    import threading

    app.config["SYNC_PUSH_AT_ONCE"] = 2

    tablet = site.tablet()
    batch = [create("entry_authorization", entry_data(site.permit.id)) for _ in range(3)]
    body = {"device_id": tablet.device_id, "mutations": batch}
    db.session.commit()
    answers: list = []

    def send():
        response = app.test_client().post(f"{API}/sync/push", json=body, headers=tablet.headers)
        answers.append((response.status_code, response.get_json()))

    threads = [threading.Thread(target=send) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert [code for code, _ in answers] == [200, 200], answers
    statuses = sorted(tuple(r["status"] for r in body["results"]) for _, body in answers)
    assert statuses == [("applied",) * 3, ("duplicate",) * 3], statuses
    assert db.session.scalar(select(func.count()).select_from(EntryAuthorization)) == 3
    assert all(_audit_count(m["id"], "entry_authorization.create") == 1 for m in batch)


def test_ids_are_answered_as_sent_and_matched_whatever_their_case(site):
    tablet = site.tablet()
    mutation = create("entry_authorization", entry_data(site.permit.id))
    shouted = {**mutation, "mutation_id": mutation["mutation_id"].upper()}
    first = tablet.push([shouted])[0]
    assert first["mutation_id"] == shouted["mutation_id"] and first["status"] == "applied"
    again = tablet.push([mutation])[0]
    assert again["mutation_id"] == mutation["mutation_id"] and again["status"] == "duplicate"
