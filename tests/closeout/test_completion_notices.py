"""Completion notices of administrative reviews (R-F1) through the API: filing, idempotent client ids,
versions, visibility, supervisor review (R-F3)."""
import uuid

from inspect_api.audit import AuditEntry
from inspect_api.extensions import db

PHOTO = "6f1c1f7e-4a53-4b5c-9a47-0d7a2c0c1b11"


def test_applicant_files_notice_with_photo(factory, client, closeout):
    applicant, headers = factory.as_role("applicant")
    permit = closeout.permit("admin", applicant=applicant)
    notice_id = str(uuid.uuid4())
    r = closeout.notice(permit, {**headers, "X-Device-Id": "tablet-7"}, id=notice_id,
                        completed_on="2026-04-01", device_created_at="2026-04-02T10:00:00-04:00")
    assert r.status_code == 201, r.get_json()
    body = r.get_json()
    assert body["id"] == notice_id and body["permit_id"] == permit.id and body["status"] == "submitted"
    assert body["photo_ids"] == [PHOTO] and body["photos"] == [{"id": PHOTO, "status": "pending"}]
    assert body["completed_on"] == "2026-04-01" and body["version"] == 1 and body["review"] is None
    assert body["created_by"] == applicant.id and body["device_created_at"] == "2026-04-02T14:00:00+00:00"
    assert db.session.query(AuditEntry).filter_by(record_id=notice_id, action="completion_notice.create").count() == 1


def test_same_id_same_data_is_idempotent_other_data_conflicts(factory, closeout):
    applicant, headers = factory.as_role("applicant")
    permit = closeout.permit("admin", applicant=applicant)
    notice_id = str(uuid.uuid4())
    assert closeout.notice(permit, headers, id=notice_id).status_code == 201
    again = closeout.notice(permit, headers, id=notice_id)
    assert again.status_code == 200 and again.get_json()["id"] == notice_id and again.get_json()["version"] == 1
    other = closeout.notice(permit, headers, id=notice_id, statement="Something else")
    assert other.status_code == 409 and other.get_json()["error"] == "conflict"


def test_one_notice_per_permit(factory, closeout):
    applicant, headers = factory.as_role("applicant")
    permit = closeout.permit("admin", applicant=applicant)
    first = closeout.notice(permit, headers).get_json()
    r = closeout.notice(permit, headers, statement="Second try")
    assert r.status_code == 409 and r.get_json()["error"] == "notice_exists"
    assert r.get_json()["errors"]["existing_id"] == first["id"]


def test_notice_needs_a_photo_and_a_statement(factory, closeout):
    """R-F1: at least one photo."""
    applicant, headers = factory.as_role("applicant")
    permit = closeout.permit("admin", applicant=applicant)
    r = closeout.notice(permit, headers, photo_ids=[])
    assert r.status_code == 422 and "photo_ids" in r.get_json()["errors"]
    r = closeout.notice(permit, headers, statement="")
    assert r.status_code == 422 and "statement" in r.get_json()["errors"]
    r = closeout.notice(permit, headers, photo_ids=["not-a-uuid"])
    assert r.status_code == 422 and r.get_json()["error"] == "validation_error"


def test_a_permit_closes_with_a_final_report_not_a_notice(factory, closeout):
    applicant, headers = factory.as_role("applicant")
    permit = closeout.permit("permit", applicant=applicant)
    r = closeout.notice(permit, headers)
    assert r.status_code == 409 and r.get_json()["error"] == "wrong_closeout_kind"


def test_notice_only_once_work_is_under_way(factory, closeout):
    applicant, headers = factory.as_role("applicant")
    permit = closeout.permit("admin", status="approved", applicant=applicant)
    r = closeout.notice(permit, headers)
    assert r.status_code == 409 and r.get_json()["error"] == "permit_not_active"
    active = closeout.permit("admin", status="active", applicant=applicant)
    assert closeout.notice(active, headers).status_code == 201


