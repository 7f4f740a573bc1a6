"""Photo markup (`photo_annotation`): pushed like any field record (idempotent, conflict-checked, audited
with who drew it), seen by exactly those who see the photo, drawn by those who may add the photo, refused
from inspectors on a locked record's photo, and drawn on a copy: the original's bytes and SHA-256 never
change. GET /photos/{id}/annotations and /annotated answer with the photo's rights."""
from __future__ import annotations

import hashlib
import io
import urllib.request
import uuid
from types import SimpleNamespace

import pytest
from PIL import Image

from inspect_api.audit import AuditEntry
from inspect_api.extensions import db
from inspect_api.photos.models import Photo, PhotoAnnotation

from ..field.conftest import Site
from ..sync.conftest import Tablet, create, edit, remove
from .helpers import jpeg, put_photo

API = "/api/v1"
ENTITY = "photo_annotation"
ARROW = {"kind": "arrow", "points": [[0.1, 0.5], [0.9, 0.5]], "colour": "#ff0000"}
LABEL = {"kind": "text", "points": [[0.2, 0.2]], "text": "Silt fence down", "colour": "#FFFFFF"}
CIRCLE = {"kind": "circle", "points": [[0.3, 0.3], [0.7, 0.8]], "colour": "#ffe600"}


def tablet(factory, client, user) -> Tablet:
    device = f"tablet-{uuid.uuid4().hex[:8]}"
    return Tablet(client, factory.headers(user, device_id=device), device)


def upload(client, headers, permit_id, parent_id) -> dict:
    r = put_photo(client, headers, permit_id, jpeg((320, 240)), parent_type="inspection", parent_id=parent_id)
    assert r.status_code == 201, r.get_json()
    return r.get_json()


@pytest.fixture
def world(factory, client):
    applicant, applicant_h = factory.as_role("applicant", name="Alex Builder")
    other, other_h = factory.as_role("applicant", name="Olga Other")
    supervisor, supervisor_h = factory.as_role("supervisor", name="Sam Reyes")
    inspector, inspector_h = factory.as_role("inspector", name="Ines Ortiz")
    colleague, colleague_h = factory.as_role("inspector", name="Cal Colleague")
    stranger, stranger_h = factory.as_role("inspector", name="Uma Unassigned")
    permit = factory.permit(applicant=applicant, status="active")
    factory.permit(applicant=other, status="active")
    factory.assign(permit, inspector)
    factory.assign(permit, colleague)
    site = Site(client, factory, permit, applicant, applicant_h, inspector, inspector_h, supervisor, supervisor_h)
    submitted, approved = site.inspection_id(), site.inspection_id()
    photo = upload(client, inspector_h, permit.id, submitted)
    locked_photo = upload(client, inspector_h, permit.id, approved)
    for inspection_id in (submitted, approved):
        assert site.submit(inspection_id).status_code == 200
    assert site.review(approved).status_code == 200
    users = {"applicant": applicant, "other": other, "supervisor": supervisor, "inspector": inspector,
             "colleague": colleague, "stranger": stranger}
    return SimpleNamespace(
        permit=permit, site=site, photo=photo, locked_photo=locked_photo, submitted=submitted, users=users,
        h={"applicant": applicant_h, "other": other_h, "supervisor": supervisor_h, "inspector": inspector_h,
           "colleague": colleague_h, "stranger": stranger_h},
        tablet=lambda who: tablet(factory, client, users[who]))


def markup(photo_id: str, *shapes) -> dict:
    return {"photo_id": photo_id, "shapes": list(shapes or (ARROW, LABEL))}


def drawn(world, who="inspector", photo=None, *shapes) -> tuple[Tablet, str]:
    device, record_id = world.tablet(who), str(uuid.uuid4())
    [result] = device.push([create(ENTITY, markup((photo or world.photo)["id"], *shapes), record_id)])
    assert (result["status"], result.get("version")) == ("applied", 1), result
    return device, record_id


# -- sync: create, pull, duplicates, conflicts ----------------------------------------------------------
def test_a_pushed_markup_is_pulled_by_exactly_those_who_see_the_photo(world, client):
    _, record_id = drawn(world)
    seen = {}
    for who in ("inspector", "supervisor", "applicant", "other", "stranger"):
        device = world.tablet(who)
        device.sync_down()
        seen[who] = device.held.get((ENTITY, record_id))
    assert {who for who, change in seen.items() if change} == {"inspector", "supervisor", "applicant"}
    data = seen["supervisor"]["data"]
    assert data["photo_id"] == world.photo["id"] and data["permit_id"] == world.permit.id
    assert data["shapes"] == [ARROW, {**LABEL, "colour": "#ffffff"}]  # colours answered in lower case
    assert data["created_by"] == world.users["inspector"].id
    assert data["drawn_by"] == {"id": world.users["inspector"].id, "name": "Ines Ortiz"}
    assert seen["supervisor"]["version"] == data["version"] == 1
    # the REST list answers the same record, with the photo's rights
    listed = client.get(f"{API}/photos/{world.photo['id']}/annotations", headers=world.h["applicant"])
    assert listed.status_code == 200 and listed.get_json() == [data]
    for who in ("other",):
        for path in ("annotations", "annotated"):
            r = client.get(f"{API}/photos/{world.photo['id']}/{path}", headers=world.h[who])
            assert r.status_code == 404 and r.get_json()["error"] == "not_found", r.get_json()


