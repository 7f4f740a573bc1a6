"""`OPTIONS` and `Allow` name exactly what a route takes: the methods the document lists for its path,
plus OPTIONS (always answered) and HEAD wherever GET is (Flask answers HEAD for every GET). A path
that looks like another route's (/inspections/due beside /inspections/{id}, /orders/{id}.pdf beside
/orders/{id}) is served by its own route alone, and another method there is 405."""
from __future__ import annotations

import re
import uuid

import pytest

API = "/api/v1"
METHODS = ("get", "put", "post", "delete", "options", "head", "patch")


def _url(path: str, item: dict) -> str:
    """The path with a value of the right type for each path parameter (an unknown id)."""
    kinds = {p["name"]: p.get("schema", {}).get("type") for p in item.get("parameters", []) if p["in"] == "path"}
    return re.sub(r"\{([^}]+)\}", lambda m: "1" if kinds.get(m.group(1)) == "integer" else str(uuid.uuid4()), path)


def _allow(response) -> set[str]:
    return {method.strip() for method in response.headers.get("Allow", "").split(",") if method.strip()}


def _expected(item: dict) -> set[str]:
    documented = {method.upper() for method in item if method in METHODS}
    return documented | {"OPTIONS"} | ({"HEAD"} if "GET" in documented else set())


def test_options_answers_the_documented_methods_of_every_path(client):
    spec = client.get(f"{API}/openapi.json").get_json()
    wrong = {}
    for path, item in spec["paths"].items():
        response = client.options(_url(path, item))
        if response.status_code not in (200, 204) or _allow(response) != _expected(item):
            wrong[path] = (response.status_code, sorted(_allow(response)), sorted(_expected(item)))
    assert len(spec["paths"]) > 100
    assert wrong == {}


@pytest.mark.parametrize("path, method", [
    ("/inspections/program-settings", "PATCH"), ("/inspections/due", "DELETE"),
    ("/orders/{id}.pdf", "PATCH"), ("/citations/{id}.pdf", "PATCH")])
def test_a_method_the_route_does_not_take_is_405_naming_its_own_methods(client, factory, path, method):
    _, headers = factory.as_role("supervisor")
    response = client.open(f"{API}{path.format(id=uuid.uuid4())}", method=method, json={"version": 1},
                           headers=headers)
    assert response.status_code == 405, response.get_json()
    assert response.get_json()["error"] == "method_not_allowed"
    assert _allow(response) == {"GET", "HEAD", "OPTIONS"}


def test_the_record_routes_still_serve_their_records(client, factory):
    _, headers = factory.as_role("supervisor")
    response = client.get(f"{API}/inspections/program-settings", headers=headers)
    assert response.status_code == 200 and response.get_json()["routine_days"] == 14
    missing = uuid.uuid4()
    for url in (f"{API}/orders/{missing}", f"{API}/orders/{missing}.pdf", f"{API}/citations/{missing}.pdf",
                f"{API}/inspections/{missing}", f"{API}/inspections/{str(missing).upper()}",
                f"{API}/inspections/not-a-uuid"):
        response = client.get(url, headers=headers)
        assert response.status_code == 404 and response.get_json()["error"] == "not_found", url
