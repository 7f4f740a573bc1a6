"""Authorization sweep over every /api/v1 route, driven by the app's own url_map.

Nothing here lists the routes by hand: they are read from url_map when the tests are collected, so a
route added tomorrow is swept tomorrow. Three promises are checked (API.md "Errors", "Auth"; DOMAIN.md
"Who uses it"):

1. no token, a garbage token or a forged one -> 401 in the one error shape;
2. applicant A calling any route with applicant B's ids gets 404, never 200 or a 403 that depends on
   the record (a 403 passes only when B gets it too and so does A for an id that does not exist:
   the role, not the record, decided); admins get 404 or 403 on record routes;
3. no list endpoint shows A (or an admin) B's ids, filtered by B's permits or not.

Path parameters are filled from PATH_IDS (route prefix + parameter name -> the kind of B's record).
A route whose parameter is not in that table fails, naming itself: extend the table, and the world
in authorization_world.py, for the new kind. A call that answers 422 never reached the record check:
give the route a valid body in BODIES.

Tables, fixtures and the world live in authorization_sweep_support.py and authorization_world.py;
defects found beside this sweep are in test_authorization_findings.py.
"""
from __future__ import annotations

import uuid
from datetime import datetime, timedelta, timezone

import hashlib

import jwt as pyjwt
import pytest

from inspect_api.extensions import db
from inspect_api.photos.tus import encode_metadata
from inspect_api.sync.models import SyncConflict

from .authorization_sweep_support import (ADMIN_MANAGES, API, ITEM_ROUTES, LIST_ROUTES,  # noqa: F401
                                          PROTOCOL_HEADERS, ROUTES, UNAUTHENTICATED, assert_error, id_kind,
                                          stranger_url, sweep, sweep_app)
from .authorization_photo_parents import CAST, PARENT_TYPES, STATES, WHERE, PhotoParents, expected
from .authorization_world import TUS, small_jpeg

def cases(routes):
    return [pytest.param(method, path, args, id=f"{method} {path}") for method, path, args in routes]


# -- 0. the sweep sees every route ---------------------------------------------------------------------
def test_sweep_enumerates_the_live_url_map(sweep_app):
    live = {(m, r.rule[len(API):]) for r in sweep_app.url_map.iter_rules() if r.rule.startswith(API + "/")
            for m in r.methods - {"OPTIONS"}}
    swept = {(m, p) for m, p, _ in ROUTES}
    assert swept <= live and len(swept) > 100
    assert {("GET", "/permits/<permit_id>"), ("PUT", "/photos/<photo_id>"), ("POST", "/sync/push"),
            ("HEAD", "/uploads/<upload_id>")} <= swept
    missed = {(m, p) for m, p in live if p not in UNAUTHENTICATED and (m != "HEAD" or ("GET", p) not in live)} - swept
    assert not missed, f"routes the sweep does not cover: {sorted(missed)}"


def test_every_path_parameter_maps_to_a_record_of_b(sweep):
    unmapped = sorted({f"{path} <{name}>" for _m, path, args in ITEM_ROUTES for name in args
                       if id_kind(path, name) not in sweep.world.ids})
    assert not unmapped, "add these to PATH_IDS (and make the record in authorization_world.py): " + ", ".join(unmapped)


# -- 1. authentication ---------------------------------------------------------------------------------
def _forged_token() -> str:
    now = datetime.now(timezone.utc)
    claims = {"sub": str(uuid.uuid4()), "type": "access", "fresh": False, "jti": str(uuid.uuid4()),
              "iat": now, "nbf": now, "exp": now + timedelta(minutes=5), "sid": str(uuid.uuid4())}
    return pyjwt.encode(claims, "not-the-server-key-" + "z" * 32, algorithm="HS256")


TOKENS = {"none": lambda: None, "garbage": lambda: "garbage.not-a.jwt", "forged": _forged_token}


