from __future__ import annotations

from flask import current_app, request
from flask.views import MethodView

from ..http import Blueprint
from ..auth.permissions import current_user, login_required
from .. import paging
from ..records import expected_version, versioned
from ..documents import stored_response
from ..errors import NotFound, error_body
from ..schemas import ErrorSchema
from ..uploads import receive_to_tempfile
from . import annotations, derivation, services
from .schemas import (PARENT_TYPES, PhotoAnnotationCreateSchema, PhotoAnnotationSchema, PhotoAnnotationUpdateSchema,
                      PhotoListArgsSchema, PhotoMetaSchema, PhotoSchema, ThumbnailArgsSchema, load_meta)
from .routes_tus import tus_blp

DESCRIPTION = """Photo evidence: streamed, verified uploads; metadata, originals and thumbnails.

- The body is streamed to disk while its SHA-256 is computed; it must match X-Content-SHA256.
- Accepted: JPEG, PNG, WebP, HEIC/HEIF, recognised from the bytes. A declared type other than these
  is 415; bytes that are no image are 422 image_invalid; an image of another of the four types than
  declared is accepted and `content_type` reports what the bytes are.
- Limits: MAX_UPLOAD_BYTES (413, checked from Content-Length and while streaming) and
  MAX_IMAGE_PIXELS (422 image_invalid, checked from the header before decoding). Truncated or
  corrupt files are 422. Nothing is stored from a rejected or interrupted upload.
- Metadata as query parameters or headers (X-Permit-Id, X-Parent-Type, ...).
- Parents: attaching a photo needs the right to edit the parent (inspection, finding, sample, entry
  authorization: an inspector assigned to the site or a supervisor; completion notice: the permit's
  applicant or a supervisor), else 403. A parent of another permit the caller can see is 422. A locked
  parent (approved inspection, closed finding or a finding of an approved inspection, revoked
  authorization, accepted notice) or a closed
  permit is 409 record_locked. The same checks apply on the tus path, at creation and on completion.
- The parent record may not exist yet: such a photo is seen only by its uploader and supervisors, and
  is in no report, until its parent exists on the same permit. `uploaded_by` names who uploaded it.
- GPS: every rational form cameras write; a coordinate without its N/S or E/W reference is read as
  north/east; altitude reference 1 is below sea level. `location` is the EXIF position unless it is
  absent, not a number, out of range or exactly (0, 0), else the device fix (`source` says which).
  `distance_to_site_m` is the great-circle distance to the permit's site point; `within_site` is
  null without a limit of work; `far_from_site` is true beyond PHOTO_FAR_FROM_SITE_M unless inside
  the limit of work.
- EXIF times without OffsetTimeOriginal are read in the town's time zone (America/New_York).
- `width`/`height` are as displayed (EXIF orientation applied); thumbnails are upright JPEGs with no
  metadata at all (no GPS). Originals are kept byte-identical, content-addressed by SHA-256.
- An upload is answered once the original is verified (type, limits, a complete file, EXIF; its
  pixels are not decoded yet) and stored. The display (1280) and small (320) thumbnails are made just
  after by the worker: until then GET /photos/{id}/thumbnail answers 202 `processing` with
  `Retry-After` (seconds), in the error shape; show the original meanwhile (JPEG, PNG, WebP) or a
  placeholder (HEIC). Pixels that turn out not to decode leave the photo without thumbnails for good
  (404 `thumbnail_failed`, with the reason); its original is kept and served.
- Originals and thumbnails come from the API, or as a 302 to a signed S3 URL valid for
  PRESIGNED_URL_SECONDS, always after the access check. Unseen photos are 404.
- Markup (`photo_annotation`, pushed through POST /sync/push): arrows, circles, freehand lines and text
  labels kept as vectors beside the photo, points as fractions of the upright image's width and height.
  Seen by exactly those who see the photo; drawn by those who may add the photo (a locked record's
  photo: supervisors only); changed or deleted by its author or a supervisor. Devices push it; the same
  schemas serve POST /photo-annotations, GET, PATCH and DELETE /photo-annotations/{id}. `/annotations` lists a
  photo's markup; `/annotated` is a JPEG of the display rendition with all of it drawn on (404 when there
  is none). The original's bytes and SHA-256 never change."""

