"""Request limits, response headers and request-body parsing that apply to every route."""
from __future__ import annotations

import json
import re
from array import array
from itertools import accumulate

from typing import Any, Callable

import flask_smorest
from flask import Flask, current_app, request
from marshmallow.utils import missing
from webargs.flaskparser import FlaskParser

from .errors import ApiError, NotFound, UnsupportedMediaType, ValidationFailed

# --- request bodies: PATCH of a record sent back as GET gave it --------------------------------------
# A schema checks shape only. Whether a PATCH body is a record sent back with its read-only fields
# (API.md "Sync") is settled against the stored record before the schema loads it, by the settler
# the owner of that round trip (sync) registers for the update schema at start-up.
_PATCH_SETTLERS: dict[type, Callable[[Any, Any], Any]] = {}


def settle_patch_body(schema_type: type, settle: Callable[[Any, Any], Any]) -> None:
    """Pass every PATCH JSON body loaded with `schema_type` through `settle(schema, data)` first."""
    _PATCH_SETTLERS[schema_type] = settle


class _Parser(FlaskParser):
    def load_json(self, req, schema):
        data = super().load_json(req, schema)
        # The document marks every PATCH body required: a PATCH that sends nothing changes nothing,
        # and answering 200 would tell the client its edit was saved.
        if data is missing and req.method == "PATCH":
            raise ValidationFailed("A PATCH needs a JSON body: the fields to change.",
                                   errors={"json": ["Send the fields to change as a JSON object."]})
        return data

    def pre_load(self, location_data, *, schema, req, location):
        settle = _PATCH_SETTLERS.get(type(schema)) if location == "json" and req.method == "PATCH" else None
        return settle(schema, location_data) if settle is not None else location_data


class Blueprint(flask_smorest.Blueprint):
    """The app's blueprints: flask-smorest's, with the request parser above. The document groups
    their operations by domain (openapi.TAGS), not by blueprint."""

    ARGUMENTS_PARSER = _Parser()


# A JSON string, escapes included (possessive, so an unterminated one costs one linear pass).
_JSON_STRING = re.compile(rb'"(?:[^"\\]++|\\.)*+"', re.S)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
# Opening brackets become +1 and closing ones -1 when the bytes are read as signed chars.
_SIGNED = bytes.maketrans(b"[]{}", b"\x01\xff\x01\xff")


def json_depth(data: bytes) -> int:
    """How deeply the JSON text `data` nests arrays and objects, without parsing it (a parser
    recurses once per level and fails far below what a 5 MB body can hold)."""
    if data.count(b"[") + data.count(b"{") <= 1:
        return data.count(b"[") + data.count(b"{")
    steps = _JSON_STRING.sub(b"", data).translate(None, _NOT_BRACKETS).translate(_SIGNED)
    return max(accumulate(array("b", steps)), default=0)


