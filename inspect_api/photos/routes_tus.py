"""Resumable photo uploads over tus 1.0 (see tus.py for the protocol as served)."""
from __future__ import annotations

from flask import current_app, request, url_for
from flask.views import MethodView
from flask_jwt_extended import verify_jwt_in_request
from marshmallow import Schema, fields

from ..schemas import Integer
from ..http import Blueprint
from ..auth.permissions import current_user, login_required
from ..errors import ApiError
from ..extensions import db
from ..http import public_url
from . import imaging, resumable, services, tus
from .schemas import PhotoSchema

tus_blp = Blueprint("uploads", __name__, url_prefix="/api/v1",
                    description="Resumable photo uploads: tus 1.0 core with the creation, expiration, checksum "
                                "and termination extensions. The finished upload becomes the photo named by "
                                "its photo_id metadata, exactly as PUT /photos/{id} would make it.")


class PhotoUploadSchema(Schema):
    id = fields.String()
    photo_id = fields.String()
    offset = Integer()
    length = Integer()
    expires_at = fields.DateTime()
    completed_at = fields.DateTime(allow_none=True)


def _h(name: str, description: str, required: bool = True, **schema) -> dict:
    return {"in": "header", "name": name, "required": required, "schema": {"type": "string", **schema},
            "description": description}


# tus 1.0 Upload-Metadata: `key base64value` pairs (a key may come alone), comma-separated
_PAIR = r"[A-Za-z0-9_.-]{1,64}(?: [A-Za-z0-9+/]*={0,2})?"
METADATA_PATTERN = rf"^ *{_PAIR} *(?:, *{_PAIR} *)*$"
TUS_RESUMABLE = _h("Tus-Resumable", "Always 1.0.0; any other value or none is 412.", enum=[tus.TUS_VERSION])
POST_DOC = {"parameters": [TUS_RESUMABLE,
                           _h("Upload-Length", "Total bytes, 1 to Tus-Max-Size (MAX_UPLOAD_BYTES), decimal digits "
                              "only; 0 is 422 image_invalid, more than the limit 413.", pattern=r"^[0-9]{1,19}$"),
                           _h("Upload-Metadata", "Comma-separated `key base64(value)` pairs: photo_id, permit_id, "
                              "sha256 (hex of the whole file), content_type (or filetype) required; parent_type, "
                              "parent_id, captured_at, device_lat, device_lon, device_accuracy_m optional. A pair "
                              "that is not `key base64` is 400; a value missing or not valid, 422.",
                              pattern=METADATA_PATTERN)],
            "responses": {
                "400": {"description": "bad_request: Upload-Length or Upload-Metadata not as tus 1.0 writes them, "
                                       "or Upload-Defer-Length"},
                "409": {"description": "The photo id is taken by other bytes, or its parent is locked (record_locked)"},
                "413": {"description": "payload_too_large: Upload-Length over MAX_UPLOAD_BYTES"},
                "422": {"description": "validation_error (metadata missing or not valid) or image_invalid (empty)"}}}
HEAD_DOC = {"parameters": [TUS_RESUMABLE], "responses": {"200": {
    "description": "Upload-Offset (bytes held), Upload-Length, Upload-Expires; once finished also Photo-Id."}}}
PATCH_DOC = {
    "parameters": [TUS_RESUMABLE, _h("Upload-Offset", "Must equal the server's offset (HEAD), else 409.",
                                     pattern=r"^[0-9]{1,19}$"),
                   _h("Upload-Checksum", "`sha256 <base64>` or `sha1 <base64>` of this chunk; mismatch is 460 "
                      "checksum_mismatch and nothing of the chunk is kept.", required=False)],
    "requestBody": {"required": True, "content": {tus.OFFSET_CONTENT_TYPE: {"schema": {"type": "string", "format": "binary"}}}},
    "responses": {
        "204": {"description": "Chunk kept; Upload-Offset is the new offset."},
        "200": {"description": "The upload is complete and is now the photo (Photo-Id header, photo as JSON).",
                "content": {"application/json": {"schema": PhotoSchema}}},
        "408": {"description": "request_timeout: the chunk arrived slower than UPLOAD_MIN_BYTES_PER_SECOND or took "
                               "longer than UPLOAD_MAX_SECONDS; nothing of it is kept (resume from HEAD's offset)."},
        "409": {"description": "offset_mismatch: Upload-Offset differs from the bytes held (see errors.offset)."},
        "410": {"description": "upload_expired"},
        "412": {"description": "Tus-Resumable missing or unsupported"},
        "415": {"description": "Content-Type is not application/offset+octet-stream"},
        "422": {"description": "The finished file is rejected (checksum_mismatch, image_invalid); the upload is deleted."},
        "460": {"description": "checksum_mismatch: the chunk does not match Upload-Checksum"}}}
