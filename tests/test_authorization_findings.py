"""Authorization and input-handling checks beside the url_map sweep (test_authorization_sweep.py):
hostile values never answer 5xx, device ids cannot be taken over, references to other people's
photos and records reveal nothing, and photos stay as hidden as the record they were taken for."""
from __future__ import annotations

import hashlib
import uuid
from datetime import datetime, timedelta, timezone

import pytest

from .authorization_sweep_support import (API, BODIES, PARAM, ROUTES, assert_error, fill,  # noqa: F401
                                          sweep, sweep_app)
from .authorization_world import small_jpeg

# -- hostile identifiers never reach the database as a 5xx (or a stack trace) -------------------------
HOSTILE = ["nul-in-path", "nul-in-query", "huge-integer"]


def _query_names(spec: dict, path: str, method: str) -> list[str]:
    operation = spec["paths"].get(API + PARAM.sub(lambda m: "{%s}" % m.group(1), path), {}).get(method.lower(), {})
    return [p["name"] for p in operation.get("parameters", []) if p.get("in") == "query"]


@pytest.mark.parametrize("kind", HOSTILE)
def test_hostile_values_never_answer_5xx(sweep, kind):
    spec = sweep.client.get(API + "/openapi.json").get_json()
    probes = []
    for method, path, args in ROUTES:
        if kind == "nul-in-path" and args:
            probes.append((method, path, fill(path, lambda n: "1" if n == "version" else "a%00b")))
        elif kind == "nul-in-query" and method == "GET" and (method, path) not in BODIES:
            probes += [(method, path, f"{sweep.b_url(path)}?{name}=a%00b") for name in _query_names(spec, path, method)]
        elif kind == "huge-integer":
            if "version" in args:
                probes.append((method, path, fill(path, lambda n: 10 ** 20 if n == "version" else "esc")))
            if method == "GET" and (method, path) not in BODIES:
                base = f"{sweep.b_url(path)}?permit_id={sweep.world.ids['permit']}"
                probes += [(method, path, f"{base}&{name}={10 ** 20}") for name in _query_names(spec, path, method)
                           if name in ("limit", "offset", "version")]
    assert len(probes) > (3 if kind == "huge-integer" else 20)
    failures = []
    for method, path, url in probes:
        response = sweep.request("s", method, path, url)
        text = response.get_data(as_text=True)
        assert "Traceback" not in text and 'File "' not in text, (url, text[:300])
        if response.status_code >= 500:
            failures.append(f"{method} {url[len(API):][:90]} -> {response.status_code}")
    assert not failures, f"{len(failures)} answers were 5xx: " + "; ".join(failures[:40])


# -- defects in what requests reference -------------------------------------------------------------
def test_a_device_of_b_cannot_be_taken_over_by_a(sweep):
    device = f"b-tablet-{uuid.uuid4().hex[:8]}"
    assert sweep.client.get(API + "/sync/pull", headers=sweep.world.f.headers(sweep.world.b, device)).status_code == 200
    sweep.client.get(API + "/sync/pull", headers={**sweep.world.h["a"], "X-Device-Id": device})
    assert_error(sweep.client.get(f"{API}/devices/{device}", headers=sweep.world.h["a"]), 404)
    mine = sweep.client.get(API + "/devices", headers=sweep.world.h["b"]).get_json()
    assert device in [d["id"] for d in mine]


def test_notice_does_not_reveal_photos_of_other_permits(sweep):
    answers = []
    for photo_id in (sweep.world.ids["photo"], str(uuid.uuid4())):
        permit = sweep.world.f.permit(applicant=sweep.world.a, status="active")
        response = sweep.client.post(API + "/completion-notices", headers=sweep.world.h["a"], json={
            "permit_id": permit.id, "statement": "Work complete.", "photo_ids": [photo_id]})
        answers.append(response.status_code)
    assert answers[0] == answers[1], f"B's photo id: {answers[0]}, an unknown id: {answers[1]}"


# Client-made ids are global UUIDs: an id that is already taken cannot be created again, whoever holds
# it, so "taken" is all a create can say. What it must never do is say more: the answer is the same
# 409 as for an id taken by the caller's own different record, and carries nothing of the holder.
CLIENT_ID_CREATES = {
    "permit": ("/permits", "draft", lambda w, p: {**w.f.permit_payload()}),
    "exemption": ("/permits/{permit}/exemptions", "draft", lambda w, p: {"kind": "B2", "statement": "Fence"}),
    "permit_document": ("/permits/{permit}/documents", "draft", lambda w, p: {"kind": "other", "filename": "a.pdf"}),
    "notice": ("/completion-notices", "active", lambda w, p: {"permit_id": p.id, "statement": "Done.",
                                                              "photo_ids": [str(uuid.uuid4())]}),
    "report": ("/final-reports", "active-permit", lambda w, p: {"permit_id": p.id}),
}


@pytest.mark.parametrize("kind", list(CLIENT_ID_CREATES))
def test_creating_with_an_unseen_records_id_reveals_nothing(sweep, kind):
    path, status, body = CLIENT_ID_CREATES[kind]
    world = sweep.world
    permit = world.f.permit(applicant=world.a, status="active" if status != "draft" else "draft",
                            **({"disturbed_area_sqft": 30000} if status == "active-permit" else {}))
    response = sweep.client.post(API + path.format(permit=permit.id), headers=world.h["a"],
                                 json={**body(world, permit), "id": world.ids[kind]})
    assert_error(response, 409)
    answer = response.get_json()
    assert answer["error"] == "conflict" and answer["errors"] == {}, answer
    for other in (world.ids["permit"], world.b.email):
        assert other not in response.get_data(as_text=True)


def test_photos_of_a_draft_inspection_stay_hidden_from_the_applicant(sweep):
    world, draft_id, data = sweep.world, str(uuid.uuid4()), small_jpeg()
    photo = world.call("i", "PUT", f"/photos/{uuid.uuid4()}", data=data, query_string={
        "permit_id": world.ids["permit"], "parent_type": "inspection", "parent_id": draft_id},
        headers={"Content-Type": "image/jpeg", "X-Content-SHA256": hashlib.sha256(data).hexdigest()})
    started = datetime.now(timezone.utc) - timedelta(hours=3)
    world.call("i", "POST", "/inspections", json={
        "id": draft_id, "permit_id": world.ids["permit"], "entry_authorization_id": world.ids["entry"],
        "kind": "routine", "started_at": started.isoformat()})
    assert_error(sweep.client.get(f"{API}/inspections/{draft_id}", headers=world.h["b"]), 404)
    assert_error(sweep.client.get(f"{API}/photos/{photo['id']}", headers=world.h["b"]), 404)