def test_roles_and_ownership(factory, client, closeout):
    applicant, headers = factory.as_role("applicant")
    permit = closeout.permit("admin", applicant=applicant)
    notice = closeout.notice(permit, headers).get_json()
    _, stranger = factory.as_role("applicant")
    _, inspector = factory.as_role("inspector")
    _, admin = factory.as_role("admin")
    # someone else's permit or notice: 404, never 403
    r = closeout.notice(permit, stranger)
    assert r.status_code == 404 and r.get_json()["error"] == "not_found"
    assert client.get(f"/api/v1/completion-notices/{notice['id']}", headers=stranger).status_code == 404
    assert client.get(f"/api/v1/completion-notices/{notice['id']}", headers=admin).status_code == 404
    assert client.get("/api/v1/completion-notices", headers=stranger).get_json() == []
    # staff read; inspectors do not file
    r = client.get(f"/api/v1/completion-notices/{notice['id']}", headers=inspector)
    assert r.status_code == 200 and r.get_json()["id"] == notice["id"]
    r = closeout.notice(closeout.permit("admin"), inspector)
    assert r.status_code == 403 and r.get_json()["error"] == "forbidden"
    assert client.get("/api/v1/completion-notices").status_code == 401


def test_list_filters_by_permit(factory, client, closeout):
    applicant, headers = factory.as_role("applicant")
    one, two = closeout.permit("admin", applicant=applicant), closeout.permit("admin", applicant=applicant)
    closeout.notice(one, headers)
    closeout.notice(two, headers)
    r = client.get(f"/api/v1/completion-notices?permit_id={two.id}", headers=headers)
    assert r.status_code == 200 and [n["permit_id"] for n in r.get_json()] == [two.id]
    assert len(client.get("/api/v1/completion-notices", headers=headers).get_json()) == 2


def test_patch_needs_current_version(factory, client, closeout):
    applicant, headers = factory.as_role("applicant")
    notice = closeout.notice(closeout.permit("admin", applicant=applicant), headers).get_json()
    url = f"/api/v1/completion-notices/{notice['id']}"
    r = client.patch(url, json={"statement": "Updated statement"}, headers=headers)
    assert r.status_code == 428 and r.get_json()["error"] == "precondition_required"
    r = client.patch(url, json={"statement": "Updated statement"}, headers={**headers, "If-Match": "1"})
    assert r.status_code == 200 and r.get_json()["statement"] == "Updated statement" and r.get_json()["version"] == 2
    r = client.patch(url, json={"statement": "Stale", "version": 1}, headers=headers)
    assert r.status_code == 409 and r.get_json()["error"] == "version_conflict"
    assert r.get_json()["errors"]["current"]["statement"] == "Updated statement"
    r = client.patch(url, json={"photo_ids": [], "version": 2}, headers=headers)
    assert r.status_code == 422


def test_review_accept_and_return(factory, client, closeout):
    """R-F3: a supervisor accepts, or returns with reasons; a returned notice edited is submitted again."""
    applicant, headers = factory.as_role("applicant")
    supervisor, sup = factory.as_role("supervisor")
    closeout_permit = closeout.permit("admin", applicant=applicant)
    notice = closeout.notice(closeout_permit, headers).get_json()
    review = f"/api/v1/completion-notices/{notice['id']}/review"
    r = client.post(review, json={"decision": "return"}, headers=sup)
    assert r.status_code == 422 and "reasons" in r.get_json()["errors"]
    r = client.post(review, json={"decision": "accept"}, headers=headers)
    assert r.status_code == 403 and r.get_json()["error"] == "forbidden"
    r = client.post(review, json={"decision": "return", "reasons": "Add a photo of the basin outlet."}, headers=sup)
    assert r.status_code == 200 and r.get_json()["status"] == "returned"
    assert r.get_json()["review"]["reasons"] == "Add a photo of the basin outlet."
    assert r.get_json()["review"]["reviewed_by"] == supervisor.id
    # a returned notice cannot be reviewed again until corrected
    assert client.post(review, json={"decision": "accept"}, headers=sup).status_code == 409
    r = client.patch(f"/api/v1/completion-notices/{notice['id']}",
                     json={"photo_ids": [PHOTO, closeout.photo(closeout_permit, headers, notice["id"])],
                           "version": 2}, headers=headers)
    assert r.status_code == 200 and r.get_json()["status"] == "submitted" and len(r.get_json()["photos"]) == 2
    r = client.post(review, json={"decision": "accept"}, headers=sup)
    assert r.status_code == 200 and r.get_json()["status"] == "accepted"
    assert r.get_json()["review"]["decision"] == "accept"
    r = client.patch(f"/api/v1/completion-notices/{notice['id']}", json={"statement": "x", "version": 4},
                     headers=headers)
    assert r.status_code == 409 and r.get_json()["error"] == "record_locked"