def _lone_surrogate_at(value) -> str | None:
    """The path of the first text (key or value) holding a lone UTF-16 surrogate ("\\ud800"), which
    JSON can escape but no database can store; walked without recursion."""
    stack = [("", value)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return path or "json"
        elif isinstance(item, dict):
            for key, child in item.items():
                stack.append((f"{path}.{key}" if path else str(key), key))
                stack.append((f"{path}.{key}" if path else str(key), child))
        elif isinstance(item, list):
            stack.extend((f"{path}[{i}]", child) for i, child in enumerate(item))
    return None


# Photos and documents are evidence only some accounts may see: a browser may keep a copy, but must
# ask again (a conditional GET on the ETag, answered 304 while the bytes are unchanged) before
# showing it, so after sign-out, or when access ends, the cached copy is not shown to anyone.
PRIVATE_FILE_CACHE = "private, no-cache"


def public_url(path: str) -> str:
    """An absolute URL for `path` on PUBLIC_BASE_URL, or `path` itself (a relative reference, which
    tus and RFC 9110 allow in Location). Never built from the request's Host: behind a proxy that
    passes any Host through, an echoed one would send a client's next bytes to whoever named it."""
    base = current_app.config.get("PUBLIC_BASE_URL")
    return base.rstrip("/") + path if base else path



def _is_json(mimetype: str) -> bool:
    return mimetype == "application/json" or mimetype.endswith("+json")


def _has_body() -> bool:
    return bool(request.content_length) or request.headers.get("Transfer-Encoding", "").lower() == "chunked"


def _takes_json(view) -> bool:
    """True when the operation reads a JSON body (a flask-smorest `arguments` in the json location)."""
    if view is None:
        return False
    func = getattr(getattr(view, "view_class", None), request.method.lower(), None) or view
    parameters = getattr(func, "_apidoc", {}).get("arguments", {}).get("parameters", [])
    return any(p.get("in") == "json" for p in parameters)


class MethodOverride:
    """tus 1.0 core: a server MUST honour X-HTTP-Method-Override, for clients whose platform can only send
    GET and POST (tus-js-client `overridePatchMethod`). Only POSTs to the upload resources are rewritten."""

    METHODS = {"PATCH", "DELETE", "HEAD"}

    def __init__(self, wsgi_app, prefix: str) -> None:
        self.wsgi_app, self.prefix = wsgi_app, prefix

    def __call__(self, environ, start_response):
        override = environ.get("HTTP_X_HTTP_METHOD_OVERRIDE", "").strip().upper()
        if (override in self.METHODS and environ.get("REQUEST_METHOD") == "POST"
                and environ.get("PATH_INFO", "").startswith(self.prefix)):
            environ["REQUEST_METHOD"] = override
        return self.wsgi_app(environ, start_response)


TOKEN_ERRORS = {"invalid_token", "token_expired", "token_revoked", "fresh_token_required"}


def register_http_policies(app: Flask) -> None:
    app.wsgi_app = MethodOverride(app.wsgi_app, "/api/v1/uploads/")
    @app.before_request
    def _refuse_nul():
        # No identifier or text here may hold NUL; PostgreSQL cannot even compare against one.
        if "\x00" in request.path:
            raise NotFound("No such resource.")
        bad = sorted({key for key, value in request.args.items(multi=True) if "\x00" in key or "\x00" in value})
        if bad:
            raise ValidationFailed("Query values may not contain NUL characters.",
                                   errors={key: ["Contains a NUL character."] for key in bad})

    @app.before_request
    def _json_means_json():
        # A body the operation reads as JSON, sent under another type, would otherwise be ignored and
        # answered with a list of "missing" fields; say what is wrong instead (RFC 9110 15.5.16).
        if request.method in ("POST", "PUT", "PATCH") and _has_body() and not _is_json(request.mimetype):
            if _takes_json(app.view_functions.get(request.endpoint)):
                raise UnsupportedMediaType(f"Send this body as application/json, not {request.mimetype or 'untyped'}.",
                                           errors={"Content-Type": ["Must be application/json."]})

    @app.before_request
    def _limit_json_bodies():
        # Photos and documents stream with their own limits; everything else is JSON and small.
        # Flask enforces this while reading, so a chunked body without Content-Length is caught too.
        if request.mimetype == "application/json" or request.mimetype.endswith("+json"):
            request.max_content_length = app.config["MAX_JSON_BYTES"]
            data = request.get_data(cache=True)
            if b"\\u0000" in data:
                raise ValidationFailed("Text may not contain NUL characters.", errors={"json": ["Contains \\u0000."]})
            limit = app.config["MAX_JSON_DEPTH"]
            if json_depth(data) > limit:
                raise ApiError(f"The JSON body nests deeper than {limit} levels.", error="json_too_deep",
                               errors={"json": [f"Nested deeper than {limit} levels."]})
            if b"\\u" in data:  # a surrogate can only arrive escaped: raw UTF-8 cannot encode one
                try:
                    parsed = json.loads(data)
                except (ValueError, RecursionError):
                    return  # not JSON: the route's own parsing answers 400
                where = _lone_surrogate_at(parsed)
                if where:
                    raise ValidationFailed("Text may not contain a lone UTF-16 surrogate (such as \\ud800).",
                                           errors={where: ["Contains a lone surrogate."]})

    @app.after_request
    def _record_etag(response):
        # A record answers its version as a weak entity tag (API.md: If-Match takes it back); lists,
        # whose JSON is an array, carry none.
        if (request.path.startswith("/api/") and response.status_code in (200, 201) and response.is_json
                and "ETag" not in response.headers and not response.direct_passthrough
                and response.get_data()[:1] == b"{"):  # a list is not read back
            body = response.get_json(silent=True)
            if isinstance(body, dict) and isinstance(body.get("version"), int) and "id" in body:
                response.headers["ETag"] = f'W/"{body["version"]}"'
        return response

    @app.after_request
    def _no_type_without_content(response):
        # 204 and an empty OPTIONS answer have no body, so no media type to announce.
        if response.status_code in (204, 304) or (request.method == "OPTIONS" and not response.direct_passthrough
                                                  and response.calculate_content_length() == 0):
            response.headers.pop("Content-Type", None)
        return response

    @app.after_request
    def _bearer_challenge(response):
        # RFC 6750 section 3 / RFC 9110: every 401 names the scheme; a token that was sent but is no good
        # says invalid_token, so a client library knows to refresh rather than to ask for credentials.
        if response.status_code == 401 and "WWW-Authenticate" not in response.headers:
            body = response.get_json(silent=True) or {}
            if body.get("error") in TOKEN_ERRORS:
                message = str(body.get("message", "")).replace("\\", "").replace('"', "'")
                response.headers["WWW-Authenticate"] = (f'Bearer realm="inspect-api", error="invalid_token", '
                                                        f'error_description="{message}"')
            else:
                response.headers["WWW-Authenticate"] = 'Bearer realm="inspect-api"'
        return response

    @app.after_request
    def _headers(response):
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        if request.path.startswith("/api/"):
            response.headers.setdefault("Cache-Control", "no-store")
            response.headers.setdefault("X-Frame-Options", "DENY")
        return response
