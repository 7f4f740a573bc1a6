"""The faster JSON writer and schema base give exactly what Flask's provider and marshmallow give."""
from __future__ import annotations

import dataclasses
import uuid
from datetime import date, datetime, timezone
from decimal import Decimal

import marshmallow
from flask import Flask
from flask.json.provider import DefaultJSONProvider
from marshmallow import fields

from inspect_api.dumping import Schema
from inspect_api.json_provider import OrjsonProvider


@dataclasses.dataclass
class _Held:
    amount: Decimal
    on: date


VALUES = [
    {"text": "".join(chr(i) for i in range(0x250)) + "\U0001F600 \u2028 \ufeff \x7f", "b": [1, 2.5, None, True],
     "z": {"y": 1, "a": 2}},
    {"day": date(2026, 1, 2), "at": datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc)},
    {"money": Decimal("1.10"), "id": uuid.UUID("12345678-1234-5678-1234-567812345678"), "held": _Held(Decimal("5"), date(2026, 5, 1))},
    2 ** 70,  # past orjson's 64 bits: the standard library writes it
    {1: "a", 10: "b", 2: "c"},  # keys that are not text: the standard library sorts and writes them
    [{"é": 1, "e": 2, "Z": 3}],
    "lone \ud800 surrogate",
    [],
]


def test_the_json_provider_writes_what_flasks_own_provider_writes():
    app = Flask(__name__)
    fast, plain = OrjsonProvider(app), DefaultJSONProvider(app)
    with app.app_context():
        for value in VALUES:
            assert fast.response(value).get_data() == plain.response(value).get_data(), value
            assert fast.dumps(value, separators=(",", ":")) == plain.dumps(value, separators=(",", ":"))
            assert fast.dumps(value) == plain.dumps(value)  # without separators: ", " and ": "
        assert fast.response(VALUES[2]).get_data() == (
            b'{"held":{"amount":"5","on":"Fri, 01 May 2026 00:00:00 GMT"},'
            b'"id":"12345678-1234-5678-1234-567812345678","money":"1.10"}\n')


def test_the_app_answers_with_the_orjson_provider(app, client):
    assert isinstance(app.json, OrjsonProvider)
    r = client.get("/api/v1/permits")  # the one error shape, written by it
    assert r.status_code == 401
    body = r.get_json()
    assert body["code"] == 401 and body["status"] == "Unauthorized"
    assert r.data.startswith(b'{"code":401,"error":') and r.data.endswith(b'"status":"Unauthorized"}\n')


class _Inner(Schema):
    key = fields.String()
    when = fields.Date(allow_none=True)
    items = fields.List(fields.String())


class _Record(Schema):
    id = fields.String()
    name = fields.String(data_key="title")
    count = fields.Integer(attribute="total")
    missing_default = fields.String(dump_default="none given")
    flag = fields.Function(lambda obj: "flagged")
    nested = fields.Nested(_Inner, allow_none=True)
    many = fields.List(fields.Nested(_Inner))
    dotted = fields.String(attribute="nested.key")


class _Plain(marshmallow.Schema):
    """The same fields on marshmallow's own Schema."""

    class _Inner(marshmallow.Schema):
        key = fields.String()
        when = fields.Date(allow_none=True)
        items = fields.List(fields.String())

    id = fields.String()
    name = fields.String(data_key="title")
    count = fields.Integer(attribute="total")
    missing_default = fields.String(dump_default="none given")
    flag = fields.Function(lambda obj: "flagged")
    nested = fields.Nested(_Inner, allow_none=True)
    many = fields.List(fields.Nested(_Inner))
    dotted = fields.String(attribute="nested.key")


class _Object:
    def __init__(self, **values) -> None:
        self.__dict__.update(values)


def test_the_schema_base_dumps_what_marshmallow_dumps():
    inner = {"key": "a", "when": date(2026, 3, 4), "items": ["x", 2]}
    records = [
        _Object(id="1", name="first", total="7", nested=inner, many=[inner, {"key": "b", "items": []}]),
        _Object(id="2", name=None, total=None, nested=None, many=[]),
        {"id": "3", "name": "a dict", "total": 3, "nested": inner, "many": [], "items": "a key named as a method"},
        {"id": "4"},  # keys absent: skipped, or their default
    ]
    assert _Record(many=True).dump(records) == _Plain(many=True).dump(records)
    assert _Record().dump(records[0]) == {
        "id": "1", "title": "first", "count": 7, "missing_default": "none given", "flag": "flagged",
        "nested": {"key": "a", "when": "2026-03-04", "items": ["x", "2"]},
        "many": [{"key": "a", "when": "2026-03-04", "items": ["x", "2"]}, {"key": "b", "items": []}],
        "dotted": "a"}
