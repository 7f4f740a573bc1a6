"""The public permit lookup's query and answer shapes (shape and format only; lookup.py decides what
is public)."""
from __future__ import annotations

import math
import re

from marshmallow import Schema, ValidationError, fields, validate

from .. import paging
from ..enforcement.rules import ORDER_KINDS
from ..permits.geo import LIMIT_OF_WORK_SCHEMA
from ..permits.models import REVIEW_LEVELS
from ..schemas import Integer
from .lookup import DEFAULT_LIMIT, MAX_LIMIT, PUBLIC_STATUSES

_NUMBER = r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)"
NEAR_PATTERN = rf"^ *{_NUMBER} *, *{_NUMBER} *$"
_NEAR = re.compile(NEAR_PATTERN)
NEXT_CURSOR = "X-Next-Cursor"
HEADERS = {
    **paging.HEADERS,
    NEXT_CURSOR: {"description": "Send it back as `cursor` for the next page; absent on the last page",
                  "schema": {"type": "string"}},
}
CACHE_HEADERS = {
    "ETag": {"description": "Names this answer: send it back as If-None-Match to be answered 304 while it stands",
             "schema": {"type": "string"}},
    "Cache-Control": {"description": "`public, max-age=<PUBLIC_CACHE_SECONDS>`: the answer is the same for "
                                     "everyone, signed in or not", "schema": {"type": "string"}},
}


class LatLon(fields.String):
    """`lat,lon` in decimal degrees, loaded as a `(lat, lon)` tuple of floats."""

    def __init__(self, **kwargs) -> None:
        kwargs.setdefault("metadata", {})
        kwargs["metadata"] = {"pattern": NEAR_PATTERN, **kwargs["metadata"]}
        super().__init__(**kwargs)

    def _deserialize(self, value, attr, data, **kwargs) -> tuple[float, float]:
        text = super()._deserialize(value, attr, data, **kwargs)
        if not _NEAR.match(text):
            raise ValidationError("Send the point as lat,lon in decimal degrees, e.g. 41.6376,-70.9036.")
        lat, lon = (float(part) for part in text.split(","))
        if not (math.isfinite(lat) and math.isfinite(lon) and -90 <= lat <= 90 and -180 <= lon <= 180):
            raise ValidationError("Latitude -90..90 and longitude -180..180.")
        return lat, lon


class PublicPermitQuerySchema(Schema):
    q = fields.String(validate=validate.Length(max=200), metadata={
        "description": "Part of the number or of the address (any case)"})
    street = fields.String(validate=validate.Length(max=200), metadata={"description": "Part of the address"})
    status = fields.String(validate=validate.OneOf(PUBLIC_STATUSES), metadata={
        "description": "One public status (`unpermitted`: an enforcement case that has reached an order)"})
    near = LatLon(validate=validate.Length(max=64),
                  metadata={"description": "`lat,lon`: nearest first, each item with `distance_m`"})
    limit = fields.Integer(load_default=DEFAULT_LIMIT, validate=validate.Range(min=1, max=MAX_LIMIT),
                           metadata={"description": f"Items per page, at most {MAX_LIMIT}"})
    cursor = fields.String(validate=validate.Length(min=1, max=500), metadata={
        "description": "The `X-Next-Cursor` of the previous page"})


class PublicPointSchema(Schema):
    lat = fields.Float(required=True)
    lon = fields.Float(required=True)


class PublicOpenOrdersSchema(Schema):
    count = Integer(required=True, metadata={"description": "Orders in force (open, overdue included)"})
    kinds = fields.List(fields.String(validate=validate.OneOf(ORDER_KINDS)), required=True, metadata={
        "description": "What the orders in force require, each kind once"})


def _date(description: str) -> fields.String:
    return fields.String(required=True, allow_none=True, metadata={"format": "date", "description": description})


class PublicPermitSchema(Schema):
    """A permit or enforcement case as anyone may read it: never a party, a document, a photo or a
    finding's text."""

    number = fields.String(required=True, metadata={"description": "ALDR-, LDP- or ENF-YYYY-NNNN"})
    review_level = fields.String(required=True, validate=validate.OneOf(REVIEW_LEVELS))
    status = fields.String(required=True, validate=validate.OneOf(PUBLIC_STATUSES))
    status_date = _date("The day the record reached its status")
    address = fields.String(required=True)
    site = fields.Nested(PublicPointSchema, required=True, allow_none=True)
    limit_of_work = fields.Raw(required=True, allow_none=True, metadata={
        **LIMIT_OF_WORK_SCHEMA, "description": "GeoJSON Polygon or MultiPolygon, [lon, lat] positions"})
    applied_on = _date("The day the Town received the application (null for an enforcement case)")
    decided_on = _date("The day it was approved, issued or denied")
    work_started_on = _date("The day work commenced")
    completed_on = _date("The day work was complete")
    certificate_issued = fields.Boolean(required=True, metadata={
        "description": "A certificate of completion was issued"})
    open_orders = fields.Nested(PublicOpenOrdersSchema, required=True)
    distance_m = fields.Float(allow_none=True, metadata={
        "description": "Metres from `near`; only when the search is near a point"})