@pytest.mark.parametrize("token", list(TOKENS))
@pytest.mark.parametrize("method, path, args", cases(ROUTES))
def test_route_needs_a_valid_token(sweep_app, method, path, args, token):
    response = _anonymous(sweep_app.test_client(), method, path, TOKENS[token]())
    body = assert_error(response, 401)
    assert method == "HEAD" or body["error"] in ("unauthorized", "invalid_token"), body


def _anonymous(client, method, path, token):
    headers = dict(next((h for p, h in PROTOCOL_HEADERS.items() if path.startswith(p)), {}))
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    return client.open(stranger_url(path), method=method, headers=headers,
                       json={} if method in ("POST", "PUT", "PATCH") else None)


# -- 2. object level: B's ids, called by A and by an admin ----------------------------------------------
@pytest.mark.parametrize("method, path, args", cases(ITEM_ROUTES))
def test_applicant_gets_404_on_another_applicants_records(sweep, method, path, args):
    response = sweep.request("a", method, path, sweep.b_url(path))
    if response.status_code == 422:
        pytest.fail(f"{method} {path} answered 422 before any record check: give it a valid request in BODIES "
                    f"({response.get_json()})")
    if response.status_code == 403:
        assert_error(response, 403)
        as_owner = sweep.request("b", method, path, sweep.b_url(path))
        unknown = sweep.request("a", method, path, stranger_url(path))
        assert (as_owner.status_code, unknown.status_code) == (403, 403), (
            f"A got 403 on B's record, but B got {as_owner.status_code} and A got {unknown.status_code} for an "
            "id that does not exist: the 403 depends on the record, so it tells A the record exists (want 404)")
        return
    assert_error(response, 404)


@pytest.mark.parametrize("method, path, args", cases(
    [r for r in ITEM_ROUTES if not r[1].startswith(ADMIN_MANAGES)]))
def test_admin_cannot_reach_record_content(sweep, method, path, args):
    response = sweep.request("admin", method, path, sweep.b_url(path))
    assert_error(response, (403, 404))


# -- 3. lists never show B's ids -------------------------------------------------------------------------
FILTERS = {"b-permit": "permit", "b-closed-permit": "closed_permit", "unfiltered": None}


@pytest.mark.parametrize("who", ["a", "admin"])
@pytest.mark.parametrize("scope", list(FILTERS))
@pytest.mark.parametrize("method, path, args", cases(LIST_ROUTES))
def test_lists_show_no_ids_of_b(sweep, method, path, args, scope, who):
    filter_kind = FILTERS[scope]
    url = API + path + (f"?permit_id={sweep.world.ids[filter_kind]}" if filter_kind else "")
    response = sweep.request(who, method, path, url)
    assert response.status_code < 500, response.get_data(as_text=True)[:400]
    text = response.get_data(as_text=True)
    secret = dict(sweep.world.record_ids())
    if who == "a":  # A may not even learn B's account, device or uploads exist
        secret.update({k: sweep.world.ids[k] for k in ("user", "device", "upload")})
    leaked = sorted(kind for kind, value in secret.items() if value in text)
    assert not leaked, f"{path} shows {who} these ids of applicant B: {leaked}"


# -- controls: the ids are real, so the checks above cannot pass on an empty world ----------------------
@pytest.mark.parametrize("method, path, args", cases([r for r in ITEM_ROUTES if r[0] in ("GET", "HEAD")]))
def test_owner_or_staff_reach_every_record_the_sweep_uses(sweep, method, path, args):
    answers = {who: sweep.request(who, method, path, sweep.b_url(path)).status_code for who in ("b", "s", "admin")}
    assert any(code < 400 for code in answers.values()), f"nobody reaches {path} with B's ids: {answers}"


def test_owner_lists_show_every_kind_of_record(sweep):
    seen = ""
    for _method, path, _args in LIST_ROUTES:
        for kind in FILTERS.values():
            url = API + path + (f"?permit_id={sweep.world.ids[kind]}" if kind else "")
            seen += sweep.request("b", "GET", path, url).get_data(as_text=True)
    missing = sorted(kind for kind, value in sweep.world.record_ids().items() if value not in seen)
    assert not missing, f"B's own lists never show these kinds, so the list sweep cannot see them: {missing}"