def test_a_resent_mutation_is_a_duplicate_and_the_same_id_with_other_shapes_a_conflict(world):
    device, record_id = world.tablet("inspector"), str(uuid.uuid4())
    first = create(ENTITY, markup(world.photo["id"]), record_id)
    assert device.push([first])[0]["status"] == "applied"
    again = device.push([first])[0]
    assert (again["status"], again["original_status"], again["version"]) == ("duplicate", "applied", 1)
    same = device.push([create(ENTITY, markup(world.photo["id"]), record_id)])[0]
    assert (same["status"], same["version"]) == ("duplicate", 1)
    other = device.push([create(ENTITY, markup(world.photo["id"], CIRCLE), record_id)])[0]
    assert other["status"] == "conflict" and other["server_record"]["shapes"][0] == ARROW
    db.session.expire_all()
    assert db.session.query(PhotoAnnotation).filter_by(id=record_id).one().version == 1


def test_a_stale_edit_is_a_conflict_holding_the_server_record(world):
    device, record_id = drawn(world)
    moved = device.push([edit(ENTITY, record_id, 1, {"shapes": [CIRCLE]})])[0]
    assert (moved["status"], moved["version"]) == ("applied", 2)
    stale = world.tablet("inspector").push([edit(ENTITY, record_id, 1, {"shapes": [ARROW]})])[0]
    assert (stale["status"], stale["error"]) == ("conflict", "version_conflict"), stale
    assert stale["server_record"]["version"] == 2 and stale["server_record"]["shapes"] == [CIRCLE]
    assert stale["conflict_id"]


def test_only_the_author_or_a_supervisor_changes_or_deletes_a_markup(world, client):
    _, record_id = drawn(world)
    colleague = world.tablet("colleague")  # assigned to the same site, but not the one who drew it
    for mutation in (edit(ENTITY, record_id, 1, {"shapes": [CIRCLE]}), remove(ENTITY, record_id, 1)):
        refused = colleague.push([mutation])[0]
        assert (refused["status"], refused["error"]) == ("rejected", "forbidden"), refused
        assert "Only the one who drew this markup" in refused["message"]
    stale = colleague.push([edit(ENTITY, record_id, 0, {"shapes": [CIRCLE]})])[0]  # rights before versions
    assert (stale["status"], stale["error"]) == ("rejected", "forbidden"), stale
    office = world.tablet("supervisor").push([edit(ENTITY, record_id, 1, {"shapes": [CIRCLE]})])[0]
    assert (office["status"], office["version"]) == ("applied", 2)
    gone = world.tablet("inspector").push([remove(ENTITY, record_id, 2)])[0]
    assert (gone["status"], gone["version"]) == ("applied", 3)
    r = client.get(f"{API}/photos/{world.photo['id']}/annotations", headers=world.h["supervisor"])
    assert r.status_code == 200 and r.get_json() == []
    device = world.tablet("supervisor")
    device.sync_down()
    assert (ENTITY, record_id) not in device.held
    db.session.expire_all()
    assert db.session.get(PhotoAnnotation, record_id).deleted_at is not None  # kept, as what it was


def test_markup_needs_the_right_to_add_the_photo_and_a_photo_the_caller_sees(world):
    refusals = {
        "applicant": ("forbidden", "Only inspectors assigned to the site and supervisors mark up"),
        "stranger": ("forbidden", "You are not assigned to this site"),
        "other": ("not_found", "No such photo"),
    }
    for who, (error, message) in refusals.items():
        result = world.tablet(who).push([create(ENTITY, markup(world.photo["id"]))])[0]
        assert (result["status"], result["error"]) == ("rejected", error), result
        assert result["message"].startswith(message), result
    missing = world.tablet("inspector").push([create(ENTITY, markup(str(uuid.uuid4())))])[0]
    assert (missing["status"], missing["error"]) == ("rejected", "not_found")
    assert missing["errors"] == {"photo_id": ["No photo with this id that you may see."]}
    bad = world.tablet("inspector").push([create(ENTITY, markup(world.photo["id"], {**ARROW, "points": [[0, 0]]}))])[0]
    assert (bad["status"], bad["error"]) == ("rejected", "validation_error")
    assert bad["errors"] == {"shapes": {"0": {"points": ["An arrow has exactly 2 points: its tail, then its head."]}}}
    db.session.expire_all()
    assert db.session.query(PhotoAnnotation).count() == 0


