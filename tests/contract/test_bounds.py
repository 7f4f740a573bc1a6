"""The document is as strict as the server, and no stricter (API.md "OpenAPI"): every published enum,
minimum, maximum, maxLength and pattern on an operation's query parameters and on the top-level
properties of its JSON request body is what the server enforces.

For each bound the walk sends one value just inside and one just outside it: outside is 422 naming the
parameter; inside, the server may refuse the request for another reason (a required field left out, a
record it does not know, the bylaw, a rule on the same field such as a password's strength), but
never with the objection the outside value met. Bodies carry the one property
alone, so only "the server objects to this property" is compared; nested objects, arrays and headers
are not walked. Each request goes as the first role that gets past the operation's role check, with
path parameters naming real records of the authorization world.
"""
from __future__ import annotations

import json
import re
from decimal import Decimal

import pytest
from hypothesis import find, strategies as st

from inspect_api.openapi import NO_NUL_PATTERN

from ..authorization_sweep_support import id_kind, sweep, sweep_app  # noqa: F401  (fixtures)

API = "/api/v1"
PARAM = re.compile(r"\{([^}]+)\}")
WHO = ("s", "i", "b", "admin")
METHODS = ("get", "post", "put", "patch", "delete")
# Operations whose body is not JSON or whose effect would end the walk's sessions.
SKIPPED = {("post", "/api/v1/auth/logout")}


def _resolve(spec: dict, schema: dict) -> dict:
    while "$ref" in schema:
        node = spec
        for part in schema["$ref"].lstrip("#/").split("/"):
            node = node[part]
        schema = node
    return schema


def _plain(spec: dict, schema: dict) -> dict:
    """The schema of a scalar (a nullable one's non-null branch); {} for anything else."""
    schema = _resolve(spec, schema)
    for key in ("anyOf", "oneOf"):
        if key in schema:
            branches = [_resolve(spec, s) for s in schema[key] if s.get("type") != "null"]
            schema = branches[0] if len(branches) == 1 else {}
    kind = schema.get("type")
    if isinstance(kind, list):
        kinds = [k for k in kind if k != "null"]
        kind = kinds[0] if len(kinds) == 1 else None
    return {**schema, "type": kind} if kind in ("string", "integer", "number") else {}


def _matching(pattern: str) -> str:
    return find(st.from_regex(pattern, fullmatch=True), lambda _v: True)


def _pairs(schema: dict) -> list[tuple[str, object, object]]:
    """(bound, a value just inside, a value just outside) for each bound the schema publishes."""
    kind, out = schema.get("type"), []
    number = (lambda v: v) if kind == "number" else int
    if "enum" in schema:
        values = [v for v in schema["enum"] if v is not None]
        if values and isinstance(values[0], str):
            out.append(("enum", values[0], "not-" + "-".join(map(str, values))))
    if "minimum" in schema and kind in ("integer", "number"):
        low = schema["minimum"]
        out.append(("minimum", number(low), number(low) - 1))
    if "maximum" in schema and kind in ("integer", "number"):
        high = schema["maximum"]
        out.append(("maximum", number(high), number(high) + 1))
    # The NUL pattern of free text is refused for the whole body (errors name `json`), not per field:
    # tests/contract/test_agreement.py checks it; its length bound is walked here instead.
    if "pattern" in schema and kind == "string" and schema["pattern"] != NO_NUL_PATTERN:
        inside = _matching(schema["pattern"])
        outside = next(v for v in ("~", "x~", "0.001", "-1") if not re.search(schema["pattern"], v))
        out.append(("pattern", inside, outside))
    elif "maxLength" in schema and kind == "string" and "format" not in schema and "enum" not in schema:
        n = schema["maxLength"]
        out.append(("maxLength", "a" * n, "a" * (n + 1)))
    return out


def _cases(spec: dict):
    for path, item in spec["paths"].items():
        for method in METHODS:
            operation = item.get(method)
            if operation is None or (method, path) in SKIPPED:
                continue
            for parameter in operation.get("parameters", []):
                if parameter.get("in") == "query":
                    for bound, inside, outside in _pairs(_plain(spec, parameter.get("schema", {}))):
                        yield method, path, "query", parameter["name"], bound, inside, outside
            body = (operation.get("requestBody") or {}).get("content", {}).get("application/json", {}).get("schema")
            if body:
                for name, prop in (_resolve(spec, body).get("properties") or {}).items():
                    scalar = _plain(spec, prop)
                    if scalar and not scalar.get("readOnly"):
                        for bound, inside, outside in _pairs(scalar):
                            yield method, path, "body", name, bound, inside, outside


def _url(path: str, world) -> str:
    rule = PARAM.sub(lambda m: f"<{m.group(1)}>", path[len(API):])

    def value(m):
        kind = id_kind(rule, m.group(1))
        return str(world.ids.get(kind, "00000000-0000-4000-8000-000000000000")) if kind else "1"
    return PARAM.sub(value, path)


def _send(sweep, method, url, where, name, value, who):
    headers = {**sweep.world.h[who], "Accept-Encoding": "identity"}
    if where == "query":
        return sweep.client.open(url, method=method.upper(), headers=headers,
                                 query_string={name: value if isinstance(value, str) else json.dumps(value)})
    return sweep.client.open(url, method=method.upper(), headers={**headers, "If-Match": "*"},
                             json={name: float(value) if isinstance(value, Decimal) else value})


def _names(response, name: str) -> bool:
    body = response.get_json(silent=True)
    errors = (body.get("errors") or {}) if isinstance(body, dict) else {}
    return response.status_code == 422 and name in errors


def _objection(response, name: str):
    return response.get_json()["errors"][name]


def test_published_bounds_are_the_enforced_ones(sweep):
    spec = sweep.client.get(f"{API}/openapi.json").get_json()
    cases = list(_cases(spec))
    assert len(cases) > 60, "the walk found too few published bounds to mean anything"
    disagreements, walked, unreachable = [], 0, []
    for method, path, where, name, bound, inside, outside in cases:
        url = _url(path, sweep.world)
        for who in WHO:
            refused = _send(sweep, method, url, where, name, outside, who)
            if refused.status_code not in (401, 403):
                break
        else:
            unreachable.append(f"{method.upper()} {path}")
            continue
        walked += 1
        accepted = _send(sweep, method, url, where, name, inside, who)
        label = f"{method.upper()} {path} {where} {name} {bound}"
        if not _names(refused, name):
            disagreements.append(f"{label}: {outside!r} answered {refused.status_code} "
                                 f"{refused.get_data(as_text=True)[:200]}")
        # Inside, the field may still break a rule of the domain (a password too plain, no inspector with
        # that id), never the bound itself: the outside value's objection must not come back.
        if accepted.status_code >= 500 or (_names(accepted, name) and _names(refused, name)
                                           and _objection(accepted, name) == _objection(refused, name)):
            disagreements.append(f"{label}: {inside!r} answered {accepted.status_code} "
                                 f"{accepted.get_data(as_text=True)[:200]}")
    print(f"\nbounds walked: {walked} of {len(cases)}; not reachable by any role: {sorted(set(unreachable))}")
    assert not disagreements, "\n".join(disagreements)
