"""Request limits and response headers that apply to every route."""
from __future__ import annotations

from flask import Flask, request


def register_http_policies(app: Flask) -> None:
    @app.before_request
    def _limit_json_bodies():
        # Photos and documents stream with their own limits; everything else is JSON and small.
        # Flask enforces this while reading, so a chunked body without Content-Length is caught too.
        if request.mimetype == "application/json" or request.mimetype.endswith("+json"):
            request.max_content_length = app.config["MAX_JSON_BYTES"]

    @app.after_request
    def _headers(response):
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        if request.path.startswith("/api/"):
            response.headers.setdefault("Cache-Control", "no-store")
            response.headers.setdefault("X-Frame-Options", "DENY")
        return response