def test_a_photo_of_an_approved_inspection_takes_markup_only_from_a_supervisor(world):
    refused = world.tablet("inspector").push([create(ENTITY, markup(world.locked_photo["id"]))])[0]
    assert (refused["status"], refused["error"]) == ("rejected", "record_locked"), refused
    assert refused["message"] == ("This photo's inspection is locked; its photos take no new or changed markup "
                                  "(a supervisor may still mark them up).")
    drawn(world, "supervisor", world.locked_photo)
    # markup drawn while the inspection was open is frozen with it once approved
    device, record_id = drawn(world)
    assert world.site.review(world.submitted).status_code == 200
    for mutation in (edit(ENTITY, record_id, 1, {"shapes": [CIRCLE]}), remove(ENTITY, record_id, 1)):
        result = device.push([mutation])[0]
        assert (result["status"], result["error"]) == ("rejected", "record_locked"), result


def test_every_change_is_audited_with_who_drew_it(world):
    device, record_id = drawn(world)
    assert world.tablet("supervisor").push([edit(ENTITY, record_id, 1, {"shapes": [CIRCLE]})])[0]["status"] == "applied"
    assert device.push([remove(ENTITY, record_id, 2)])[0]["status"] == "applied"
    db.session.expire_all()
    rows = db.session.query(AuditEntry).filter_by(record_id=record_id).order_by(AuditEntry.at).all()
    inspector, supervisor = world.users["inspector"].id, world.users["supervisor"].id
    assert [(r.action, r.actor_id, r.changes["drawn_by"]) for r in rows] == [
        ("photo_annotation.create", inspector, inspector), ("photo_annotation.update", supervisor, inspector),
        ("photo_annotation.delete", inspector, inspector)]
    created = rows[0]
    assert created.device_id == device.device_id and created.permit_id == world.permit.id
    assert created.changes["photo_sha256"] == world.photo["sha256"]
    assert created.changes["shapes"] == {"arrow": 1, "text": 1} and created.changes["texts"] == ["Silt fence down"]
    assert rows[1].changes["after"]["shapes"] == {"circle": 1}


# -- the annotated image; the original never changes ----------------------------------------------------
def _bytes(client, headers, url) -> bytes:
    """The bytes a route serves: from the API, or on S3 from the signed URL it redirects to."""
    r = client.get(url, headers=headers)
    if r.status_code == 302:
        with urllib.request.urlopen(r.headers["Location"], timeout=10) as signed:
            return signed.read()
    assert r.status_code == 200, r.get_data(as_text=True)[:300]
    return r.data


