"""A document recorded with a photo of its sheet (`file_id`) shows that photo to everyone who sees the
permit, so the photo must be one of this permit's that the caller may see (R-C1). A photo of a
permit the caller cannot see answers exactly like an id that names nothing."""
from __future__ import annotations

import uuid

from inspect_api.audit import AuditEntry
from inspect_api.extensions import db
from inspect_api.permits.models import PermitDocument

from ..photos.helpers import jpeg, put_photo


def _photo(client, headers, permit_id) -> str:
    r = put_photo(client, headers, permit_id, jpeg((40, 30)))
    assert r.status_code == 201, r.get_json()
    return r.get_json()["id"]


def _add(client, headers, permit_id, file_id):
    return client.post(f"/api/v1/permits/{permit_id}/documents", headers=headers,
                       json={"kind": "esc_plan", "filename": "esc-plan.pdf", "file_id": file_id})


def test_a_document_names_only_a_photo_of_its_permit_the_caller_sees(client, factory):
    owner, own_h = factory.as_role("applicant")
    stranger, stranger_h = factory.as_role("applicant")
    _sup, sup_h = factory.as_role("supervisor")
    mine, theirs = factory.permit(owner), factory.permit(stranger)
    their_photo = _photo(client, stranger_h, theirs.id)
    my_photo = _photo(client, own_h, mine.id)
    refusals = {}
    for name, file_id in (("hidden", their_photo), ("unknown", str(uuid.uuid4()))):
        r = _add(client, own_h, mine.id, file_id)
        assert r.status_code == 422, r.get_json()
        refusals[name] = r.get_json()
    assert refusals["hidden"] == refusals["unknown"]  # nothing tells the two apart
    assert refusals["hidden"]["error"] == "validation_error" and "file_id" in refusals["hidden"]["errors"]
    # A staff member sees both permits, but a document of one permit names no photo of another.
    r = _add(client, sup_h, mine.id, their_photo)
    assert r.status_code == 422 and "file_id" in r.get_json()["errors"]
    db.session.expire_all()
    assert db.session.query(PermitDocument).count() == 0
    assert db.session.query(AuditEntry).filter_by(action="document.create").count() == 0
    r = _add(client, own_h, mine.id, my_photo)
    assert r.status_code == 201, r.get_json()
    assert r.get_json()["file_id"] == my_photo
