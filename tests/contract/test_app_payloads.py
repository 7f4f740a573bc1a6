"""Strictness never refuses what the field app sends: the request bodies the app builds with its own
payload code (tests/js/payloads.js imports the builders of inspect_api/static/pwa/js) validate against
the request-body schema of the operation each is sent to, in the served document (JSON Schema 2020-12,
formats checked)."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import jsonschema
import pytest
from referencing import Registry
from referencing.jsonschema import DRAFT202012

API = "/api/v1"
SCRIPT = Path(__file__).resolve().parents[1] / "js" / "payloads.js"
# What each body is sent as: a create is the entity's POST, an edit its PATCH (sync applies both with
# the same schemas, sync/adapters.py), and the envelope is POST /sync/push.
OPERATIONS = {
    ("permit", "create"): ("post", "/permits"), ("permit", "edit"): ("patch", "/permits/{permit_id}"),
    ("inspection", "create"): ("post", "/inspections"), ("inspection", "edit"): ("patch", "/inspections/{record_id}"),
    ("sample", "create"): ("post", "/samples"), ("sample", "edit"): ("patch", "/samples/{sample_id}"),
    ("entry_authorization", "create"): ("post", "/entry-authorizations"),
    ("completion_notice", "create"): ("post", "/completion-notices"),
    ("completion_notice", "edit"): ("patch", "/completion-notices/{notice_id}"),
    ("inspection_request", "create"): ("post", "/inspection-requests"),
    ("photo_annotation", "create"): ("post", "/photo-annotations"),
    ("photo_annotation", "edit"): ("patch", "/photo-annotations/{annotation_id}"),
    ("sync", "push"): ("post", "/sync/push"),
}


@pytest.fixture(scope="module")
def payloads():
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the field app's payload builders cannot be run")
    done = subprocess.run([node, str(SCRIPT)], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _body_validator(spec, method, path):
    pointer = f"/paths/{(API + path).replace('~', '~0').replace('/', '~1')}/{method}"
    operation = spec["paths"][API + path][method]
    assert operation["requestBody"]["content"]["application/json"]["schema"], (method, path)
    registry = Registry().with_resource("urn:spec", DRAFT202012.create_resource(spec))
    schema = {"$ref": f"urn:spec#{pointer}/requestBody/content/application~1json/schema"}
    return jsonschema.Draft202012Validator(schema, registry=registry,
                                           format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)


def test_every_body_the_app_builds_is_one_the_document_allows(client, payloads):
    spec = client.get(f"{API}/openapi.json").get_json()
    seen = set()
    for payload in payloads:
        key = (payload["entity"], payload["kind"])
        method, path = OPERATIONS[key]
        seen.add(key)
        errors = sorted(_body_validator(spec, method, path).iter_errors(payload["body"]), key=str)
        assert not errors, f"{method.upper()} {path}: " + "; ".join(
            f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors[:5])
    assert seen == set(OPERATIONS)


def test_the_app_payloads_are_the_strict_kinds(payloads):
    # Checkboxes give booleans and number inputs numbers, never "true" or "1": what strict input takes.
    permits = [p["body"] for p in payloads if p["entity"] == "permit"]
    assert permits and all(isinstance(p["drains_to_ms4"], bool) and isinstance(p["drains_to_waters"], bool)
                           for p in permits)
    push = next(p["body"] for p in payloads if p["entity"] == "sync")
    assert all(m["base_version"] is None or type(m["base_version"]) is int for m in push["mutations"])
