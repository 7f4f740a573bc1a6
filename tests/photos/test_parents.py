"""Photo parents (issue: evidence integrity): attaching a photo to a record needs the right to edit
that record, on the same permit, and the record must not be locked; the same on the streamed PUT
and on the tus path. A parent not synced yet is allowed, but such a photo is seen only by its
uploader and supervisors until the parent exists. Every photo says who uploaded it."""
from __future__ import annotations

import uuid
from types import SimpleNamespace

import pytest

from inspect_api.extensions import db
from inspect_api.permits import services as permit_services
from inspect_api.photos import parent_rules
from inspect_api.photos.models import Photo
from inspect_api.photos.tus import encode_metadata

from ..field.conftest import Site, answers
from .helpers import jpeg, put_photo, sha

API = "/api/v1"
TUS = {"Tus-Resumable": "1.0.0"}


def tus_photo(client, headers, permit_id, data: bytes, **meta):
    """A photo through the tus path: creation (where the parent is checked first), then one PATCH."""
    photo_id = str(uuid.uuid4())
    fields = {"photo_id": photo_id, "permit_id": permit_id, "sha256": sha(data), "content_type": "image/jpeg",
              **{k: str(v) for k, v in meta.items()}}
    created = client.post(f"{API}/uploads", headers={**headers, **TUS, "Upload-Length": str(len(data)),
                                                      "Upload-Metadata": encode_metadata(fields)})
    if created.status_code != 201:
        return created
    return client.patch(created.headers["Location"], data=data, headers={
        **headers, **TUS, "Content-Type": "application/offset+octet-stream", "Upload-Offset": "0"})


def upload(path, client, headers, permit_id, **meta):
    data = jpeg((48, 36))
    if path == "put":
        return put_photo(client, headers, permit_id, data, **meta)
    return tus_photo(client, headers, permit_id, data, **meta)


CREATED = {"put": 201, "tus": 200}  # tus answers the finishing PATCH with 200 and the photo


@pytest.fixture
def world(factory, client):
    applicant, applicant_h = factory.as_role("applicant", name="Alex Builder")
    supervisor, supervisor_h = factory.as_role("supervisor", name="Sam Reyes")
    inspector, inspector_h = factory.as_role("inspector", name="Ines Ortiz")
    stranger, stranger_h = factory.as_role("inspector", name="Uma Unassigned")
    permit = factory.permit(applicant=applicant, status="active")
    other = factory.permit(applicant=applicant, status="active")
    factory.assign(permit, inspector)
    site = Site(client, factory, permit, applicant, applicant_h, inspector, inspector_h, supervisor, supervisor_h)
    draft = site.inspection_id()
    approved = site.inspection_id()
    assert site.submit(approved).status_code == 200
    assert site.review(approved).status_code == 200
    other_site = Site(client, factory, other, applicant, applicant_h, supervisor, supervisor_h, supervisor,
                      supervisor_h)
    other_draft = other_site.inspection_id()
    return SimpleNamespace(site=site, permit=permit, other=other, draft=draft, approved=approved,
                           other_draft=other_draft, h={"applicant": applicant_h, "supervisor": supervisor_h,
                                                       "inspector": inspector_h, "stranger": stranger_h},
                           users={"applicant": applicant, "inspector": inspector, "supervisor": supervisor})


@pytest.mark.parametrize("path", ["put", "tus"])
@pytest.mark.parametrize("who, parent, expected, error", [
    ("applicant", "approved", 403, "forbidden"),   # the party the evidence is against
    ("applicant", "draft", 403, "forbidden"),
    ("stranger", "draft", 403, "forbidden"),       # an inspector not assigned to the site
    ("inspector", "approved", 409, "record_locked"),
    ("supervisor", "approved", 409, "record_locked"),
    ("inspector", "other_draft", 422, "validation_error"),  # a parent of another permit
    ("inspector", "draft", "created", None),
    ("supervisor", "draft", "created", None),
])
def test_attaching_a_photo_needs_the_right_to_edit_its_parent(client, world, path, who, parent, expected, error):
    before = db.session.query(Photo).count()
    r = upload(path, client, world.h[who], world.permit.id, parent_type="inspection",
               parent_id=getattr(world, parent))
    if expected == "created":
        assert r.status_code == CREATED[path], r.get_json()
        body = r.get_json()
        assert body["parent_id"] == world.draft
        assert body["uploaded_by"] == {"id": world.users[who].id, "name": world.users[who].name}
        return
    assert r.status_code == expected, r.get_json()
    assert r.get_json()["error"] == error
    if expected == 422:
        assert r.get_json()["errors"] == {"parent_id": ["Must be a record of this permit."]}
    db.session.expire_all()
    assert db.session.query(Photo).count() == before  # nothing stored from a refused upload


