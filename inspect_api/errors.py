"""The one error shape of API.md, and the domain exceptions that map onto it.

Every non-2xx answer is {"code", "status", "message", "error", "errors"}. Services raise ApiError
subclasses; framework, validation and JWT errors are translated here so clients parse one shape.
"""
from __future__ import annotations

import logging
from http import HTTPStatus
from typing import Any

from flask import Flask, jsonify
from sqlalchemy.exc import DataError
from werkzeug.exceptions import HTTPException

log = logging.getLogger(__name__)

DEFAULT_KEYS = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    408: "request_timeout",
    409: "conflict",
    410: "gone",
    412: "precondition_failed",
    413: "payload_too_large",
    415: "unsupported_media_type",
    422: "validation_error",
    428: "precondition_required",
    429: "too_many_requests",
    500: "internal_error",
    503: "service_unavailable",
}


class ApiError(Exception):
    code = 400
    error = "bad_request"
    default_message = "The request could not be processed."
    retry_after: int | None = None  # seconds, sent as Retry-After (a 503 the client should send again)

    def __init__(self, message: str | None = None, *, error: str | None = None,
                 errors: dict[str, Any] | None = None, code: int | None = None) -> None:
        super().__init__(message or self.default_message)
        self.message = message or self.default_message
        if error:
            self.error = error
        if code:
            self.code = code
        self.errors = errors or {}

    def to_dict(self) -> dict[str, Any]:
        return error_body(self.code, self.message, self.error, self.errors)


class NotFound(ApiError):
    code, error, default_message = 404, "not_found", "No such record."


class Forbidden(ApiError):
    code, error, default_message = 403, "forbidden", "Your role may not do this."


class Unauthorized(ApiError):
    code, error, default_message = 401, "unauthorized", "Sign in first."


class Conflict(ApiError):
    code, error, default_message = 409, "conflict", "The request conflicts with the record's state."


class VersionConflict(Conflict):
    error, default_message = "version_conflict", "The record changed since you loaded it."

    def __init__(self, current: dict[str, Any], message: str | None = None) -> None:
        super().__init__(message, errors={"current": current})


class InvalidTransition(Conflict):
    error, default_message = "invalid_transition", "That status change is not allowed."


class EntryNotAuthorized(Conflict):
    error, default_message = "entry_not_authorized", "No valid site-entry authorization covers this."


class ValidationFailed(ApiError):
    code, error, default_message = 422, "validation_error", "Some fields are not valid."


class UnsupportedMediaType(ApiError):
    code, error, default_message = 415, "unsupported_media_type", "This content type is not accepted."


class PayloadTooLarge(ApiError):
    code, error, default_message = 413, "payload_too_large", "The request body is too large."


class RequestTimeout(ApiError):
    """A body that did not arrive in time (uploads.Pace); the rest of it is never read, so the
    connection is closed after the answer."""
    code, error, default_message = 408, "request_timeout", "The request body did not arrive in time."


class ImageInvalid(ApiError):
    code, error, default_message = 422, "image_invalid", "The file is not a readable image."


class ChecksumMismatch(ApiError):
    code, error, default_message = 422, "checksum_mismatch", "The bytes received do not match X-Content-SHA256."


class Gone(ApiError):
    code, error, default_message = 410, "gone", "This resource is no longer available."


class PreconditionRequired(ApiError):
    code, error, default_message = 428, "precondition_required", "Send the version you edited (If-Match or version)."


def error_body(code: int, message: str, error: str | None = None, errors: dict[str, Any] | None = None) -> dict[str, Any]:
    try:
        status = HTTPStatus(code).phrase
    except ValueError:
        status = "Error"
    return {"code": code, "status": status, "message": message,
            "error": error or DEFAULT_KEYS.get(code, "error"), "errors": errors or {}}


def error_response(code: int, message: str, error: str | None = None, errors: dict[str, Any] | None = None):
    response = jsonify(error_body(code, message, error, errors))
    response.status_code = code
    return response


def _flatten_webargs(messages: dict[str, Any]) -> dict[str, Any]:
    # flask-smorest nests field errors by location ({"json": {...}}); clients want the fields.
    if len(messages) == 1:
        (only,) = messages.values()
        if isinstance(only, dict):
            return only
    return messages


def register_error_handlers(app: Flask) -> None:
    @app.errorhandler(ApiError)
    def _api_error(exc: ApiError):
        response = jsonify(exc.to_dict())
        response.status_code = exc.code
        if exc.code == 408:
            # The unread rest of the body must not be taken for the next request on this connection.
            response.headers["Connection"] = "close"
        if exc.retry_after is not None:
            response.headers["Retry-After"] = str(exc.retry_after)
        return response

    @app.errorhandler(HTTPException)
    def _http_error(exc: HTTPException):
        code = exc.code or 500
        data = getattr(exc, "data", None) or {}
        errors = data.get("errors") or {}
        message = data.get("message") or exc.description or HTTPStatus(code).phrase
        if "messages" in data:  # webargs / marshmallow validation
            errors = _flatten_webargs(data["messages"])
            message = "Some fields are not valid."
        if code == 405:
            message = "This method is not allowed on this resource."
        elif code == 404 and not data.get("message"):
            message = "No such resource."
        elif code == 413:
            message = "The request body is too large."
        elif code == 429:
            message = "Too many attempts; wait a little and try again."
        response = error_response(code, message, data.get("error"), errors)
        if code == 405 and exc.get_response().headers.get("Allow"):
            response.headers["Allow"] = exc.get_response().headers["Allow"]
        return response

    @app.errorhandler(OverflowError)
    @app.errorhandler(DataError)
    def _out_of_range(exc: Exception):
        # A number (or text) the database cannot hold came from the request: a client error, not a crash.
        log.info("value out of range for the database: %s", exc)
        return error_response(422, "A value is out of range.", "validation_error")

    @app.errorhandler(RecursionError)
    def _too_deep(exc: RecursionError):
        # Bodies deeper than MAX_JSON_DEPTH are refused before parsing; this is the last line should
        # some other nesting (a query value, a stored record) still reach a recursive routine.
        log.warning("recursion limit reached while handling a request", exc_info=True)
        return error_response(400, "The request nests too deeply to process.", "json_too_deep")

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception):
        log.exception("unhandled error")
        return error_response(500, "Something went wrong on the server; nothing was changed.", "internal_error")
