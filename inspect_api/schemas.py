"""Schema pieces every record kind shares: strict JSON booleans and integers, record fields, the one Money
field, the one GPS fix, the one e-mail address field."""
from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from marshmallow import fields, validate

from .dumping import Schema, values_of

CENT = Decimal("0.01")
MONEY_INTEGER_DIGITS = 12
MONEY_MAX = Decimal("999999999999.99")  # Numeric(14, 2) in every table that holds money
# What a request may send as text: plain digits with an optional point and up to two decimals. Checked
# before Decimal() so "1_000", "1e3", "NaN" or "Infinity" never reach it.
_MONEY_TEXT = re.compile(r"[+-]?\d+(?:\.\d+)?")


class Boolean(fields.Boolean):
    """A JSON boolean in a request body: `true` or `false`, never `0`, `1`, `"true"` or `"yes"`, so the
    server takes exactly what the document's `type: boolean` allows. (Query strings keep marshmallow's
    Boolean: there every value is text.)"""

    def _deserialize(self, value, attr, data, **kwargs) -> bool:
        # Not truthy={True}: 1 == True and 0 == False, so a set of them still lets 0 and 1 through.
        if not isinstance(value, bool):
            raise self.make_error("invalid", input=value)
        return value


class Integer(fields.Integer):
    """A JSON integer in a request body: `3`, never `3.0`, `3.5` (which marshmallow would truncate) or `"3"`,
    as the document's `type: integer` says. (Query strings keep marshmallow's Integer.)"""

    def __init__(self, **kwargs) -> None:
        kwargs["strict"] = True
        super().__init__(**kwargs)


def _whole_upto(high: str, *, positive: bool) -> list[str]:
    """Regex alternatives for the whole numbers 0 (or 1) .. high without leading zeros, digit by digit."""
    width = len(high)
    alternatives = [r"[1-9]" if positive else r"\d"] if width > 1 else []
    if width > 2:
        alternatives.append(r"[1-9]\d" + (r"{1,%d}" % (width - 2) if width > 3 else ""))
    for i, char in enumerate(high):
        digit, start = int(char), (1 if i == 0 and (width > 1 or positive) else 0)
        if digit > start:
            rest = width - i - 1
            low = f"[{start}-{digit - 1}]" if digit - 1 > start else str(start)
            alternatives.append(high[:i] + low + (r"\d{%d}" % rest if rest > 1 else r"\d" if rest == 1 else ""))
    alternatives.append(high)
    return alternatives


def money_pattern(minimum: Decimal, maximum: Decimal) -> str:
    """The published pattern of an amount in [minimum, maximum] with exactly two decimals (minimum 0.00 or
    0.01), so a client generated from the document sends only what the server accepts."""
    whole, cents = divmod(int(maximum * 100), 100)
    positive = minimum > 0
    if set(str(whole)) == {"9"} and cents == 99:
        integer = r"[1-9]\d{0,%d}" % (len(str(whole)) - 1) if positive else r"\d{1,%d}" % len(str(whole))
        parts = [integer + r"\.\d{2}"]
    else:
        parts = []
        if whole > 1 or (whole == 1 and not positive):
            parts.append("(?:%s)\\.\\d{2}" % "|".join(_whole_upto(str(whole - 1), positive=positive)))
        if whole > 0:
            tens, ones = divmod(cents, 10)
            last = ([f"[0-{tens - 1}]\\d"] if tens > 1 else ["0\\d"] if tens == 1 else []) + [f"{tens}[0-{ones}]"]
            parts.append(f"{whole}\\.(?:{'|'.join(last)})")
    if positive:
        parts.append(r"0\.(?:0[1-9]|[1-9]\d)")
    return "^(?:%s)$" % "|".join(parts)


class Money(fields.Field):
    """US dollars and cents, the one money type of the API.

    Out: a string with exactly two decimals ("25000.00"), never a float, so no client loses a cent to
    binary rounding. In: that string, or fewer decimals ("25000", "25000.5"), or a JSON number; the
    document declares `type: [string, number]` (README "Strict input"). More
    than two decimals is refused (422), never rounded; so are exponents, NaN, Infinity and anything
    beyond 12 integer digits, which the database could not hold (Numeric(14, 2)).
    """

    default_error_messages = {"invalid": "Not an amount of money.", "places": "At most two decimal places.",
                              "range": "Must be from {minimum} to {maximum}."}

    def __init__(self, *, minimum: str = "0.00", maximum: str = str(MONEY_MAX), **kwargs) -> None:
        self.minimum, self.maximum = Decimal(minimum), Decimal(maximum)
        if not (Decimal("0") <= self.minimum <= CENT and self.maximum <= MONEY_MAX):
            raise ValueError("Money bounds: minimum 0.00 or 0.01, maximum at most %s" % MONEY_MAX)
        # Both alternatives, as the server takes them: the pattern constrains the string, minimum and
        # maximum the number (JSON Schema applies each keyword only to its own type).
        metadata = {"type": ["string", "number"], "format": "decimal", "example": "1250.00",
                    "pattern": money_pattern(self.minimum, self.maximum),
                    "minimum": float(self.minimum), "maximum": float(self.maximum),
                    "x-minimum": str(self.minimum), "x-maximum": str(self.maximum),
                    **kwargs.pop("metadata", {})}
        metadata.setdefault("description", f"US dollars, {self.minimum} to {self.maximum}: a string with two "
                                           "decimals (\"1250.00\") or a JSON number with at most two (1250.5). "
                                           "Answers are always the string.")
        super().__init__(metadata=metadata, **kwargs)

    def _serialize(self, value, attr, obj, **kwargs):
        return None if value is None else str(Decimal(value).quantize(CENT))

    def _deserialize(self, value, attr, data, **kwargs) -> Decimal:
        if isinstance(value, bool) or not isinstance(value, (str, int, float, Decimal)):
            raise self.make_error("invalid")
        text = value.strip() if isinstance(value, str) else repr(value) if isinstance(value, float) else str(value)
        if isinstance(value, str) and not _MONEY_TEXT.fullmatch(text):
            raise self.make_error("invalid")
        try:
            amount = Decimal(text)
        except InvalidOperation:
            raise self.make_error("invalid") from None
        if not amount.is_finite():
            raise self.make_error("invalid")
        # The range first: quantize() on 1E+30 or a 29-digit amount would raise InvalidOperation.
        if not self.minimum <= amount <= self.maximum:
            raise self.make_error("range", minimum=self.minimum, maximum=self.maximum)
        if amount != amount.quantize(CENT):
            raise self.make_error("places")
        return amount.quantize(CENT)