@pytest.mark.parametrize("path", ["put", "tus"])
def test_a_closed_permit_takes_no_photos(client, world, path):
    permit_services.force_status(world.permit, "closed")
    db.session.commit()
    for who, meta in (("supervisor", {}), ("applicant", {}),
                      ("inspector", {"parent_type": "inspection", "parent_id": world.draft})):
        r = upload(path, client, world.h[who], world.permit.id, **meta)
        assert r.status_code == 409 and r.get_json()["error"] == "record_locked", r.get_json()


def test_tus_checks_the_parent_again_when_the_upload_finishes(client, world):
    """Locked between the first and the last byte: the finished upload is refused and deleted."""
    data = jpeg((40, 30))
    fields = {"photo_id": str(uuid.uuid4()), "permit_id": world.permit.id, "sha256": sha(data),
              "content_type": "image/jpeg", "parent_type": "inspection", "parent_id": world.draft}
    h = world.h["inspector"]
    created = client.post(f"{API}/uploads", headers={**h, **TUS, "Upload-Length": str(len(data)),
                                                      "Upload-Metadata": encode_metadata(fields)})
    assert created.status_code == 201
    assert world.site.submit(world.draft).status_code == 200 and world.site.review(world.draft).status_code == 200
    r = client.patch(created.headers["Location"], data=data, headers={
        **h, **TUS, "Content-Type": "application/offset+octet-stream", "Upload-Offset": "0"})
    assert r.status_code == 409 and r.get_json()["error"] == "record_locked"
    assert client.head(created.headers["Location"], headers={**h, **TUS}).status_code == 404
    assert client.get(f"{API}/photos/{fields['photo_id']}", headers=world.h["supervisor"]).status_code == 404


def test_a_resend_of_a_stored_photo_stays_idempotent_after_its_parent_locks(client, world):
    data = jpeg((44, 33))
    photo_id = str(uuid.uuid4())
    first = put_photo(client, world.h["inspector"], world.permit.id, data, photo_id=photo_id,
                      parent_type="inspection", parent_id=world.draft)
    assert first.status_code == 201
    assert world.site.submit(world.draft).status_code == 200 and world.site.review(world.draft).status_code == 200
    again = put_photo(client, world.h["inspector"], world.permit.id, data, photo_id=photo_id,
                      parent_type="inspection", parent_id=world.draft)
    assert again.status_code == 200 and again.get_json()["id"] == photo_id


@pytest.mark.parametrize("path", ["put", "tus"])
def test_a_pending_parent_shows_the_photo_only_to_its_uploader_and_supervisors(client, world, path):
    """Offline arrival order: the photo comes before its inspection. Until the inspection exists the
    photo is seen by its uploader and supervisors only, and no report holds it."""
    site, inspection_id = world.site, str(uuid.uuid4())
    r = upload(path, client, world.h["inspector"], world.permit.id, parent_type="inspection", parent_id=inspection_id)
    assert r.status_code == CREATED[path], r.get_json()
    photo_id = r.get_json()["id"]
    # another inspector assigned to the site sees nothing of it yet
    colleague, colleague_h = site.factory.as_role("inspector")
    site.factory.assign(world.permit, colleague)

    def seen(headers) -> bool:
        listed = client.get(f"{API}/photos", query_string={"permit_id": world.permit.id}, headers=headers).get_json()
        one = client.get(f"{API}/photos/{photo_id}", headers=headers).status_code
        assert (one == 200) == (photo_id in [p["id"] for p in listed])
        return one == 200

    assert seen(world.h["inspector"]) and seen(world.h["supervisor"])
    assert not seen(colleague_h) and not seen(world.h["applicant"])
    # the inspection arrives (submitted, so the applicant may see it): now the photo counts for everyone
    created = site.inspection(site.entry_id(), id=inspection_id)
    assert created.status_code == 201, created.get_json()
    assert site.submit(inspection_id).status_code == 200
    assert seen(colleague_h) and seen(world.h["applicant"])


