"""Machinery of the authorization sweep: the routes read from url_map, how each path parameter is
filled with one of applicant B's record ids (PATH_IDS), the valid requests for routes that parse a
body before looking a record up (BODIES), and a module-scoped app holding the World of
authorization_world.py.

The app is built exactly like conftest's `app` fixture (same schema, seeders and Factory) but once per
module: the sweep only reads B's records, and building them for each of ~800 cases would take minutes.
"""
from __future__ import annotations

import hashlib
import re
import uuid
from datetime import timedelta

import pytest

from inspect_api import config as app_config
from inspect_api import create_app

from .authorization_world import TUS, World, small_jpeg, small_pdf
from .conftest import fresh_app
from .factories import Factory

API = "/api/v1"
UNAUTHENTICATED = {"/auth/login", "/auth/register", "/auth/refresh", "/openapi.json", "/docs",
                   "/public/reports", "/public/reports/<reference>", "/public/permits", "/public/permits/<number>",
                   "/public/audit-seals"}
ERROR_KEYS = {"code", "status", "message", "error", "errors"}
# Accounts and devices are the admin's to manage (DOMAIN.md); every other parameterised route is record content.
ADMIN_MANAGES = ("/users/", "/devices/")

# (route prefix after /api/v1, parameter) -> key of World.ids. The longest matching prefix wins.
PATH_IDS = {
    ("/permits/", "permit_id"): "permit",
    ("/permits/<permit_id>/certificate", "permit_id"): "closed_permit",
    ("/permits/<permit_id>/exemptions/", "exemption_id"): "exemption",
    ("/permits/<permit_id>/conditions/", "condition_id"): "condition",
    ("/permits/<permit_id>/phases/", "phase_id"): "phase",
    ("/permits/<permit_id>/documents/", "document_id"): "permit_document",
    ("/permits/<permit_id>/assignments/", "inspector_id"): "inspector",
    ("/permits/<permit_id>/parties/", "party_id"): "party",
    ("/entry-authorizations/", "record_id"): "entry",
    ("/inspections/", "record_id"): "inspection",
    ("/inspections/", "inspection_id"): "inspection",
    ("/findings/", "record_id"): "finding",
    ("/inspection-requests/", "request_id"): "inspection_request",
    ("/samples/", "sample_id"): "sample",
    ("/photos/", "photo_id"): "photo",
    ("/photo-annotations/", "annotation_id"): "photo_annotation",
    ("/completion-notices/", "notice_id"): "notice",
    ("/final-reports/", "report_id"): "report",
    ("/final-reports/<report_id>/documents/", "document_id"): "report_document",
    ("/certificates/", "certificate_id"): "certificate",
    ("/bonds/", "bond_id"): "bond",
    ("/orders/", "order_id"): "order",
    ("/cost-recoveries/", "record_id"): "cost_recovery",
    ("/cost-recoveries/<record_id>/lien-certificates/", "certificate_id"): "lien_certificate",
    ("/cost-recoveries/<record_id>/notices/", "notice_id"): "cost_notice",
    ("/notifications/", "notification_id"): "notification",
    ("/violations/", "violation_id"): "violation",
    ("/citations/", "citation_id"): "citation",
    ("/sync/conflicts/", "conflict_id"): "conflict",
    ("/devices/", "device_id"): "device",
    ("/uploads/", "upload_id"): "upload",
    ("/users/", "user_id"): "user",
    ("/checklist-templates/", "key"): "template_key",
    ("/checklist-templates/<key>/versions/", "version"): "template_version",
    ("/public-reports/", "report_id"): "public_report",
    ("/public-reports/", "photo_id"): "public_report_photo",
}


def _jpeg_put(ids):
    data = small_jpeg()
    return {"data": data, "query_string": {"permit_id": ids["permit"]},
            "headers": {"Content-Type": "image/jpeg", "X-Content-SHA256": hashlib.sha256(data).hexdigest()}}


# Valid requests for routes whose arguments are parsed before the record is looked up.
BODIES = {
    ("PATCH", "/permits/<permit_id>"): lambda ids: {"json": {"description": "probe", "version": 1}},
    ("POST", "/permits/<permit_id>/transitions"): lambda ids: {"json": {"to": "withdrawn"}},
    ("POST", "/permits/<permit_id>/exemptions"): lambda ids: {"json": {"kind": "B2", "statement": "probe"}},
    ("PATCH", "/permits/<permit_id>/exemptions/<exemption_id>"): lambda ids: {"json": {"statement": "p", "version": 1}},
    ("POST", "/permits/<permit_id>/phases"): lambda ids: {"json": {"name": "probe"}},
    ("PATCH", "/permits/<permit_id>/phases/<phase_id>"): lambda ids: {"json": {"name": "probe", "version": 1}},
    ("POST", "/permits/<permit_id>/documents"): lambda ids: {"json": {"kind": "other", "filename": "probe.pdf"}},
    ("PATCH", "/completion-notices/<notice_id>"): lambda ids: {"json": {"statement": "probe", "version": 1}},
    ("PATCH", "/final-reports/<report_id>"): lambda ids: {"json": {"om_statement": "probe", "version": 1}},
    ("POST", "/permits/<permit_id>/document-files"): lambda ids: {
        "data": small_pdf(), "query_string": {"kind": "esc_plan"}, "headers": {"Content-Type": "application/pdf"}},
    ("POST", "/final-reports/<report_id>/documents"): lambda ids: {
        "data": small_pdf(), "query_string": {"kind": "other"}, "headers": {"Content-Type": "application/pdf"}},
    ("POST", "/orders/<order_id>/responses"): lambda ids: {"json": {"note": "probe"}},
    ("POST", "/cost-recoveries/<record_id>/protest"): lambda ids: {"json": {"text": "probe"}},
    ("POST", "/sync/conflicts/<conflict_id>/resolve"): lambda ids: {"json": {"resolution": "keep_server"}},
    ("PUT", "/photos/<photo_id>"): _jpeg_put,
    ("PATCH", "/photo-annotations/<annotation_id>"): lambda ids: {"json": {"shapes": [], "version": 1}},
    ("PATCH", "/uploads/<upload_id>"): lambda ids: {
        "data": b"\xff\xd8\xff", "headers": {"Content-Type": "application/offset+octet-stream", "Upload-Offset": "0"}},
}
# The tus protocol answers 412 to any request without Tus-Resumable (before authentication); the
# sweep speaks tus on those routes so it tests the authorization behind that protocol check.
PROTOCOL_HEADERS = {"/uploads": TUS}