OPTIONS_DOC = {"security": [], "responses": {"204": {
    "description": "Tus-Version, Tus-Extension, Tus-Max-Size, Tus-Checksum-Algorithm (sha256, sha1)."}}}


@tus_blp.before_request
def _require_tus_version():
    if request.method == "OPTIONS":
        return
    # Who is asking comes first (401 with its Bearer challenge), then the protocol version (412).
    verify_jwt_in_request()
    if request.headers.get("Tus-Resumable") != tus.TUS_VERSION:
        raise tus.TusVersionUnsupported(errors={"Tus-Resumable": [f"Supported: {tus.TUS_VERSION}."]})


@tus_blp.after_request
def _tus_headers(response):
    response.headers["Tus-Resumable"] = tus.TUS_VERSION
    response.headers["Cache-Control"] = "no-store"
    if response.status_code == 412:
        response.headers["Tus-Version"] = tus.TUS_VERSION
    return response


def _upload_headers(upload) -> dict[str, str]:
    headers = {"Upload-Offset": str(upload.offset), "Upload-Length": str(upload.length),
               "Upload-Expires": tus.http_date(upload.expires_at)}
    if upload.completed_at is not None:
        headers.update({"Photo-Id": upload.photo_id, "Content-Location": f"{services.API}/photos/{upload.photo_id}"})
    return headers


def _finish(upload):
    """Turn the complete upload into the photo. A rejected result can never become a photo, so the
    upload and its bytes are deleted, and that cleanup is committed although the answer is an error."""
    upload_id, keys = upload.id, resumable.chunk_keys(upload)
    try:
        photo, _created = resumable.finish(current_user, upload)
    except imaging.ImageBusy:  # not the image's fault: the complete upload stays for a retry
        db.session.rollback()
        raise
    except ApiError:
        db.session.rollback()
        services.discard_blobs(keys)
        resumable.discard_upload(upload_id)
        db.session.commit()
        raise
    upload = resumable.get_upload(current_user, upload_id)
    return services.dump_photo(photo), 200, _upload_headers(upload)


def _discovery_headers() -> dict[str, str]:
    # The tus discovery answer is this route's OPTIONS, so it says which methods the route takes.
    return {**tus.discovery_headers(current_app.config["MAX_UPLOAD_BYTES"]),
            "Allow": ", ".join(sorted(request.url_rule.methods))}


@tus_blp.route("/uploads")
class Uploads(MethodView):
    @tus_blp.doc(**OPTIONS_DOC)
    def options(self):
        """Discover the tus version, extensions, maximum size and checksum algorithms"""
        return "", 204, _discovery_headers()

    @login_required
    @tus_blp.response(201, PhotoUploadSchema)
    @tus_blp.doc(**POST_DOC)
    def post(self):
        """Start a resumable upload (tus creation); Location names the upload"""
        upload = resumable.create_upload(current_user, request.headers.get("Upload-Length"),
                                         request.headers.get("Upload-Metadata"),
                                         deferred="Upload-Defer-Length" in request.headers)
        location = public_url(url_for("uploads.UploadItem", upload_id=upload.id))
        return upload, 201, {"Location": location, **_upload_headers(upload)}


@tus_blp.route("/uploads/<upload_id>")
class UploadItem(MethodView):
    @tus_blp.doc(**OPTIONS_DOC)
    def options(self, upload_id):
        """Discover the tus version, extensions, maximum size and checksum algorithms"""
        return "", 204, _discovery_headers()

    @login_required
    @tus_blp.doc(**HEAD_DOC)
    def head(self, upload_id):
        """How many bytes the server holds (Upload-Offset): resume from there"""
        return "", 200, _upload_headers(resumable.get_upload(current_user, upload_id))

    @login_required
    @tus_blp.doc(**PATCH_DOC)
    def patch(self, upload_id):
        """Append bytes at Upload-Offset; the PATCH that completes the upload answers with the photo"""
        limit, offset = resumable.check_patch(current_user, upload_id, request.content_type,
                                              request.headers.get("Upload-Offset"))
        checksum = tus.parse_checksum(request.headers.get("Upload-Checksum"))
        services.release_transaction()
        received = resumable.receive_chunk(request.stream, limit, checksum)
        upload = resumable.append_chunk(current_user, upload_id, offset, received)
        if upload.offset < upload.length:
            return "", 204, _upload_headers(upload)
        # The last chunk is kept whatever the image turns out to be; committing it here lets the
        # image be read outside any transaction (resumable.finish).
        db.session.commit()
        return _finish(upload)

    @login_required
    @tus_blp.response(204)
    @tus_blp.doc(parameters=[TUS_RESUMABLE])
    def delete(self, upload_id):
        """Abandon an upload and delete the bytes received (tus termination)"""
        resumable.terminate(current_user, upload_id)