def test_a_photo_reaches_other_devices_once_its_parent_arrives(client, world, factory):
    """The photo row does not change when its parent arrives, yet a device that pulled while the photo
    did not count yet receives it on its next pull."""
    site, inspection_id = world.site, str(uuid.uuid4())
    colleague, colleague_h = factory.as_role("inspector")
    factory.assign(world.permit, colleague)
    pull = lambda cursor=None: client.get(f"{API}/sync/pull", query_string={"cursor": cursor} if cursor else {},  # noqa: E731
                                          headers={**colleague_h, "X-Device-Id": "colleague-tablet"}).get_json()
    photo = put_photo(client, world.h["inspector"], world.permit.id, jpeg((36, 24)), parent_type="inspection",
                      parent_id=inspection_id).get_json()
    first = pull()
    assert photo["id"] not in {c["id"] for c in first["changes"]}
    assert site.inspection(site.entry_id(), id=inspection_id).status_code == 201
    later = pull(first["cursor"])
    received = {c["id"]: c for c in later["changes"]}
    assert inspection_id in received and photo["id"] in received
    assert received[photo["id"]]["data"]["uploaded_by"] == {"id": world.users["inspector"].id, "name": "Ines Ortiz"}


def test_a_parent_on_a_permit_the_caller_cannot_see_answers_like_one_not_synced(client, world, factory):
    """Nothing tells an applicant that another permit's record exists; the photo never counts for it."""
    other_applicant, other_h = factory.as_role("applicant")
    theirs = factory.permit(applicant=other_applicant, status="active")
    notice = client.post(f"{API}/completion-notices", headers=other_h, json={
        "permit_id": theirs.id, "statement": "Done.", "photo_ids": [str(uuid.uuid4())]})
    assert notice.status_code == 201, notice.get_json()
    notice_id = notice.get_json()["id"]
    unknown = put_photo(client, world.h["applicant"], world.permit.id, jpeg((30, 20)),
                        parent_type="completion_notice", parent_id=str(uuid.uuid4()))
    foreign = put_photo(client, world.h["applicant"], world.permit.id, jpeg((30, 22)),
                        parent_type="completion_notice", parent_id=notice_id)
    assert (unknown.status_code, foreign.status_code) == (201, 201)
    # the supervisor sees it, but it never counts: no one else does, the other permit's notice lists nothing
    listed = client.get(f"{API}/photos", query_string={"parent_type": "completion_notice", "parent_id": notice_id},
                        headers=other_h).get_json()
    assert listed == []
    inspector_sees = client.get(f"{API}/photos/{foreign.get_json()['id']}", headers=world.h["inspector"])
    assert inspector_sees.status_code == 404


def test_a_photo_from_an_account_without_the_right_never_counts(client, world):
    """Photos stored before the check (an applicant's "inspection photo") stay out of everyone's view but
    their uploader's and the supervisors', and out of the report."""
    good = put_photo(client, world.h["inspector"], world.permit.id, jpeg((50, 40)), parent_type="inspection",
                     parent_id=world.draft).get_json()
    stored = db.session.get(Photo, good["id"])
    forged = Photo(**{c.key: getattr(stored, c.key) for c in Photo.__table__.columns if c.key not in ("id",)})
    forged.id, forged.created_by = str(uuid.uuid4()), world.users["applicant"].id
    db.session.add(forged)
    db.session.commit()
    assert world.site.submit(world.draft).status_code == 200
    listed = client.get(f"{API}/photos", query_string={"parent_id": world.draft, "parent_type": "inspection"},
                        headers=world.h["inspector"]).get_json()
    assert [p["id"] for p in listed] == [good["id"]]
    mine = client.get(f"{API}/photos/{forged.id}", headers=world.h["applicant"])
    assert mine.status_code == 200 and mine.get_json()["uploaded_by"]["name"] == "Alex Builder"
    assert client.get(f"{API}/photos/{forged.id}", headers=world.h["supervisor"]).status_code == 200