# -- 4. photo parents: every parent type x every role x same and other permit x open and locked ------
@pytest.fixture(scope="module")
def photo_parents(sweep):
    return PhotoParents(sweep.world).build()


def _attach(sweep, path: str, who: str, permit_id: str, kind: str, parent_id: str):
    data = small_jpeg()
    digest, photo_id = hashlib.sha256(data).hexdigest(), str(uuid.uuid4())
    meta = {"permit_id": permit_id, "parent_type": kind, "parent_id": parent_id}
    headers = dict(sweep.world.h[who])
    if path == "put":
        return sweep.client.put(f"{API}/photos/{photo_id}", data=data, query_string=meta,
                                headers={**headers, "Content-Type": "image/jpeg", "X-Content-SHA256": digest})
    created = sweep.client.post(f"{API}/uploads", headers={**headers, **TUS, "Upload-Length": str(len(data)),
                                                            "Upload-Metadata": encode_metadata({
                                                                **meta, "photo_id": photo_id, "sha256": digest,
                                                                "content_type": "image/jpeg"})})
    if created.status_code != 201:
        return created
    finished = sweep.client.patch(created.headers["Location"], data=data, headers={
        **headers, **TUS, "Content-Type": "application/offset+octet-stream", "Upload-Offset": "0"})
    assert finished.status_code == 200, finished.get_data(as_text=True)[:400]
    return created


@pytest.mark.parametrize("path", ["put", "tus"])
@pytest.mark.parametrize("where", WHERE)
@pytest.mark.parametrize("state", STATES)
@pytest.mark.parametrize("kind", PARENT_TYPES)
@pytest.mark.parametrize("who", CAST)
def test_attaching_a_photo_needs_the_right_to_edit_its_parent(sweep, photo_parents, who, kind, state, where, path):
    permit_id, parent_id = photo_parents.target(kind, state, where)
    status, error = expected(who, kind, state, where)
    response = _attach(sweep, path, who, permit_id, kind, parent_id)
    if status == 201:
        assert response.status_code == 201, response.get_data(as_text=True)[:400]
        return
    body = assert_error(response, status)
    assert body["error"] == error, body
    # never a word of another permit's record: a 404 is the permit's, a 422 names only the field
    assert parent_id not in response.get_data(as_text=True) or status != 404


# -- 5. conflicts: a stale push is judged on rights first --------------------------------------------
CONFLICT_RECORDS = ("order", "bond", "sample", "inspection", "permit")
STALE = {"order": {"deadline": "2099-12-31"}, "bond": {"issuer": "Nobody Surety"}, "sample": {"notes": "moved"},
         "inspection": {"notes": "moved"}, "permit": {"description": "moved"}}


