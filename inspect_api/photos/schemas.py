"""Photo shapes. The upload body is raw bytes; its metadata comes as query parameters or headers."""
from __future__ import annotations

from typing import Any, Mapping

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from ..paging import PageArgs
from ..errors import ValidationFailed
from ..schemas import Boolean, EditSchema, GpsFixSchema, Integer
from . import annotation_rules as markup
from .models import PARENT_TYPES

# Headers may carry each field as X-Permit-Id, Permit-Id or permit_id (proxies drop underscores).
META_FIELDS = ("permit_id", "parent_type", "parent_id", "captured_at", "device_lat", "device_lon",
               "device_accuracy_m")


class AwareDateTime(fields.AwareDateTime):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(format="iso", **kwargs)


class PhotoMetaSchema(Schema):
    """What the device says about the photo (query parameters or headers of PUT /photos/{id})."""

    permit_id = fields.UUID(metadata={"description": "The permit the photo is evidence for (required)."})
    parent_type = fields.String(validate=validate.OneOf(PARENT_TYPES), allow_none=True)
    parent_id = fields.UUID(allow_none=True, metadata={"description": "May name a record not yet synced."})
    captured_at = AwareDateTime(allow_none=True, metadata={"description": "Device clock at capture (RFC 3339)."})
    device_lat = fields.Float(validate=validate.Range(-90, 90), allow_none=True, allow_nan=False)
    device_lon = fields.Float(validate=validate.Range(-180, 180), allow_none=True, allow_nan=False)
    device_accuracy_m = fields.Float(validate=validate.Range(min=0, max=100_000), allow_none=True, allow_nan=False)


class PhotoListArgsSchema(PageArgs):
    permit_id = fields.UUID()
    parent_type = fields.String(validate=validate.OneOf(PARENT_TYPES))
    parent_id = fields.UUID()


class ThumbnailArgsSchema(Schema):
    size = fields.String(load_default="display", validate=validate.OneOf(("display", "small")),
                         metadata={"description": "display: longest side 1280; small: longest side 320."})


class UploadedBySchema(Schema):
    id = fields.String()
    name = fields.String(allow_none=True)


def _time(description: str | None = None, **kwargs: Any) -> fields.String:
    metadata = {"format": "date-time", **({"description": description} if description else {})}
    return fields.String(metadata=metadata, **kwargs)


class PhotoSchema(Schema):
    id = fields.String()
    permit_id = fields.String()
    parent_type = fields.String(allow_none=True)
    parent_id = fields.String(allow_none=True)
    sha256 = fields.String(metadata={"description": "SHA-256 (hex) of the original bytes, kept unchanged."})
    content_type = fields.String(metadata={"description": "The type sniffed from the bytes."})
    width = Integer(metadata={"description": "As displayed (EXIF orientation applied)."})
    height = Integer()
    bytes = Integer()
    orientation = Integer(metadata={"description": "EXIF orientation 1-8 as written by the camera."})
    camera_make = fields.String(allow_none=True)
    camera_model = fields.String(allow_none=True)
    taken_at = _time("EXIF DateTimeOriginal with its offset; without one, read in the town's time zone.",
                     allow_none=True)
    captured_at = _time(allow_none=True)
    exif_gps = fields.Nested(GpsFixSchema, allow_none=True, metadata={"description": "From the file's EXIF GPS block (altitude_m when it has one)."})
    device_gps = fields.Nested(GpsFixSchema, allow_none=True, metadata={"description": "The fix the device sent with the upload."})
    location = fields.Nested(GpsFixSchema, allow_none=True, metadata={"description":
                             "EXIF GPS unless absent, not a number, out of range or (0, 0); else the device fix."})
    distance_to_site_m = fields.Float(allow_none=True)
    within_site = Boolean(allow_none=True, metadata={"description": "Inside the limit of work; null without one."})
    far_from_site = Boolean(allow_none=True, metadata={"description":
                                   "Farther than PHOTO_FAR_FROM_SITE_M from the site point and outside the limit of work."})
    url = fields.String()
    thumbnail_url = fields.String()
    small_thumbnail_url = fields.String()
    version = Integer()
    created_at = _time()
    updated_at = _time()
    created_by = fields.String(allow_none=True)
    uploaded_by = fields.Nested(UploadedBySchema, allow_none=True, metadata={
        "description": "The account that uploaded the photo (id and name)."})
    device_id = fields.String(allow_none=True)
    device_created_at = _time(allow_none=True)


def _header_value(headers: Mapping[str, str], name: str) -> str | None:
    dashed = name.replace("_", "-")
    for candidate in (f"X-{dashed}", dashed, name):
        value = headers.get(candidate)
        if value not in (None, ""):
            return value
    return None


