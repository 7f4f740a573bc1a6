"""The OpenAPI document is valid and names every API route of the app; /api/v1/docs answers offline."""
import re

from openapi_spec_validator import validate

SKIP_ENDPOINTS = {"api-docs.openapi_json", "api_docs.docs"}


def _api_routes(app):
    for rule in app.url_map.iter_rules():
        if not rule.rule.startswith("/api/") or rule.endpoint in SKIP_ENDPOINTS or rule.endpoint.endswith("static"):
            continue
        path = re.sub(r"<(?:[^:<>]+:)?([^<>]+)>", r"{\1}", rule.rule)
        for method in rule.methods - {"HEAD", "OPTIONS"}:
            yield path, method.lower()


def test_openapi_validates_and_covers_every_route(client, app):
    r = client.get("/api/v1/openapi.json")
    assert r.status_code == 200
    spec = r.get_json()
    validate(spec)
    missing = sorted({(p, m) for p, m in _api_routes(app) if m not in spec["paths"].get(p, {})})
    assert not missing, f"routes missing from openapi.json: {missing}"
    for path, item in spec["paths"].items():
        for method, op in item.items():
            if method in ("get", "post", "put", "patch", "delete"):
                assert op.get("summary"), f"{method.upper()} {path} has no summary"


def test_permit_operations_are_documented(client):
    spec = client.get("/api/v1/openapi.json").get_json()
    for path in ("/api/v1/permits", "/api/v1/permits/{permit_id}", "/api/v1/permits/{permit_id}/transitions",
                 "/api/v1/determinations", "/api/v1/audit", "/api/v1/permits/{permit_id}/exemptions/{exemption_id}/decision"):
        assert path in spec["paths"], path
    permit = spec["components"]["schemas"]["Permit"]["properties"]
    assert {"site", "owner", "number", "status", "determination", "version", "applicant_id", "conditions", "phases",
            "exemptions", "documents", "assigned_inspector_ids", "cease_and_desist"} <= set(permit)


def test_docs_page_is_self_contained(client):
    r = client.get("/api/v1/docs")
    assert r.status_code == 200 and r.mimetype == "text/html"
    page = r.get_data(as_text=True)
    assert "/api/v1/permits/{permit_id}/transitions" in page and "<script" not in page
    assert "http://" not in page and "https://" not in page
    assert "default-src 'none'" in r.headers["Content-Security-Policy"]
