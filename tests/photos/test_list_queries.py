"""The photo list loads who uploaded its photos for the whole page at once (README "Layers", "One
serialiser style"): a list of three photos by three people runs the same SQL statements as one."""
from __future__ import annotations

from inspect_api.extensions import db
from tests.sql_count import list_statements
from inspect_api.photos.models import Photo


def _statements(client, url: str, headers, expected: int) -> list[str]:
    return list_statements(client, url, headers, expected)


def test_photo_list(factory, client):
    _, sup = factory.as_role("supervisor")
    permit = factory.permit(status="active")
    url = f"/api/v1/photos?permit_id={permit.id}"
    counts = {}
    for n in (1, 2, 3):
        inspector, _ = factory.as_role("inspector")
        db.session.add(Photo(permit_id=permit.id, sha256=f"{n}" * 64, content_type="image/jpeg", bytes=10, width=1,
                             height=1, original_key="k", display_key="k", small_key="k", created_by=inspector.id))
        db.session.commit()
        if n != 2:
            counts[n] = _statements(client, url, sup, n)
    assert len(counts[1]) == len(counts[3]), "\n".join(s[:120] for s in counts[3])