def load_meta(query: Mapping[str, Any], headers: Mapping[str, str]) -> dict[str, Any]:
    """Merge query parameters (first) and headers, then validate; 422 `validation_error` on bad values."""
    raw: dict[str, Any] = {}
    for name in META_FIELDS:
        value = query.get(name)
        if value in (None, ""):
            value = _header_value(headers, name)
        if value not in (None, ""):
            raw[name] = value
    try:
        data = PhotoMetaSchema().load(raw)
    except ValidationError as exc:
        raise ValidationFailed(errors=exc.normalized_messages()) from None
    if (data.get("device_lat") is None) != (data.get("device_lon") is None):
        raise ValidationFailed(errors={"device_lon": ["Send device_lat and device_lon together."]})
    if (data.get("parent_type") is None) != (data.get("parent_id") is None):
        raise ValidationFailed(errors={"parent_id": ["Send parent_type and parent_id together."]})
    if not data.get("permit_id"):
        raise ValidationFailed("permit_id is required (query parameter or X-Permit-Id header).",
                               errors={"permit_id": ["Missing data for required field."]})
    for key in ("permit_id", "parent_id"):
        if data.get(key) is not None:
            data[key] = str(data[key])
    return data


# -- markup (photo_annotation, a sync entity: API.md) ------------------------------------------------
class Fraction(fields.Float):
    """A coordinate as a fraction of the image's width or height: a JSON number from 0 to 1, never
    text or a boolean (strict input, as `type: number` says)."""

    def _deserialize(self, value, attr, data, **kwargs):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.make_error("invalid")
        return super()._deserialize(value, attr, data, **kwargs)


_COORDINATE = "Each coordinate is a number from 0 to 1 (a fraction of the image's width or height)."


class ShapeSchema(Schema):
    """One shape of a markup (photos/annotation_rules.py says what each kind takes)."""

    kind = fields.String(required=True, validate=validate.OneOf(markup.KINDS))
    points = fields.List(
        fields.List(Fraction(allow_nan=False, validate=validate.Range(min=0, max=1, error=_COORDINATE)),
                    validate=validate.Length(equal=2, error="A point is an [x, y] pair.")),
        required=True, validate=validate.Length(min=1, max=markup.MAX_POINTS_PER_SHAPE),
        metadata={"description": "[x, y] pairs, each a fraction from 0 to 1 of the image's width (from the left) "
                                 "and height (from the top) as displayed. arrow: 2 (tail, head); circle: 2 "
                                 "(opposite corners of the bounding box); freehand: 2 to 2000; text: 1 (where the "
                                 "label starts, centred on it vertically)."})
    text = fields.String(allow_none=True, validate=validate.Length(min=1, max=markup.MAX_TEXT), metadata={
        "description": "The label of a `text` shape (one line, 1 to 200 characters); refused on other kinds "
                       "(null there is the same as leaving it out)."})
    colour = fields.String(required=True, validate=validate.Regexp(markup.COLOUR_PATTERN, error="A colour is #rrggbb."),
                           metadata={"description": "#rrggbb (answered in lower case)."})

    @validates_schema
    def _by_kind(self, data, **_kw):
        problems = markup.shape_problems(data)
        if problems:
            raise ValidationError(problems)


def _shapes(**kwargs) -> fields.List:
    return fields.List(fields.Nested(ShapeSchema), validate=validate.Length(max=markup.MAX_SHAPES), metadata={
        "description": "Up to 100 shapes, drawn in this order; at most 20000 points in all. None: the author "
                       "erased the markup (it draws nothing; deleting the record does the same)."}, **kwargs)


class _AllShapes(Schema):
    @validates_schema
    def _total(self, data, **_kw):
        problem = markup.total_points_problem(data.get("shapes") or [])
        if problem:
            raise ValidationError({"shapes": [problem]})


class PhotoAnnotationCreateSchema(_AllShapes):
    """A markup drawn over a photo, pushed through POST /sync/push as entity `photo_annotation`."""

    id = fields.UUID(load_default=None)
    photo_id = fields.UUID(required=True, metadata={"description": "The photo drawn on: one the caller may see "
                                                                   "(uploaded first), else not_found."})
    shapes = _shapes(required=True)
    device_created_at = fields.AwareDateTime(load_default=None, allow_none=True,
                                             metadata={"description": "When the device made it (its own clock)"})


class PhotoAnnotationUpdateSchema(EditSchema, _AllShapes):
    """An edit of a markup: its shapes as a whole (the photo it is drawn on never changes)."""

    shapes = _shapes()
    version = Integer(metadata={"description": "The version edited (or send If-Match)."})


class DrawnBySchema(Schema):
    id = fields.String()
    name = fields.String(allow_none=True)


class PhotoAnnotationSchema(Schema):
    id = fields.String()
    photo_id = fields.String()
    permit_id = fields.String()
    shapes = fields.List(fields.Nested(ShapeSchema))
    created_by = fields.String(allow_none=True)
    drawn_by = fields.Nested(DrawnBySchema, allow_none=True, metadata={
        "description": "The account that drew it (id and name)."})
    device_id = fields.String(allow_none=True)
    device_created_at = _time(allow_none=True)
    version = Integer()
    created_at = _time()
    updated_at = _time()
