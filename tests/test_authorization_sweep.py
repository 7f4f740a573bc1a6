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

import jwt as pyjwt
import pytest

from .authorization_sweep_support import (ADMIN_MANAGES, API, ITEM_ROUTES, LIST_ROUTES,  # noqa: F401
                                          PROTOCOL_HEADERS, ROUTES, UNAUTHENTICATED, assert_error, id_kind,
                                          stranger_url, sweep, sweep_app)

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