def test_markup_is_drawn_on_a_copy_and_the_original_stays_byte_for_byte(world, client, stored):
    h, photo_id = world.h["supervisor"], world.photo["id"]
    none = client.get(f"{API}/photos/{photo_id}/annotated", headers=h)
    assert none.status_code == 404 and none.get_json()["error"] == "not_found"
    assert "no markup" in none.get_json()["message"]
    original = _bytes(client, h, f"{API}/photos/{photo_id}/original")
    display = _bytes(client, h, f"{API}/photos/{photo_id}/thumbnail")
    blobs = stored()
    drawn(world, "inspector", world.photo, ARROW)
    drawn(world, "supervisor", world.photo, CIRCLE)
    r = client.get(f"{API}/photos/{photo_id}/annotated", headers=world.h["applicant"])
    assert r.status_code == 200 and r.mimetype == "image/jpeg" and r.headers["ETag"]
    annotated = Image.open(io.BytesIO(r.data))
    plain = Image.open(io.BytesIO(display))
    assert annotated.size == plain.size
    w, h_px = annotated.size
    middle = annotated.convert("RGB").getpixel((w // 2, h_px // 2))  # on the red arrow's shaft
    assert middle[0] > 180 and middle[1] < 80 and middle[2] < 80, middle
    assert plain.convert("RGB").getpixel((w // 2, h_px // 2))[2] > 150  # the photo itself is blue there
    again = client.get(f"{API}/photos/{photo_id}/annotated", headers={**h, "If-None-Match": r.headers["ETag"]})
    assert again.status_code == 304
    # the original: same bytes, same SHA-256, same record
    after = _bytes(client, h, f"{API}/photos/{photo_id}/original")
    assert after == original and hashlib.sha256(after).hexdigest() == world.photo["sha256"]
    assert client.get(f"{API}/photos/{photo_id}", headers=h).get_json() == {
        **client.get(f"{API}/photos/{photo_id}", headers=h).get_json(), "sha256": world.photo["sha256"],
        "version": world.photo["version"], "bytes": len(original)}
    db.session.expire_all()
    assert db.session.get(Photo, photo_id).sha256 == hashlib.sha256(original).hexdigest()
    added = sorted(set(stored()) - set(blobs))
    assert added and all(key.startswith("renditions/annotated-photo/") for key in added), added
    assert set(blobs) <= set(stored())


def test_the_annotated_image_changes_with_the_markup(world, client):
    device, record_id = drawn(world, "inspector", world.photo, ARROW)
    h = world.h["inspector"]
    first = client.get(f"{API}/photos/{world.photo['id']}/annotated", headers=h)
    assert device.push([edit(ENTITY, record_id, 1, {"shapes": [CIRCLE]})])[0]["status"] == "applied"
    second = client.get(f"{API}/photos/{world.photo['id']}/annotated", headers=h)
    assert first.status_code == second.status_code == 200
    assert first.headers["ETag"] != second.headers["ETag"] and first.data != second.data
    assert device.push([edit(ENTITY, record_id, 2, {"shapes": []})])[0]["status"] == "applied"
    emptied = client.get(f"{API}/photos/{world.photo['id']}/annotated", headers=h)
    assert emptied.status_code == 404  # an emptied markup draws nothing


# -- the same record over REST ---------------------------------------------------------------------------
def test_the_rest_routes_take_the_same_markup_with_the_same_rights(world, client):
    body = {"id": str(uuid.uuid4()), **markup(world.photo["id"], CIRCLE)}
    made = client.post(f"{API}/photo-annotations", json=body, headers=world.h["inspector"])
    assert made.status_code == 201, made.get_json()
    record = made.get_json()
    assert (record["id"], record["version"], record["shapes"]) == (body["id"], 1, [CIRCLE])
    again = client.post(f"{API}/photo-annotations", json=body, headers=world.h["inspector"])
    assert again.status_code == 200 and again.get_json() == record
    url = f"{API}/photo-annotations/{body['id']}"
    assert client.get(url, headers=world.h["applicant"]).get_json() == record
    hidden = client.get(url, headers=world.h["other"])
    assert hidden.status_code == 404 and hidden.get_json()["error"] == "not_found"
    unversioned = client.patch(url, json={"shapes": [ARROW]}, headers=world.h["inspector"])
    assert unversioned.status_code == 428 and unversioned.get_json()["error"] == "precondition_required"
    foreign = client.patch(url, json={"shapes": [ARROW], "version": 1}, headers=world.h["colleague"])
    assert foreign.status_code == 403 and foreign.get_json()["error"] == "forbidden"
    changed = client.patch(url, json={"shapes": [ARROW], "version": 1}, headers=world.h["inspector"])
    assert changed.status_code == 200 and changed.get_json()["version"] == 2
    assert changed.get_json()["shapes"] == [ARROW]
    stale = client.delete(url, headers={**world.h["inspector"], "If-Match": "1"})
    assert stale.status_code == 409 and stale.get_json()["error"] == "version_conflict"
    assert client.delete(url, headers={**world.h["colleague"], "If-Match": "2"}).status_code == 403
    assert client.delete(url, headers={**world.h["inspector"], "If-Match": "2"}).status_code == 204
    assert client.get(url, headers=world.h["inspector"]).status_code == 404
    locked = client.post(f"{API}/photo-annotations", json=markup(world.locked_photo["id"]), headers=world.h["inspector"])
    assert locked.status_code == 409 and locked.get_json()["error"] == "record_locked"


def test_markup_of_a_photo_that_starts_to_count_is_sent_again_with_it(world):
    """A photo whose inspection has not arrived is seen by its uploader and supervisors only, and so is its
    markup; once the inspection arrives and is submitted, the applicant's next pull brings both."""
    later = str(uuid.uuid4())
    photo = upload(world.site.client, world.h["inspector"], world.permit.id, later)
    _, record_id = drawn(world, "inspector", photo)
    applicant = world.tablet("applicant")
    applicant.sync_down()
    assert (ENTITY, record_id) not in applicant.held and ("photo", photo["id"]) not in applicant.held
    entry_id = world.site.entry_id()
    assert world.site.inspection(entry_id, id=later).status_code == 201
    assert world.site.submit(later).status_code == 200
    applicant.sync_down()
    assert ("photo", photo["id"]) in applicant.held
    assert applicant.held[(ENTITY, record_id)]["data"]["photo_id"] == photo["id"]
