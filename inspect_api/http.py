"""Request limits and response headers that apply to every route."""
from __future__ import annotations

from flask import Flask, request

from .errors import NotFound, ValidationFailed


TOKEN_ERRORS = {"invalid_token", "token_expired", "token_revoked", "fresh_token_required"}


def register_http_policies(app: Flask) -> None:
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
    def _limit_json_bodies():
        # Photos and documents stream with their own limits; everything else is JSON and small.
        # Flask enforces this while reading, so a chunked body without Content-Length is caught too.
        if request.mimetype == "application/json" or request.mimetype.endswith("+json"):
            request.max_content_length = app.config["MAX_JSON_BYTES"]
            if b"\\u0000" in request.get_data(cache=True):
                raise ValidationFailed("Text may not contain NUL characters.", errors={"json": ["Contains \\u0000."]})

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