# -- the routes, from url_map -------------------------------------------------------------------------
def _routes() -> list[tuple[str, str, tuple[str, ...]]]:
    app = create_app(app_config.TestConfig(SQLALCHEMY_DATABASE_URI="sqlite://"))
    found = []
    for rule in app.url_map.iter_rules():
        path = rule.rule[len(API):]
        if not rule.rule.startswith(API + "/") or path in UNAUTHENTICATED:
            continue
        methods = set(rule.methods) - {"OPTIONS"}
        if "GET" in methods:
            methods.discard("HEAD")  # Flask adds HEAD to every GET; an explicit HEAD (tus) stays
        found += [(method, path, tuple(sorted(rule.arguments))) for method in sorted(methods)]
    return sorted(found, key=lambda r: (r[1], r[0]))


ROUTES = _routes()
ITEM_ROUTES = [r for r in ROUTES if r[2]]
LIST_ROUTES = [r for r in ROUTES if not r[2] and r[0] == "GET"]
PARAM = re.compile(r"<(?:[a-z]+:)?(\w+)>")


def id_kind(path: str, name: str) -> str | None:
    matches = [(len(prefix), kind) for (prefix, param), kind in PATH_IDS.items()
               if param == name and path.startswith(prefix)]
    return max(matches)[1] if matches else None


def fill(path: str, values) -> str:
    return API + PARAM.sub(lambda m: str(values(m.group(1))), path)


# -- app, world and requests ------------------------------------------------------------------------
class Sweep:
    """Sends one route's request as a member of the cast, with the request BODIES holds for it."""

    def __init__(self, app, client, world: World) -> None:
        self.app, self.client, self.world = app, client, world

    def request(self, who: str, method: str, path: str, url: str):
        spec = BODIES.get((method, path), lambda ids: {"json": {}} if method in ("POST", "PUT", "PATCH") else {})
        kwargs = spec(self.world.ids)
        headers = {**next((h for p, h in PROTOCOL_HEADERS.items() if path.startswith(p)), {}),
                   **kwargs.pop("headers", {})}
        headers.update(self.world.h[who])
        return self.client.open(url, method=method, headers=headers, **kwargs)

    def b_url(self, path: str) -> str:
        def value(name: str) -> str:
            kind = id_kind(path, name)
            if kind is None or kind not in self.world.ids:
                pytest.fail(f"{path}: path parameter <{name}> is not in PATH_IDS (or the world has no such record); "
                            "map it to a record of applicant B so the sweep can check this route")
            return self.world.ids[kind]
        return fill(path, value)


def stranger_url(path: str) -> str:
    return fill(path, lambda name: 987654 if name == "version" else uuid.uuid4())


@pytest.fixture(scope="module")
def sweep_app(_schema, tmp_path_factory):
    folder = tmp_path_factory.mktemp("sweep")
    # Tokens outlive the module's run (the default 15 minutes could lapse on a slow, shared machine).
    config = app_config.TestConfig(SQLALCHEMY_DATABASE_URI=_schema, STORAGE_URL=(folder / "blobs").as_uri(),
                                   UPLOAD_TEMP_DIR=str(folder / "upload-tmp"),
                                   JWT_ACCESS_TOKEN_EXPIRES=timedelta(hours=2))
    with fresh_app(config) as app:
        yield app


@pytest.fixture(scope="module")
def sweep(sweep_app):
    client = sweep_app.test_client()
    world = World(client, Factory(sweep_app, client)).build()
    return Sweep(sweep_app, client, world)


def assert_error(response, code: int | tuple[int, ...]) -> dict:
    codes = code if isinstance(code, tuple) else (code,)
    body = response.get_json(silent=True)
    assert response.status_code in codes, (response.status_code, response.get_data(as_text=True)[:400])
    if response.request.method == "HEAD":  # no body by definition (RFC 9110)
        return {}
    assert isinstance(body, dict) and set(body) == ERROR_KEYS, body
    assert body["code"] == response.status_code and isinstance(body["message"], str) and body["message"], body
    assert isinstance(body["error"], str) and isinstance(body["errors"], dict), body
    return body
