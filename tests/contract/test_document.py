"""The published OpenAPI document says what the server does: the real error shape, public operations
without a bearer token, RFC 6750 challenges on 401, nullable objects that still validate, and the
bounds, enums and patterns the server enforces."""
from __future__ import annotations

import re
import uuid

import jsonschema
import pytest
from referencing import Registry
from referencing.jsonschema import DRAFT202012

API = "/api/v1"


@pytest.fixture
def spec(client):
    return client.get(f"{API}/openapi.json").get_json()


def _validator(spec, name):
    """A JSON Schema validator for one component, resolving $refs inside the document (3.1 dialect)."""
    registry = Registry().with_resource("urn:spec", DRAFT202012.create_resource(spec))
    return jsonschema.Draft202012Validator({"$ref": f"urn:spec#/components/schemas/{name}"}, registry=registry)


def test_document_is_openapi_3_1(spec):
    # 3.1 is JSON Schema: a nullable object is anyOf [$ref, {"type": "null"}] and nothing else slips through.
    assert spec["openapi"].startswith("3.1")


def test_error_schema_is_the_one_error_shape(client, spec):
    error = spec["components"]["schemas"]["Error"]
    assert set(error["properties"]) == {"code", "status", "message", "error", "errors"}
    assert set(error["required"]) == {"code", "status", "message", "error", "errors"}
    body = client.get(f"{API}/permits/{uuid.uuid4()}").get_json()  # 401
    _validator(spec, "Error").validate(body)


def test_real_error_bodies_validate(client, factory, spec):
    _, headers = factory.as_role("applicant")
    validator = _validator(spec, "Error")
    for response in (client.get(f"{API}/permits/{uuid.uuid4()}", headers=headers),          # 404
                     client.post(f"{API}/permits", json={"site": 1}, headers=headers),        # 422
                     client.get(f"{API}/users", headers=headers),                             # 403
                     client.get(f"{API}/permits")):                                           # 401
        assert response.status_code >= 400
        validator.validate(response.get_json())


def test_public_operations_need_no_bearer_token(spec):
    paths = spec["paths"]
    for path in ("/auth/login", "/auth/register"):
        assert paths[f"{API}{path}"]["post"]["security"] == [], path
    assert paths[f"{API}/auth/refresh"]["post"]["security"] == [{"refreshToken": []}]
    assert spec["components"]["securitySchemes"]["refreshToken"]["scheme"] == "bearer"
    assert spec["security"] == [{"bearerAuth": []}]
    assert "security" not in paths[f"{API}/permits"]["get"]  # the global default: bearerAuth


def test_401_carries_a_bearer_challenge(client):
    r = client.get(f"{API}/permits")
    assert r.status_code == 401 and r.headers["WWW-Authenticate"].startswith("Bearer")
    r = client.get(f"{API}/permits", headers={"Authorization": "Bearer not-a-token"})
    assert r.status_code == 401
    assert r.headers["WWW-Authenticate"].startswith('Bearer realm="inspect-api", error="invalid_token"')
    r = client.post(f"{API}/auth/login", json={"email": "nobody@example.org", "password": "wrong password x"})
    assert r.status_code == 401 and r.headers["WWW-Authenticate"].startswith("Bearer")


def test_tus_checks_the_token_before_tus_resumable(client):
    r = client.post(f"{API}/uploads", headers={"Upload-Length": "10"})
    assert r.status_code == 401 and r.get_json()["error"] == "unauthorized"
    assert r.headers["WWW-Authenticate"].startswith("Bearer")


def test_no_nullable_object_accepts_anything(spec):
    loose = {"type": "object", "nullable": True}

    def walk(node, where):
        if isinstance(node, dict):
            for key in ("anyOf", "oneOf"):
                assert loose not in node.get(key, []), where
            assert "nullable" not in node, where  # not a 3.1 keyword
            for key, value in node.items():
                walk(value, f"{where}/{key}")
        elif isinstance(node, list):
            for i, value in enumerate(node):
                walk(value, f"{where}/{i}")

    walk(spec, "#")
    inspection = _validator(spec, "Inspection")
    inspection.validate({"location": None, "weather": None, "checklist": None})
    for bad in ({"location": {"x": 1}}, {"weather": "rainy"}, {"checklist": {"items": "none"}}):
        with pytest.raises(jsonschema.ValidationError):
            inspection.validate(bad)
    with pytest.raises(jsonschema.ValidationError):
        _validator(spec, "Sample").validate({"location": {"lat": "north"}})


def _query(spec, path, name):
    return next(p for p in spec["paths"][f"{API}{path}"]["get"]["parameters"] if p["name"] == name)


def test_document_publishes_what_the_server_enforces(spec):
    status = _query(spec, "/permits", "status")["schema"]
    assert status.get("pattern"), status  # one status or several separated by commas, each a known one
    assert re.fullmatch(status["pattern"], "issued,active") and not re.fullmatch(status["pattern"], "issued,bogus")
    audit = spec["paths"][f"{API}/audit"]["get"]
    assert "record_id" in audit["description"] and "permit_id" in audit["description"]
    tus = [p for p in spec["paths"][f"{API}/uploads"]["post"]["parameters"] if p["name"] == "Tus-Resumable"][0]
    assert tus["schema"] == {"type": "string", "enum": ["1.0.0"]}