EMAIL_MAX_LENGTH = 254  # RFC 5321 §4.5.3.1.3: a path of 256 octets, less its angle brackets


class EmailAddress(fields.Email):
    """The one e-mail address field: an address the Town's notices can reach on the internet.

    marshmallow's syntax check, at most 254 characters, and a domain that is a name with a dot and a
    top-level label that is not all digits (RFC 3696 §2). An address literal (`postmaster@[10.0.0.5]`,
    RFC 5321 §4.1.3), a bare host name (`root@localhost`) or a dotted IP address names a machine, not a
    mailbox at a domain, and would have the worker deliver notices wherever it points."""

    default_error_messages = {"domain": "Give an address at an internet domain name (like town.example), "
                                        "not an IP address or a host name."}

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.validators.append(validate.Length(max=EMAIL_MAX_LENGTH))
        self.validators.append(self._named_domain)

    def _named_domain(self, value: str) -> None:
        domain = value.rpartition("@")[2]
        labels = domain.split(".")
        if domain.startswith("[") or len(labels) < 2 or labels[-1].isdigit():
            raise self.make_error("domain")


GPS_SOURCES = ("gps", "network", "manual", "exif", "device")


class GpsFixSchema(Schema):
    """THE location of a record made in the field: a WGS 84 point with what the device knew of it."""

    lat = fields.Float(required=True, allow_nan=False, validate=validate.Range(min=-90, max=90))
    lon = fields.Float(required=True, allow_nan=False, validate=validate.Range(min=-180, max=180))
    accuracy_m = fields.Float(allow_none=True, allow_nan=False, validate=validate.Range(min=0, max=100_000),
                              metadata={"description": "Horizontal accuracy (metres, 68%) the device reported"})
    altitude_m = fields.Float(allow_none=True, allow_nan=False, validate=validate.Range(min=-1_000, max=10_000),
                              metadata={"description": "Height above the WGS 84 ellipsoid (metres)"})
    source = fields.String(allow_none=True, validate=validate.OneOf(GPS_SOURCES),
                           metadata={"description": "Where the fix came from: `gps`, `network` or `manual` on a "
                                                    "device; `exif` or `device` for a photo's chosen location"})


GPS_FIX_FIELDS = ("lat", "lon", "accuracy_m", "altitude_m", "source")
GPS_FIX_COLUMNS = tuple(f"location_{name}" for name in GPS_FIX_FIELDS)


def gps_fix_columns(fix: dict | None) -> dict:
    """A loaded GpsFix (or None, to clear it) as the location_* columns of a record."""
    return {f"location_{name}": (fix or {}).get(name) for name in GPS_FIX_FIELDS}


def gps_fix_of(record) -> dict | None:
    """The record's location_* columns as a GpsFix; optional parts it never had are left out, so a
    device reads back exactly what it sent."""
    columns = values_of(record, GPS_FIX_COLUMNS, None)
    if columns["location_lat"] is None or columns["location_lon"] is None:
        return None
    return {name: value for name, value in zip(GPS_FIX_FIELDS, columns.values())
            if value is not None or name in ("lat", "lon")}


class ErrorSchema(Schema):
    """THE error shape of every non-2xx answer (API.md "Errors"); published as the `Error` component."""

    class Meta:
        unknown = "raise"

    code = Integer(required=True, metadata={"description": "The HTTP status code"})
    status = fields.String(required=True, metadata={"description": "The HTTP reason phrase"})
    message = fields.String(required=True, metadata={"description": "What went wrong, for a person"})
    error = fields.String(required=True, metadata={"description": "A stable key for programs, e.g. "
                                                                  "`validation_error`, `version_conflict`"})
    errors = fields.Dict(required=True, metadata={"description": "Per field (or other detail) messages; may be "
                                                                 "empty"})


class RecordFieldsSchema(Schema):
    """What every record answers beside its own fields (DOMAIN.md "Evidence"): who made it, on which
    device, when by the device clock and by the server clock, and its version."""

    id = fields.String(dump_only=True)
    version = Integer(dump_only=True)
    created_at = fields.AwareDateTime(dump_only=True)
    updated_at = fields.AwareDateTime(dump_only=True)
    created_by = fields.String(dump_only=True, allow_none=True)
    device_id = fields.String(dump_only=True, allow_none=True)
    device_created_at = fields.AwareDateTime(dump_only=True, allow_none=True)


class EditSchema(Schema):
    """The update schema of a record devices sync: a PATCH may send back the record as GET gave it,
    read-only fields and all, with the fields it edits changed. The request parser settles such a body
    against the stored record before this schema loads it (http.settle_patch_body, registered by sync);
    the schema itself checks shape only."""
