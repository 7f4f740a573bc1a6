"""No hostile input is a 500 (API.md "Errors"): nesting, lone surrogates, unbounded text and
shapes are refused in the one error shape, and nothing is stored."""
from __future__ import annotations

import json

import pytest
from marshmallow import fields, validate

from inspect_api.extensions import db
from inspect_api.permits.models import Permit

from .permits.conftest import assert_error

API = "/api/v1"
RING = [[-70.904, 41.637], [-70.902, 41.637], [-70.902, 41.638], [-70.904, 41.638], [-70.904, 41.637]]


def _permits(factory, user) -> int:
    db.session.expire_all()
    return db.session.query(Permit).filter_by(applicant_id=user.id).count()


def _create(client, factory, headers, **site):
    body = factory.permit_payload()
    body["site"].update(site)
    return client.post(f"{API}/permits", json=body, headers=headers)


# -- JSON nesting --------------------------------------------------------------------------------------
@pytest.mark.parametrize("depth", [800, 5_000, 400_000])
def test_json_nested_deeper_than_the_limit_is_400(client, factory, depth):
    user, headers = factory.as_role("applicant")
    text = json.dumps(factory.permit_payload())[:-1] + ', "description": ' + "[" * depth + "]" * depth + "}"
    r = client.post(f"{API}/permits", data=text, headers={**headers, "Content-Type": "application/json"})
    body = assert_error(r, 400, "json_too_deep")
    assert "768" in body["message"]
    assert _permits(factory, user) == 0


def test_brackets_inside_strings_do_not_count_as_nesting(client, factory):
    user, headers = factory.as_role("applicant")
    r = client.post(f"{API}/permits", json=factory.permit_payload(description="[" * 2000 + '\\"{' * 100),
                    headers=headers)
    assert r.status_code == 201, r.get_json()


@pytest.mark.parametrize("where", ["member", "coordinates", "position"])
def test_limit_of_work_nested_700_deep_is_422(client, factory, where):
    user, headers = factory.as_role("applicant")
    deep = json.loads("[" * 700 + "]" * 700)
    shape = {"member": {"type": "Polygon", "coordinates": [RING], "bbox": deep},
             "coordinates": {"type": "Polygon", "coordinates": deep},
             "position": {"type": "Polygon", "coordinates": [[deep, *RING[1:]]]}}[where]
    body = assert_error(_create(client, factory, headers, limit_of_work=shape), 422, "validation_error")
    assert "limit_of_work" in body["errors"]["site"]
    assert _permits(factory, user) == 0


# -- lone surrogates -----------------------------------------------------------------------------------
@pytest.mark.parametrize("path, text", [
    ("/auth/register", '{"email": "s@example.org", "password": "lantern quarry marsh 88", "name": "A\\ud800"}'),
    ("/auth/register", '{"email": "s@example.org", "password": "lantern quarry marsh 88", "name": "A\\udc00B"}'),
    ("/auth/register", '{"email": "s@example.org", "password": "lantern quarry marsh 88", "name": "A", "\\ud800": 1}'),
])
def test_a_lone_surrogate_in_any_text_is_422(client, path, text):
    body = assert_error(client.post(API + path, data=text, headers={"Content-Type": "application/json"}), 422,
                        "validation_error")
    assert "surrogate" in body["message"]


def test_a_lone_surrogate_in_a_record_is_422_and_nothing_is_stored(client, factory):
    user, headers = factory.as_role("applicant")
    text = json.dumps(factory.permit_payload(description="Fence\ud800"))  # json.dumps escapes it as \ud800
    assert "\\ud800" in text
    r = client.post(f"{API}/permits", data=text, headers={**headers, "Content-Type": "application/json"})
    body = assert_error(r, 422, "validation_error")
    assert body["errors"] == {"description": ["Contains a lone surrogate."]}
    assert _permits(factory, user) == 0


def test_surrogate_pairs_are_ordinary_text(client, factory):
    user, headers = factory.as_role("applicant")
    r = client.post(f"{API}/permits", data=json.dumps(factory.permit_payload(description="Silt fence \U0001F6A7")),
                    headers={**headers, "Content-Type": "application/json"})
    assert r.status_code == 201 and r.get_json()["description"] == "Silt fence \U0001F6A7"


# -- strict limit of work ------------------------------------------------------------------------------
def test_limit_of_work_accepts_polygon_and_multipolygon(client, factory):
    _, headers = factory.as_role("applicant")
    assert _create(client, factory, headers, limit_of_work={"type": "Polygon", "coordinates": [RING]}).status_code == 201
    other = [[x + 0.01, y] for x, y in RING]
    multi = {"type": "MultiPolygon", "coordinates": [[RING], [other]]}
    r = _create(client, factory, headers, limit_of_work=multi)
    assert r.status_code == 201, r.get_json()
    assert r.get_json()["site"]["limit_of_work"] == multi