@pytest.mark.parametrize("who", ["a", "b", "i", "u", "s"])
@pytest.mark.parametrize("entity", CONFLICT_RECORDS)
def test_a_stale_push_is_judged_on_rights_before_versions(sweep, photo_parents, entity, who):
    """A stale push is a conflict only from an account that may make the change at the current
    version; otherwise it is rejected exactly as the current push is, and leaves no conflict."""
    world = sweep.world
    record_id = world.ids[entity]
    path = {"order": "orders", "bond": "bonds", "sample": "samples", "inspection": "inspections",
            "permit": "permits"}[entity]
    device = f"{who}-tablet-{uuid.uuid4().hex[:6]}"
    headers = dict(world.h[who])

    def push(base_version):
        response = sweep.client.post(f"{API}/sync/push", headers=headers, json={"device_id": device, "mutations": [{
            "mutation_id": str(uuid.uuid4()), "entity": entity, "id": record_id, "op": "upsert",
            "base_version": base_version, "data": STALE[entity]}]})
        assert response.status_code == 200, response.get_data(as_text=True)[:400]
        return response.get_json()["results"][0]

    def conflicts() -> int:
        db.session.expire_all()
        return db.session.query(SyncConflict).filter_by(record_id=record_id, device_id=device).count()

    current = sweep.client.get(f"{API}/{path}/{record_id}", headers=world.h["s"]).get_json()["version"]
    stale = push(current - 1)
    if who == "a":  # B's records are not A's to see
        assert (stale["status"], stale["error"]) == ("rejected", "not_found"), stale
        return
    if (who == "b" and entity != "permit") or who == "u" or (who == "i" and entity in ("order", "bond", "permit")):
        assert (stale["status"], stale["error"]) == ("rejected", "forbidden"), stale
        assert conflicts() == 0
        fresh = push(current)
        assert (fresh["status"], fresh.get("error")) == ("rejected", "forbidden"), fresh
        return
    # the office, the assigned inspector on field records, the applicant on their own application: a
    # conflict, kept for review with who raised it, from which device, and what differs
    assert stale["status"] == "conflict", stale
    conflict = sweep.client.get(f"{API}/sync/conflicts/{stale['conflict_id']}", headers=world.h["s"]).get_json()
    author = {"b": world.b, "i": world.inspector, "s": world.supervisor}[who]
    assert conflict["raised_by"] == {"id": author.id, "name": author.name}
    assert conflict["device"] == {"id": device, "name": None}
    assert conflict["differences"] and all(set(d) == {"field", "server", "device"} for d in conflict["differences"])
    assert conflicts() == 1
    if (who, entity) in (("b", "permit"), ("i", "inspection")):
        # the author may not make this change now (the permit is past the applicant's edits, the inspection
        # is submitted): the supervisor cannot carry it through by taking the device's version
        taken = sweep.client.post(f"{API}/sync/conflicts/{stale['conflict_id']}/resolve", headers=world.h["s"],
                                  json={"resolution": "take_device"})
        body = assert_error(taken, 403)
        assert body["error"] == "forbidden" and body["errors"]["raised_by"] == [author.id], body
        assert sweep.client.get(f"{API}/{path}/{record_id}", headers=world.h["s"]).get_json()["version"] == current


# -- a user's own settings: /me/notification-preferences is the caller's, whoever calls ------------------
# Each role may switch off only the optional messages it receives (inspectors: none but the always-sent
# device notice; the office: its reminders), and a change by A is never B's.
OWN_SWITCH = {"a": "inspection_approved", "b": "inspection_approved", "s": "reminder_certificate_waiting",
              "i": None, "admin": None}


@pytest.mark.parametrize("who", list(OWN_SWITCH))
def test_notification_preferences_are_the_callers_own(sweep, who):
    path = f"{API}/me/notification-preferences"
    mine = sweep.client.get(path, headers=sweep.world.h[who])
    assert mine.status_code == 200, mine.get_json()
    assert {a["event"] for a in mine.get_json()["always_sent"]} >= {"device_revoked"}
    event = OWN_SWITCH[who]
    if event is None:
        assert mine.get_json()["preferences"] == []
        refused = sweep.client.put(path, headers=sweep.world.h[who],
                                   json={"preferences": [{"event": "inspection_approved", "enabled": False}]})
        assert assert_error(refused, 422)["errors"] == {"preferences": {"0": {"event": ["Not a message you receive."]}}}
        return
    others = {w: sweep.client.get(path, headers=sweep.world.h[w]).get_json() for w in OWN_SWITCH if w != who}
    changed = sweep.client.put(path, headers=sweep.world.h[who], json={"preferences": [{"event": event, "enabled": False}]})
    try:
        assert changed.status_code == 200 and {p["event"]: p["enabled"] for p in changed.get_json()["preferences"]}[
            event] is False
        assert {w: sweep.client.get(path, headers=sweep.world.h[w]).get_json() for w in others} == others
    finally:
        sweep.client.put(path, headers=sweep.world.h[who], json={"preferences": [{"event": event, "enabled": True}]})