# -- the rule as a pure function ---------------------------------------------------------------------
@pytest.mark.parametrize("parent_type", parent_rules.FIELD_PARENTS)
def test_field_records_take_photos_from_assigned_inspectors_and_supervisors(parent_type):
    may = parent_rules.may_attach
    assert may(parent_type, "inspector", assigned=True, owns_permit=False)
    assert not may(parent_type, "inspector", assigned=False, owns_permit=False)
    assert may(parent_type, "supervisor", assigned=False, owns_permit=False)
    assert not may(parent_type, "applicant", assigned=False, owns_permit=True)
    assert not may(parent_type, "admin", assigned=False, owns_permit=False)


def test_a_completion_notice_takes_photos_from_its_applicant_and_supervisors():
    may = parent_rules.may_attach
    assert may("completion_notice", "applicant", assigned=False, owns_permit=True)
    assert not may("completion_notice", "applicant", assigned=False, owns_permit=False)
    assert not may("completion_notice", "inspector", assigned=True, owns_permit=False)
    assert may("completion_notice", "supervisor", assigned=False, owns_permit=False)


def test_locked_parents():
    locked = parent_rules.parent_locked
    assert locked("inspection", status="approved") and not locked("inspection", status="submitted")
    assert not locked("inspection", status="draft") and not locked("inspection", status="returned")
    assert locked("finding", status="closed") and not locked("finding", status="open")
    assert locked("completion_notice", status="accepted") and not locked("completion_notice", status="returned")
    assert locked("entry_authorization", revoked=True) and not locked("entry_authorization")
    assert locked("sample", deleted=True) and not locked("sample")
    assert parent_rules.permit_locked("closed") and not parent_rules.permit_locked("work_complete")


@pytest.mark.parametrize("path", ["put", "tus"])
@pytest.mark.parametrize("who", ["inspector", "supervisor"])
def test_an_approved_inspection_takes_no_photos_through_its_findings(client, world, path, who):
    """A finding of an approved inspection is part of what was approved (R-I5): open as the finding is,
    it takes no new photo, and nothing new reaches the approved record's photos."""
    site = world.site
    iid = site.inspection_id(checklist={"template": "esc", "items": answers({"dust_control": {}})})
    (finding,) = site.submit(iid).get_json()["findings"]
    assert site.review(iid).status_code == 200
    assert client.get(f"{API}/findings/{finding['id']}", headers=world.h["supervisor"]).get_json()["status"] == "open"
    before = db.session.query(Photo).count()
    r = upload(path, client, world.h[who], world.permit.id, parent_type="finding", parent_id=finding["id"])
    assert r.status_code == 409, r.get_json()
    assert r.get_json()["error"] == "record_locked" and "finding is locked" in r.get_json()["message"]
    db.session.expire_all()
    assert db.session.query(Photo).count() == before
    listed = client.get(f"{API}/photos", query_string={"parent_type": "finding", "parent_id": finding["id"]},
                        headers=world.h["supervisor"])
    assert listed.status_code == 200 and listed.get_json() == []


def test_a_finding_of_an_open_inspection_still_takes_photos(client, world):
    iid = world.site.inspection_id(checklist={"template": "esc", "items": answers({"dust_control": {}})})
    (finding,) = world.site.submit(iid).get_json()["findings"]
    r = upload("put", client, world.h["inspector"], world.permit.id, parent_type="finding", parent_id=finding["id"])
    assert r.status_code == 201, r.get_json()
    assert r.get_json()["parent_id"] == finding["id"]


def test_a_finding_is_locked_with_its_inspection():
    owner = parent_rules.owner_locked
    assert owner("finding", owner_status="approved") and owner("finding", owner_deleted=True)
    assert not owner("finding", owner_status="submitted") and not owner("finding", owner_status="returned")
    assert not owner("sample", owner_status="approved") and not owner("finding")
