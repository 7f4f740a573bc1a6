"""Every operation of the served document has an operationId that is unique, readable and stable,
and sits under a declared tag. Generators name a client's methods after the operationId and its
modules after the first tag, so renaming either breaks every client generated before."""
from __future__ import annotations

import os
import re
from pathlib import Path

from inspect_api.openapi import OPERATION_IDS, PREFIX

API = "/api/v1"
METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
SNAPSHOT = Path(__file__).with_name("operation_ids.txt")
UPDATE = "UPDATE_OPERATION_IDS"
CAMEL_CASE = re.compile(r"^[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)*$")


def _operations(spec):
    return [(method.upper(), path, operation) for path, item in spec["paths"].items()
            for method, operation in item.items() if method in METHODS]


def _snapshot_lines(spec):
    return [f"{method} {path} -> {op['operationId']} [{', '.join(op['tags'])}]"
            for method, path, op in sorted(_operations(spec), key=lambda o: (o[1], o[0]))]


def test_every_operation_has_a_unique_readable_operation_id(client):
    spec = client.get(f"{API}/openapi.json").get_json()
    operations = _operations(spec)
    assert len(operations) >= 160
    missing = [f"{method} {path}" for method, path, op in operations if not op.get("operationId")]
    assert missing == []
    ids = [op["operationId"] for _, _, op in operations]
    assert sorted({i for i in ids if ids.count(i) > 1}) == []
    assert [i for i in ids if not CAMEL_CASE.match(i)] == []
    # Not a name a generator would make up from the path (post_api_v1_auth_login).
    assert [i for i in ids if i.lower().startswith(("api", "getapi", "postapi")) or "V1" in i] == []
    assert {(m, p[len(PREFIX):]) for m, p, _ in operations} == set(OPERATION_IDS), \
        "OPERATION_IDS names an operation the app does not serve"


def test_every_tag_is_declared_with_a_description(client):
    spec = client.get(f"{API}/openapi.json").get_json()
    declared = {tag["name"]: tag.get("description") for tag in spec["tags"]}
    used = {tag for _, _, op in _operations(spec) for tag in op["tags"]}
    assert [f"{method} {path}" for method, path, op in _operations(spec) if not op.get("tags")] == []
    assert sorted(used - set(declared)) == []
    assert sorted(name for name, description in declared.items() if not description) == []
    assert sorted(set(declared) - used) == []


def test_operation_ids_and_tags_match_the_snapshot(client):
    spec = client.get(f"{API}/openapi.json").get_json()
    lines = _snapshot_lines(spec)
    if os.environ.get(UPDATE):
        SNAPSHOT.write_text("\n".join(lines) + "\n")
    kept = SNAPSHOT.read_text().splitlines()
    gone, new = sorted(set(kept) - set(lines)), sorted(set(lines) - set(kept))
    assert not gone and not new, (
        "The operationIds or tags of the document changed. Renaming an operationId or a tag renames "
        "the method or module of every client generated from the document, and breaks every such "
        "client. If the change is deliberate (a new operation, or a rename announced to integrators), "
        f"update the snapshot with `{UPDATE}=1 .venv/bin/python -m pytest tests/contract/test_operation_ids.py` "
        f"and commit tests/contract/{SNAPSHOT.name}.\n"
        f"In the snapshot, not served: {gone}\nServed, not in the snapshot: {new}")