blp = Blueprint("photos", __name__, url_prefix="/api/v1", description=DESCRIPTION)

IMAGE_TYPES = ("image/jpeg", "image/png", "image/webp", "image/heic")
_BINARY = {"schema": {"type": "string", "format": "binary"}}
# Each metadata value comes as a query parameter or as its X- header (the query wins when both are sent).
# OpenAPI cannot say "one of these two parameters is required", so both are optional and the
# descriptions say it: permit_id in neither is 422 validation_error.
_META_SCHEMAS = {
    "permit_id": ({"type": "string", "format": "uuid"},
                  "The permit the photo is evidence for. Required: send it here or as the {other} (422 "
                  "validation_error on `permit_id` with neither)."),
    "parent_type": ({"type": "string", "enum": list(PARENT_TYPES)}, "With parent_id, or neither."),
    "parent_id": ({"type": "string", "format": "uuid"},
                  "With parent_type, or neither; may name a record not yet synced."),
    "captured_at": ({"type": "string", "format": "date-time"}, "Device clock at capture (RFC 3339)."),
    "device_lat": ({"type": "number", "minimum": -90, "maximum": 90}, "With device_lon, or neither."),
    "device_lon": ({"type": "number", "minimum": -180, "maximum": 180}, "With device_lat, or neither."),
    "device_accuracy_m": ({"type": "number", "minimum": 0, "maximum": 100_000}, "Metres, as the device reported."),
}


# A header is text: the same values as the query parameters, as patterns (a generated client would
# otherwise refuse to put a number or a datetime in a header).
_UUID_TEXT = "^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$"
_NUMBER_TEXT = r"^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$"
_HEADER_SCHEMAS = {
    "permit_id": {"type": "string", "pattern": _UUID_TEXT}, "parent_id": {"type": "string", "pattern": _UUID_TEXT},
    "captured_at": {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})$"},
    "device_lat": {"type": "string", "pattern": _NUMBER_TEXT}, "device_lon": {"type": "string", "pattern": _NUMBER_TEXT},
    "device_accuracy_m": {"type": "string", "pattern": _NUMBER_TEXT},
}


def _header_name(name: str) -> str:
    return f"X-{name.replace('_', '-').title()}"


_HEADER_DOC = [
    {"in": "header", "name": "X-Content-SHA256", "required": True, "schema": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
     "description": "Hex SHA-256 of the bytes as captured; a mismatch is 422 checksum_mismatch."},
    *({"in": where, "name": name if where == "query" else _header_name(name), "required": False,
       "schema": schema if where == "query" else _HEADER_SCHEMAS.get(name, schema),
       "description": text.format(other=f"{_header_name(name)} header" if where == "query" else f"{name} query parameter")
       + ("" if "{other}" in text else f" Or the {_header_name(name)} header." if where == "query"
          else f" Alternative to the {name} query parameter.")}
      for where in ("query", "header") for name, (schema, text) in _META_SCHEMAS.items()),
]
PUT_DOC = {
    "requestBody": {"required": True, "content": {kind: _BINARY for kind in IMAGE_TYPES},
                    "description": "The image bytes, streamed. The type is sniffed from the bytes: a declared type "
                                   "other than these four is 415; bytes that are no image are 422 image_invalid; "
                                   "an image of another of the four types than declared is accepted and stored "
                                   "with the sniffed type."},
    "parameters": _HEADER_DOC,
}
BLOB_DOC = {"responses": {"200": {"description": "The bytes", "content": {"image/*": _BINARY}},
                          "302": {"description": "Redirect to a short-lived signed URL (S3 storage)"}}}


def _serve(key: str, content_type: str, etag: str, filename: str, *, original: bool = False):
    """The bytes once the authorization check passed; an original says its SHA-256 (its ETag)."""
    response = stored_response(key, filename=filename, content_type=content_type, etag=etag)
    if original and response.status_code != 302:
        response.headers["X-Content-SHA256"] = etag
    return response


@blp.route("/photos")
class Photos(MethodView):
    @login_required
    @blp.arguments(PhotoListArgsSchema, location="query")
    @blp.response(200, PhotoSchema(many=True), headers=paging.HEADERS)
    def get(self, args):
        """Photos the caller may see, by permit and/or parent record, oldest first"""
        photos, total = services.list_photos(current_user, args)
        return services.dump_photos(photos), 200, paging.total_header(total)