def test_uploaded_photo_shows_as_uploaded_and_must_be_of_the_permit(factory, client, closeout):
    from inspect_api.photos.models import Photo
    applicant, headers = factory.as_role("applicant")
    permit, other = closeout.permit("admin", applicant=applicant), closeout.permit("admin", applicant=applicant)
    strangers = closeout.permit("admin")
    photos = []
    for owner in (permit, other, strangers):
        photo = Photo(permit_id=owner.id, sha256="a" * 64, content_type="image/jpeg", bytes=10, width=1, height=1,
                      original_key="k", display_key="k", small_key="k")
        db.session.add(photo)
        photos.append(photo)
    db.session.commit()
    # A photo of the applicant's other permit is a mistake worth naming ...
    r = closeout.notice(permit, headers, photo_ids=[photos[1].id])
    assert r.status_code == 422 and r.get_json()["errors"]["photo_ids"] == [photos[1].id]
    # ... one of a stranger's permit answers exactly like an id nobody uploaded: pending.
    r = closeout.notice(permit, headers, photo_ids=[photos[0].id, photos[2].id, PHOTO])
    assert r.status_code == 201
    assert r.get_json()["photos"] == [{"id": photos[0].id, "status": "uploaded"},
                                      {"id": photos[2].id, "status": "pending"}, {"id": PHOTO, "status": "pending"}]


def test_two_devices_filing_at_once_get_one_notice(factory, closeout, live_server):
    from concurrent.futures import ThreadPoolExecutor

    from inspect_api.completion.models import CompletionNotice
    applicant, headers = factory.as_role("applicant")
    permit = closeout.permit("admin", applicant=applicant)
    permit_id = permit.id
    db.session.commit()
    bodies = [{"id": str(uuid.uuid4()), "permit_id": permit_id, "statement": f"Done, device {n}",
               "photo_ids": [PHOTO]} for n in range(5)]
    with ThreadPoolExecutor(max_workers=5) as pool:
        results = list(pool.map(lambda b: live_server.request("POST", "/api/v1/completion-notices", b, headers),
                                bodies))
    assert sorted(status for status, _ in results) == [201, 409, 409, 409, 409], results
    assert {body["error"] for status, body in results if status == 409} == {"notice_exists"}
    assert db.session.query(CompletionNotice).filter_by(permit_id=permit_id).count() == 1


def test_a_notice_is_accepted_once_one_of_its_photos_has_arrived(factory, client, closeout):
    """R-F1: one pending and one verified photo is evidence enough; a photo still on the device is none."""
    applicant, headers = factory.as_role("applicant")
    _, sup = factory.as_role("supervisor")
    permit = closeout.permit("admin", applicant=applicant)
    notice_id = str(uuid.uuid4())
    verified = closeout.photo(permit, headers, notice_id)
    notice = closeout.notice(permit, headers, id=notice_id, photo_ids=[PHOTO, verified]).get_json()
    assert notice["photos"] == [{"id": PHOTO, "status": "pending"}, {"id": verified, "status": "uploaded"}]
    r = client.post(f"/api/v1/completion-notices/{notice_id}/review", json={"decision": "accept"}, headers=sup)
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["status"] == "accepted" and r.get_json()["review"]["decision"] == "accept"


def test_a_notice_whose_photos_are_all_pending_is_not_accepted(factory, client, closeout):
    """R-F1: refused with the reason, the notice stays submitted; returning it needs no photo."""
    applicant, headers = factory.as_role("applicant")
    _, sup = factory.as_role("supervisor")
    permit = closeout.permit("admin", applicant=applicant)
    notice = closeout.notice(permit, headers, photo_ids=[PHOTO, str(uuid.uuid4())]).get_json()
    review = f"/api/v1/completion-notices/{notice['id']}/review"
    r = client.post(review, json={"decision": "accept"}, headers=sup)
    assert r.status_code == 409, r.get_json()
    body = r.get_json()
    assert body["error"] == "photos_not_received" and body["code"] == 409
    assert "photo" in body["message"] and "R-F1" in body["message"]
    assert body["errors"] == {"photo_ids": ["None of the notice's photos has arrived yet."]}
    assert client.get(f"/api/v1/completion-notices/{notice['id']}", headers=sup).get_json()["status"] == "submitted"
    r = client.post(review, json={"decision": "return", "reasons": "The photos never arrived."}, headers=sup)
    assert r.status_code == 200 and r.get_json()["status"] == "returned"