@pytest.mark.parametrize("shape, words", [
    ({"type": "Polygon", "coordinates": [RING], "properties": {"x": 1}}, 'only "type" and "coordinates"'),
    ({"type": "Feature", "geometry": {"type": "Polygon", "coordinates": [RING]}}, "MultiPolygon"),
    ({"type": "Polygon", "coordinates": [RING[:-1]]}, "closed"),
    ({"type": "Polygon", "coordinates": [RING[:3]]}, "four positions"),
    ({"type": "Polygon", "coordinates": [[[-70.9 + i * 1e-5, 41.6 + (i % 2) * 1e-5] for i in range(5001)]
                                         + [[-70.9, 41.6]]]}, "5000 positions"),
    ({"type": "MultiPolygon", "coordinates": [[RING]] * 51}, "1 to 50 polygons"),
    ({"type": "MultiPolygon", "coordinates": [RING]}, "position"),
])
def test_limit_of_work_is_strict(client, factory, shape, words):
    user, headers = factory.as_role("applicant")
    body = assert_error(_create(client, factory, headers, limit_of_work=shape), 422, "validation_error")
    assert words in body["errors"]["site"]["limit_of_work"][0], body
    assert _permits(factory, user) == 0


# -- every free-text input has a maximum length ------------------------------------------------------
# Dict inputs whose content is checked elsewhere: the limit of work by its strict GeoJSON rule, sync
# data and conflict merges by the entity's own create/edit schema.
CHECKED_ELSEWHERE = {"limit_of_work", "data"}


def _bounded(field) -> bool:
    for rule in field.validators:
        if isinstance(rule, validate.Length) and rule.max is not None:
            return True
        if isinstance(rule, (validate.OneOf, validate.Equal)):
            return True
        if isinstance(rule, validate.Regexp) and "{" in rule.regex.pattern and rule.regex.pattern.endswith("$"):
            return True
    return False


def _unbounded(schema, path: str, out: list[str], seen: set) -> None:
    schema = schema() if isinstance(schema, type) else schema
    for name, field in schema.load_fields.items():
        _check(field, f"{path}.{name}", name, out, seen)


def _check(field, path, name, out, seen) -> None:
    if isinstance(field, fields.Nested):
        if type(field.schema).__name__ not in seen:
            seen.add(type(field.schema).__name__)
            _unbounded(field.schema, path, out, seen)
    elif isinstance(field, fields.List):
        _check(field.inner, path + "[]", name, out, seen)
    elif isinstance(field, fields.Dict):
        if name not in CHECKED_ELSEWHERE:
            out.append(path + " (free-form object)")
    elif isinstance(field, fields.String) and not _bounded(field):
        out.append(path)


def test_every_text_a_request_carries_has_a_maximum_length(app):
    out, schemas = [], 0
    for rule in app.url_map.iter_rules():
        view = app.view_functions[rule.endpoint]
        cls = getattr(view, "view_class", None)
        handlers = [getattr(cls, m.lower()) for m in sorted(rule.methods) if hasattr(cls, m.lower())] if cls else [view]
        for handler in handlers:
            for argument in getattr(handler, "_apidoc", {}).get("arguments", {}).get("parameters", []):
                schemas += 1
                _unbounded(argument["schema"], rule.rule, out, set())
    assert schemas > 60
    assert not out, "text inputs without a maximum length: " + ", ".join(sorted(set(out)))


def test_an_over_long_text_is_422(client, factory):
    user, headers = factory.as_role("applicant")
    body = assert_error(client.post(f"{API}/permits", json=factory.permit_payload(description="x" * 5001),
                                    headers=headers), 422, "validation_error")
    assert "description" in body["errors"]


# -- open drafts per applicant -------------------------------------------------------------------------
def test_open_draft_applications_per_applicant_are_capped(app, client, factory):
    app.config["MAX_OPEN_DRAFTS"] = 3
    user, headers = factory.as_role("applicant")
    made = [client.post(f"{API}/permits", json=factory.permit_payload(), headers=headers) for _ in range(3)]
    assert [r.status_code for r in made] == [201, 201, 201]
    body = assert_error(client.post(f"{API}/permits", json=factory.permit_payload(), headers=headers), 409,
                        "too_many_drafts")
    assert "limit is 3" in body["message"] and body["errors"] == {"drafts": [3], "limit": [3]}
    assert _permits(factory, user) == 3
    # resending a draft already made stays idempotent at the cap
    again = client.post(f"{API}/permits", json={**factory.permit_payload(), "id": made[0].get_json()["id"]},
                        headers=headers)
    assert again.status_code in (200, 409) and again.get_json().get("error") != "too_many_drafts"
    # another applicant is not affected, nor is this one once a draft is submitted
    _, other = factory.as_role("applicant")
    assert client.post(f"{API}/permits", json=factory.permit_payload(), headers=other).status_code == 201
    permit = made[0].get_json()
    r = client.post(f"{API}/permits/{permit['id']}/transitions", json={"to": "withdrawn"}, headers=headers)
    assert r.status_code == 200, r.get_json()
    assert client.post(f"{API}/permits", json=factory.permit_payload(), headers=headers).status_code == 201
    # a supervisor filing for the applicant meets the same cap
    _, supervisor = factory.as_role("supervisor")
    r = client.post(f"{API}/permits", json={**factory.permit_payload(), "applicant_id": user.id}, headers=supervisor)
    assert_error(r, 409, "too_many_drafts")