@blp.route("/photos/<photo_id>")
class PhotoItem(MethodView):
    @login_required
    @blp.arguments(PhotoMetaSchema, location="query")
    @blp.response(201, PhotoSchema)
    @blp.alt_response(200, schema=PhotoSchema, description="The same id with the same bytes again (idempotent)")
    @blp.alt_response(409, description="The id is taken by other bytes")
    @blp.alt_response(408, description="The body arrived slower than UPLOAD_MIN_BYTES_PER_SECOND or took longer "
                                       "than UPLOAD_MAX_SECONDS; nothing is stored")
    @blp.alt_response(413, description="Over MAX_UPLOAD_BYTES")
    @blp.alt_response(415, description="Declared Content-Type is not one of the four image types")
    @blp.alt_response(422, description="checksum_mismatch, image_invalid or validation_error")
    @blp.doc(**PUT_DOC)
    def put(self, _query, photo_id):
        """Upload a photo: the body streamed to storage, verified against X-Content-SHA256, idempotent on the id"""
        meta = load_meta(request.args, request.headers)
        services.declared_type(request.mimetype)
        expected = services.declared_sha256(request.headers.get("X-Content-SHA256"))
        services.check_length(request.content_length)
        photo_id = services.check_before_body(current_user, photo_id, meta)
        services.release_transaction()
        with receive_to_tempfile(request.stream, current_app.config["MAX_UPLOAD_BYTES"]) as received:
            # Read the image before the database is touched again: no transaction (and on SQLite no
            # write lock) is held while it decodes.
            derived = services.read_image(received) if received.sha256 == expected else None
            photo, created = services.ingest_received(current_user, photo_id, meta, received, expected, derived)
        return services.dump_photo(photo), 201 if created else 200

    @login_required
    @blp.response(200, PhotoSchema)
    def get(self, photo_id):
        """A photo's metadata: EXIF, device fix, chosen location and distance to the site"""
        return services.dump_photo(services.get_photo(current_user, photo_id))


@blp.route("/photos/<photo_id>/original")
class PhotoOriginal(MethodView):
    @login_required
    @blp.doc(**BLOB_DOC)
    def get(self, photo_id):
        """The original bytes, unchanged since upload (or a redirect to a short-lived signed URL)"""
        photo = services.get_photo(current_user, photo_id)
        extension = photo.content_type.split("/")[1].replace("jpeg", "jpg")
        return _serve(photo.original_key, photo.content_type, photo.sha256, f"{photo.id}.{extension}", original=True)


_RETRY_AFTER = {"Retry-After": {"description": "Seconds to wait before asking again",
                                 "schema": {"type": "integer", "minimum": 1}}}


@blp.route("/photos/<photo_id>/thumbnail")
class PhotoThumbnail(MethodView):
    @login_required
    @blp.arguments(ThumbnailArgsSchema, location="query")
    @blp.alt_response(202, schema=ErrorSchema, headers=_RETRY_AFTER, success=True,
                      description="processing: the thumbnails are being made (the upload was answered "
                                  "before them); ask again after `Retry-After` seconds, and show the "
                                  "original (or a placeholder for HEIC) meanwhile")
    @blp.alt_response(404, schema=ErrorSchema,
                      description="not_found: no such photo, or one the caller may not see; thumbnail_failed: "
                                  "the image could not be decoded, so it has no thumbnails (`errors.reason` "
                                  "says why); its original is still served")
    @blp.doc(**BLOB_DOC)
    def get(self, args, photo_id):
        """A JPEG thumbnail without metadata, upright: display (1280) or small (320); 202 while it is being made"""
        photo = services.get_photo(current_user, photo_id)
        job = derivation.job_of(photo.sha256)
        if job is not None and job.status == "queued":
            wait = max(int(current_app.config["PHOTO_RETRY_AFTER_SECONDS"]), 1)
            body = error_body(202, f"The thumbnails are being made; ask again in {wait} seconds.", "processing",
                              {"retry_after_s": [wait]})
            return body, 202, {"Retry-After": str(wait), "Cache-Control": "no-store"}
        if job is not None and job.status == "failed":
            raise NotFound("This photo's image could not be decoded, so it has no thumbnails; its original is kept.",
                           error="thumbnail_failed", errors={"reason": [job.last_error or "not readable"]})
        key = photo.display_key if args["size"] == "display" else photo.small_key
        return _serve(key, "image/jpeg", f"{photo.sha256}-{args['size']}", f"{photo.id}-{args['size']}.jpg")


