"""Every response the API tests receive is checked against the published OpenAPI document, so a
drift between the server and the document fails the test that met it.

`ContractClient` is Flask's test client with one addition: after each request to /api/v1 it finds the
documented operation and checks the status code is documented, the content type is the documented
one, and a JSON body validates against the documented schema (JSON Schema 2020-12, as OpenAPI 3.1 is).
"""
from __future__ import annotations

import gzip
import json
import re
from functools import lru_cache
from typing import Any

import jsonschema
from flask.testing import FlaskClient
from referencing import Registry
from referencing.jsonschema import DRAFT202012

API_PREFIX = "/api/v1/"
UNDOCUMENTED = {"/api/v1/openapi.json", "/api/v1/docs"}


class ContractDrift(AssertionError):
    pass


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


class Contract:
    def __init__(self, spec: dict[str, Any]) -> None:
        self.spec = spec
        self.registry = Registry().with_resource("urn:spec", DRAFT202012.create_resource(spec))
        self.routes = []
        for template, item in spec["paths"].items():
            pattern = "^" + re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(template)) + "$"
            # The most literal template wins: /permits/mine before /permits/{id}, /orders/{id}.pdf
            # before /orders/{id}.
            literal = len(re.sub(r"\{[^/]+?\}", "", template))
            self.routes.append(((template.count("{"), -literal), re.compile(pattern), template))
        self.routes.sort(key=lambda route: route[0])

    def operation(self, method: str, path: str) -> tuple[str, dict] | None:
        """The JSON pointer and object of the operation serving this request."""
        for _, pattern, template in self.routes:
            if pattern.match(path):
                operation = self.spec["paths"][template].get(method.lower())
                return (f"/paths/{_escape(template)}/{method.lower()}", operation) if operation else None
        return None

    def check(self, method: str, path: str, response) -> None:
        if not path.startswith(API_PREFIX) or path in UNDOCUMENTED or method in ("HEAD", "OPTIONS"):
            return
        found = self.operation(method, path)
        if found is None:
            return  # an unknown path or method: the server's 404/405 is checked by the error tests
        pointer, operation = found
        where = f"{method} {path} -> {response.status_code}"
        responses = operation.get("responses", {})
        code = str(response.status_code)
        key = next((k for k in (code, f"{code[0]}XX", "default") if k in responses), None)
        if key is None:
            raise ContractDrift(f"{where}: status not documented (documented: {sorted(responses)})")
        pointer, documented = f"{pointer}/responses/{key}", responses[key]
        if "$ref" in documented:
            pointer = documented["$ref"][1:]
            documented = self.registry.resolver().lookup("urn:spec#" + pointer).contents
        content = documented.get("content") or {}
        if not content or not response.get_data():
            return
        mimetype = response.mimetype
        kind = mimetype if mimetype in content else next((k for k in content if self._matches(k, mimetype)), None)
        if kind is None:
            raise ContractDrift(f"{where}: content type {mimetype!r} not documented ({sorted(content)})")
        if (mimetype != "application/json" and not mimetype.endswith("+json")) or "schema" not in content[kind]:
            return
        schema = {"$ref": f"urn:spec#{pointer}/content/{_escape(kind)}/schema"}
        validator = jsonschema.Draft202012Validator(schema, registry=self.registry)
        data = response.get_data()
        if response.headers.get("Content-Encoding") == "gzip":
            data = gzip.decompress(data)
        error = jsonschema.exceptions.best_match(validator.iter_errors(json.loads(data)))
        if error is not None:
            raise ContractDrift(f"{where}: body does not match the document at {error.json_path}: {error.message}")

    @staticmethod
    def _matches(kind: str, mimetype: str) -> bool:
        major, _, minor = kind.partition("/")
        return kind == "*/*" or (minor == "*" and mimetype.startswith(major + "/"))


@lru_cache(maxsize=4)
def _contract(spec_text: str) -> Contract:
    return Contract(json.loads(spec_text))


class ContractClient(FlaskClient):
    """The test client; every /api/v1 answer is held to the OpenAPI document."""

    def open(self, *args, **kwargs):
        response = super().open(*args, **kwargs)
        request = getattr(response, "request", None)
        if request is not None:
            contract = contract_of(self.application)
            contract.check(request.method, request.path, response)
        return response


def contract_of(app) -> Contract:
    cached = app.extensions.get("openapi_contract")
    if cached is None:
        spec_text = FlaskClient(app).get("/api/v1/openapi.json").get_data(as_text=True)  # not gzip: no Accept-Encoding
        cached = app.extensions["openapi_contract"] = _contract(spec_text)
    return cached