@blp.route("/photos/<photo_id>/annotations")
class PhotoAnnotations(MethodView):
    @login_required
    @blp.response(200, PhotoAnnotationSchema(many=True))
    @blp.alt_response(404, description="not_found: no such photo, or one the caller may not see")
    def get(self, photo_id):
        """A photo's markup, oldest first (the order it is drawn in): everyone who may see the photo sees all of it"""
        return annotations.dump_annotations(annotations.list_for_photo(current_user, photo_id))


_REFUSALS = ("403 forbidden: no right to add the photo (an assigned inspector or a supervisor on field "
             "records; the applicant or a supervisor on a completion notice), or not the markup's author; "
             "409 record_locked: the photo's record or permit is locked (supervisors excepted)")


@blp.route("/photo-annotations")
class PhotoAnnotationCreate(MethodView):
    @login_required
    @blp.arguments(PhotoAnnotationCreateSchema)
    @blp.response(201, PhotoAnnotationSchema)
    @blp.alt_response(200, schema=PhotoAnnotationSchema, description="The same id with the same photo and shapes "
                                                                     "again: the existing markup")
    @blp.alt_response(403, description=_REFUSALS)
    @blp.alt_response(404, description="not_found on `photo_id`: no such photo, or one the caller may not see")
    @blp.alt_response(409, description="conflict (the id holds other markup) or record_locked")
    def post(self, body):
        """Mark up a photo (what a device pushes as `photo_annotation`); the photo itself never changes"""
        record, created = annotations.create_annotation(current_user, body)
        return annotations.dump_annotation(record), 201 if created else 200


@blp.route("/photo-annotations/<annotation_id>")
class PhotoAnnotationItem(MethodView):
    @login_required
    @blp.response(200, PhotoAnnotationSchema)
    def get(self, annotation_id):
        """One markup (seen by whoever may see its photo)"""
        return annotations.dump_annotation(annotations.get_annotation(current_user, annotation_id))

    @login_required
    @blp.arguments(PhotoAnnotationUpdateSchema)
    @blp.response(200, PhotoAnnotationSchema)
    @blp.alt_response(403, description=_REFUSALS)
    @versioned(blp)
    def patch(self, body, annotation_id):
        """Redraw a markup: its shapes as a whole (its author or a supervisor; If-Match or version)"""
        record = annotations.get_annotation(current_user, annotation_id)
        return annotations.dump_annotation(
            annotations.update_annotation(current_user, record, body, expected_version(body)))

    @login_required
    @blp.response(204)
    @blp.alt_response(403, description=_REFUSALS)
    @versioned(blp, body=False)
    def delete(self, annotation_id):
        """Take a markup off its photo (its author or a supervisor; If-Match); devices receive a tombstone"""
        record = annotations.get_annotation(current_user, annotation_id)
        annotations.delete_annotation(current_user, record, expected_version(None))


ANNOTATED_DOC = {"responses": {"200": {"description": "The display rendition (longest side 1280) with every "
                                                      "annotation drawn on it; the original is untouched",
                                       "content": {"image/jpeg": _BINARY}},
                               "304": {"description": "Not modified (If-None-Match matched the ETag)"}}}


@blp.route("/photos/<photo_id>/annotated")
class PhotoAnnotated(MethodView):
    @login_required
    @blp.alt_response(404, description="not_found: no such photo, one the caller may not see, or a photo "
                                       "without markup (its plain rendition is /thumbnail)")
    @blp.doc(**ANNOTATED_DOC)
    def get(self, photo_id):
        """The photo with its markup drawn on: a new JPEG made from the display rendition (the original never changes)"""
        return annotations.annotated_response(current_user, photo_id)


blueprints = [blp, tus_blp]
