"""The faster JSON writer, stored-JSON reader and schema base give exactly what Flask's provider, the
standard library and marshmallow give."""
from __future__ import annotations

import dataclasses
import functools
import json
import uuid
from datetime import date, datetime, timedelta, timezone
from decimal import Decimal
from types import SimpleNamespace
from zoneinfo import ZoneInfo

import marshmallow
import pytest
import sqlalchemy as sa
from flask import Flask
from flask.json.provider import DefaultJSONProvider
from marshmallow import fields

from inspect_api import json_provider
from inspect_api.db import UTCDateTime
from inspect_api.dumping import Schema, fast_formats, iso_datetime, values_of
from inspect_api.extensions import db
from inspect_api.json_provider import OrjsonProvider, load_stored
from tests.factories import DEMO_PASSWORDS


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


class _Kinds(Schema):
    """A field of each kind the written-out dumping formats inline, and some it asks."""

    text = fields.String()
    email = fields.Email()
    whole = fields.Integer()
    whole_text = fields.Integer(as_string=True)
    real = fields.Float()
    money = fields.Decimal(places=2)
    flag = fields.Boolean()
    flag_no_defaults = fields.Boolean(truthy={"y"}, falsy={"n"})
    at = fields.DateTime()
    at_rfc = fields.DateTime(format="rfc")
    at_pattern = fields.DateTime(format="%Y/%m/%d")
    day = fields.Date()
    raw = fields.Raw()
    texts = fields.List(fields.String())
    days = fields.List(fields.Date())
    matrix = fields.List(fields.List(fields.Integer()))
    inner = fields.Nested(_Inner)
    inners = fields.Nested(_Inner, many=True)
    inner_list = fields.List(fields.Nested(_Inner, only=("key",)))
    constant = fields.Constant("always")
    later = fields.String(dump_default=lambda: "made when absent")
    method = fields.Method("_shout")
    function = fields.Function(lambda obj: type(obj).__name__)
    mapping = fields.Dict()
    mappings = fields.List(fields.Dict())
    typed_mapping = fields.Dict(keys=fields.String(), values=fields.Integer())
    path = fields.String(attribute="inner.key")  # through a dict, an object, None, or nothing
    path_default = fields.String(attribute="inner.absent", dump_default="no such key")

    def _shout(self, obj):
        return "method"


class _PlainKinds(marshmallow.Schema):
    _Inner = _Plain._Inner
    text, email = fields.String(), fields.Email()
    whole, whole_text, real = fields.Integer(), fields.Integer(as_string=True), fields.Float()
    money = fields.Decimal(places=2)
    flag, flag_no_defaults = fields.Boolean(), fields.Boolean(truthy={"y"}, falsy={"n"})
    at, at_rfc, at_pattern = fields.DateTime(), fields.DateTime(format="rfc"), fields.DateTime(format="%Y/%m/%d")
    day, raw = fields.Date(), fields.Raw()
    texts, days, matrix = fields.List(fields.String()), fields.List(fields.Date()), fields.List(fields.List(fields.Integer()))
    inner, inners = fields.Nested(_Inner), fields.Nested(_Inner, many=True)
    inner_list = fields.List(fields.Nested(_Inner, only=("key",)))
    constant = fields.Constant("always")
    later = fields.String(dump_default=lambda: "made when absent")
    method = fields.Method("_shout")
    function = fields.Function(lambda obj: type(obj).__name__)
    mapping, mappings = fields.Dict(), fields.List(fields.Dict())
    typed_mapping = fields.Dict(keys=fields.String(), values=fields.Integer())
    path = fields.String(attribute="inner.key")
    path_default = fields.String(attribute="inner.absent", dump_default="no such key")

    def _shout(self, obj):
        return "method"


def test_each_kind_of_field_dumps_as_marshmallow_dumps_it():
    """Values of the expected type and of others (text given as bytes or a number, a whole number as
    a float or a bool, a datetime where a date is declared), None, and absent."""
    at = datetime(2026, 12, 5, 14, 30, 1, 250, tzinfo=timezone.utc)
    inner = {"key": "k", "when": date(2026, 1, 2), "items": ["a"]}
    full = dict(text="t", email="a@b.example", whole=3, whole_text=4, real=1.5, money=Decimal("2.5"), flag=True,
                flag_no_defaults="y", at=at, at_rfc=at, at_pattern=at, day=date(2026, 2, 3), raw={"any": [1]},
                texts=["a", 1, b"bytes"], days=[date(2026, 1, 1), at], matrix=[[1, 2.0], []], inner=inner,
                inners=[inner, _Object(key="o", items=())], inner_list=[inner, None], constant="ignored",
                later="given", mapping={"b": [1], "a": None}, mappings=[{"x": 1}, {}], typed_mapping={"n": "2"})
    odd = dict(text=b"bytes", email=7, whole=3.9, whole_text=True, real=2, money=3, flag=0,
               flag_no_defaults="n", at=at, at_rfc=None, at_pattern=None, day=at, raw=None, texts=None, days=[],
               matrix=None, inner=None, inners=[], inner_list=[], later=None, mapping=[("pairs", 1)],
               mappings=[None, [("k", "v")]], typed_mapping={})
    nones = {key: None for key in full}
    for values in (full, odd, nones, {}):
        for record in (_Object(**values), dict(values)):
            assert _Kinds().dump(record) == _PlainKinds().dump(record), values
            assert _Kinds(many=True).dump([record, record]) == _PlainKinds(many=True).dump([record, record])
    assert _Kinds().dump(_Object(**full))["days"] == ["2026-01-01", "2026-12-05"]  # date.isoformat of a datetime
    assert _Kinds().dump({})["later"] == "made when absent" and "text" not in _Kinds().dump({})
    by_object = _Kinds().dump({"inner": _Object(key="of an object")})
    assert (by_object["path"], by_object["path_default"], by_object["function"]) == ("of an object", "no such key", "dict")
    assert _Kinds().dump(_Object(**full))["path"] == "k" and "path" not in _Kinds().dump({})



class _Shadowed:
    """A property wins over an instance's own value of the same name, as Python reads attributes."""

    def __init__(self) -> None:
        self.__dict__["text"] = "the instance's own"
        self.whole = 3

    @property
    def text(self):
        return "the property's"


class _Slotted:
    __slots__ = ("text", "whole")

    def __init__(self) -> None:
        self.text, self.whole = "slotted", 4


class _Cached:
    def __init__(self) -> None:
        self.computed = 0

    @functools.cached_property
    def text(self):
        self.computed += 1
        return f"computed {self.computed} time(s)"


def test_an_object_is_read_as_python_reads_it():
    """The written-out dumping reads an object's own `__dict__` only where that is what Python's
    attribute lookup gives: never past a property, slots or a custom lookup."""
    for record in (_Shadowed(), _Slotted(), _Cached()):
        assert _Kinds().dump(record) == _PlainKinds().dump(record), type(record)
    assert _Kinds().dump(_Shadowed())["text"] == "the property's"
    assert (_Kinds().dump(_Slotted())["text"], _Kinds().dump(_Slotted())["whole"]) == ("slotted", 4)
    cached = _Cached()
    assert [_Kinds().dump(cached)["text"] for _ in range(2)] == ["computed 1 time(s)"] * 2


def test_a_record_with_an_expired_column_is_loaded_again_when_dumped(app, demo_town):
    """A mapped record's loaded columns are read from the record; an expired one is loaded again
    through SQLAlchemy, as marshmallow's reading would."""
    from sqlalchemy import select

    from inspect_api.inspections.models import Finding
    from inspect_api.inspections.schemas import FindingSchema

    finding = db.session.scalars(select(Finding).limit(1)).one()
    expected = marshmallow.Schema._serialize(FindingSchema(), finding)
    db.session.expire(finding, ["description", "due_on"])
    assert "description" not in finding.__dict__
    assert FindingSchema().dump(finding) == expected and finding.__dict__["description"] == expected["description"]


def test_values_of_reads_as_getattr_reads():
    """values_of gives what getattr gives, name by name: a property wins over an instance's own
    value, slots and cached properties are asked (a cached one computed once), an absent attribute
    takes the default or raises as getattr does."""
    for record in (_Shadowed(), _Slotted(), _Cached(), SimpleNamespace(text="plain", whole=5)):
        names = ("text",) if isinstance(record, _Cached) else ("text", "whole")
        assert values_of(record, names) == {name: getattr(record, name) for name in names}, type(record)
    assert values_of(_Shadowed(), ("text", "whole")) == {"text": "the property's", "whole": 3}
    cached = _Cached()
    assert [values_of(cached, ("text",))["text"] for _ in range(2)] == ["computed 1 time(s)"] * 2
    assert values_of(_Slotted(), ("text", "nothing"), None) == {"text": "slotted", "nothing": None}
    assert values_of({"text": "a key"}, ("text",), None) == {"text": None}  # attributes, not keys
    with pytest.raises(AttributeError, match="nothing"):  # no default: as getattr raises
        values_of(SimpleNamespace(), ("nothing",))


def test_values_of_a_record_loads_an_expired_column_again(app, demo_town):
    from sqlalchemy import select

    from inspect_api.inspections.models import Finding

    finding = db.session.scalars(select(Finding).limit(1)).one()
    expected = {"description": finding.description, "due_on": finding.due_on, "overdue": finding.overdue}
    db.session.expire(finding, ["description", "due_on"])
    assert "description" not in finding.__dict__
    assert values_of(finding, ("description", "due_on", "overdue")) == expected
    assert finding.__dict__["description"] == expected["description"]


def test_every_answer_of_the_demo_town_is_what_marshmallow_would_dump(client, demo_town, monkeypatch):
    """The lists, each record of the first page of each, and a first sync pull, as a supervisor and
    an applicant, byte for byte against marshmallow's own dumping."""
    urls = ["/api/v1/permits", "/api/v1/inspections", "/api/v1/findings", "/api/v1/orders", "/api/v1/samples",
            "/api/v1/notifications", "/api/v1/deadlines", "/api/v1/me", "/api/v1/sync/pull"]
    with_items = {"/api/v1/permits", "/api/v1/inspections", "/api/v1/findings", "/api/v1/orders", "/api/v1/samples"}
    answers: dict[tuple[str, str], bytes] = {}

    def read_all(label: str) -> None:
        for role in ("supervisor", "applicant"):
            login = client.post("/api/v1/auth/login", json={"email": demo_town.users[role].email,
                                                             "password": DEMO_PASSWORDS[role]})
            headers = {"Authorization": f"Bearer {login.get_json()['access_token']}"}
            for url in urls if role == "supervisor" else [u for u in urls if u != "/api/v1/deadlines"]:
                r = client.get(url, headers=headers)
                assert r.status_code == 200, (url, r.get_json())
                answers[(label, role, url)] = r.data
                if url in with_items:
                    for item in r.get_json()[:5]:
                        one = client.get(f"{url}/{item['id']}", headers=headers)
                        assert one.status_code == 200, one.get_json()
                        answers[(label, role, f"{url}/{item['id']}")] = one.data

    read_all("written out")
    monkeypatch.setattr(Schema, "_serialize", marshmallow.Schema._serialize)
    read_all("marshmallow")
    mine = {key[1:]: data for key, data in answers.items() if key[0] == "written out"}
    theirs = {key[1:]: data for key, data in answers.items() if key[0] == "marshmallow"}
    assert len(mine) > 40 and mine.keys() == theirs.keys()
    for key in mine:
        assert mine[key] == theirs[key], key


def test_stored_json_reads_back_as_the_standard_library_reads_it(app):
    texts = ['{"a": [1, 2.5, null, true], "b": {"c": "\\u00e9\\ud83d\\ude00"}}', "[]", '"text"',
             "NaN", '{"x": Infinity}', "[1e400]", "123456789012345678901234567890", "[9223372036854775807]",
             '{"n": -12345678901234567890}', '"\\ud800 lone"', '{"a": 1, "a": 2}', "0.1", "1E-7"]
    for text in texts:
        for given in (text, text.encode()):
            read, expected = load_stored(given), json.loads(text)
            assert repr(read) == repr(expected), text  # repr: NaN equals no NaN, and 1 == 1.0
            assert type(read) is type(expected)
    assert load_stored("123456789012345678901234567890") == 123456789012345678901234567890
    assert load_stored('["raw \ud800 surrogate"]') == ["raw \ud800 surrogate"]  # in text from the database
    assert load_stored('[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]') == list(range(1, 12))  # 19 digits in all
    assert load_stored('["1234567890123456789"]') == ["1234567890123456789"]  # 19 in a row, in a string
    assert db.engine.dialect._json_deserializer is load_stored  # the app's engine reads JSON columns with it


STORED_INSTANTS = ["2026-12-06 12:00:00.123456", "2026-12-06 12:00:00", "2026-12-06 12:00", "2026-12-06",
                   "2026-12-06T12:00:00+05:00", "2026-12-06 12:00:00Z", "2026-12-06 23:59:59.999999-04:00",
                   "20261206T120000", "2026-12-06 12:00:00.5", "2024-02-29 00:00:00.000001"]


def test_a_stored_instant_reads_back_as_the_general_reader_reads_it(app):
    """A stored instant comes back aware in UTC, equal to what the type's general reader (the
    dialect's parse, then `process_result_value`) gives, whatever the form of the text."""
    dialect = db.engine.dialect
    kind = UTCDateTime().dialect_impl(dialect)
    fast = kind.result_processor(dialect, None)
    general = sa.types.TypeDecorator.result_processor(kind, dialect, None)
    if dialect.name == "sqlite":
        for text in STORED_INSTANTS:
            read = fast(text)
            assert read == general(text) and read.tzinfo is timezone.utc, text
            assert read.isoformat() == general(text).isoformat(), text
        assert fast(None) is None
        with pytest.raises(ValueError):
            fast("the sixth of December")  # what neither reads is refused as before
    table = sa.Table("instants_read_back", sa.MetaData(), sa.Column("at", UTCDateTime()))
    table.create(db.engine)
    try:
        written = [datetime(2026, 12, 6, 7, 0, 0, 123456, tzinfo=ZoneInfo("America/New_York")),
                   datetime(2026, 12, 6, 23, 59, 59, tzinfo=timezone.utc), datetime(2024, 2, 29, tzinfo=timezone.utc)]
        with db.engine.begin() as conn:
            conn.execute(table.insert(), [{"at": at} for at in written])
            read = conn.scalars(sa.select(table.c.at)).all()
        assert read == written
        assert [at.tzinfo for at in read] == [timezone.utc] * 3
        assert read[0].isoformat() == "2026-12-06T12:00:00.123456+00:00"
    finally:
        table.drop(db.engine)


def test_a_stored_instant_is_read_in_one_parse_on_sqlite(app, monkeypatch):
    """On SQLite the usual text of an instant is read straight into an aware datetime, without the
    general reader's second step (a naive parse, then attaching the zone)."""
    dialect = db.engine.dialect
    if dialect.name != "sqlite":
        pytest.skip("PostgreSQL's driver answers aware datetimes itself")

    def second_step(*_args):
        raise AssertionError("the general reader was used")
    monkeypatch.setattr(UTCDateTime, "process_result_value", second_step)
    read = UTCDateTime().dialect_impl(dialect).result_processor(dialect, None)
    assert read("2026-12-06 12:00:00.123456") == datetime(2026, 12, 6, 12, 0, 0, 123456, tzinfo=timezone.utc)
    with pytest.raises(AssertionError, match="general reader"):
        read("2026-12-06T12:00:00+05:00")  # text with an offset goes the general way


class _Moment(datetime):
    def isoformat(self, *args, **kwargs):
        return "a moment"


def test_an_instant_in_utc_is_written_as_isoformat_writes_it():
    """`iso_datetime`, which the schema base and `UTCInstant` use for marshmallow's "iso" format, gives
    `datetime.isoformat`'s text: for instants in UTC (written by orjson) from the first year to the
    last, with and without microseconds, and for everything else (another zone, naive, a subclass,
    not a datetime), which `isoformat` writes or refuses itself."""
    import random
    chance = random.Random(194)
    first = datetime(1, 1, 1, tzinfo=timezone.utc)
    moments = [first, datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=timezone.utc),
               datetime(2026, 12, 6, 12, 0, tzinfo=timezone.utc), datetime(2026, 12, 6, 12, 0, 0, 1, tzinfo=timezone.utc)]
    moments += [first + timedelta(seconds=chance.randrange(315537897600), microseconds=chance.choice((0, chance.randrange(10 ** 6))))
                for _ in range(5000)]
    for moment in moments:
        assert iso_datetime(moment) == moment.isoformat(), moment
    assert iso_datetime(moments[2]) == "2026-12-06T12:00:00+00:00"
    for other in (datetime(2026, 12, 6, 7, 0, 0, 5, tzinfo=ZoneInfo("America/New_York")), datetime(2026, 12, 6, 12, 0),
                  datetime(2026, 12, 6, 12, 0, tzinfo=timezone(timedelta(0))), _Moment(2026, 12, 6, tzinfo=timezone.utc)):
        assert iso_datetime(other) == datetime.isoformat(other), other
    with pytest.raises(TypeError):
        iso_datetime(date(2026, 12, 6))
    assert fast_formats(fields.AwareDateTime.SERIALIZATION_FUNCS)["iso"] is iso_datetime
    assert fast_formats({"rfc": fields.DateTime.SERIALIZATION_FUNCS["rfc"]}) == {"rfc": fields.DateTime.SERIALIZATION_FUNCS["rfc"]}


def test_a_date_time_field_writes_an_instant_in_utc_through_iso_datetime(monkeypatch):
    """The schema base writes a plain "iso" date-time field, and `UTCInstant` any of its "iso" fields,
    through `iso_datetime`."""
    from inspect_api import dumping
    from inspect_api.entry.schemas import UTCInstant
    written: list[datetime] = []

    def noted(value):
        written.append(value)
        return "noted"
    monkeypatch.setattr(dumping, "iso_datetime", noted)

    class Stamped(Schema):
        at = fields.AwareDateTime()
        iso8601 = fields.DateTime(format="iso8601")
    at = datetime(2026, 12, 6, 12, 0, tzinfo=timezone.utc)
    assert Stamped().dump({"at": at, "iso8601": at}) == {"at": "noted", "iso8601": "noted"}
    assert written == [at, at]
    assert UTCInstant.SERIALIZATION_FUNCS["iso"](datetime(2026, 12, 6, 7, 0, tzinfo=ZoneInfo("America/New_York"))) \
        == "2026-12-06T12:00:00+00:00"


def test_stored_json_of_ids_times_and_coordinates_is_read_by_orjson(monkeypatch):
    """What the records store (ids, ISO times, coordinates: many digits, never 19 in a row) takes the
    fast path; only a run of 19 digits or more, or what orjson refuses, goes to the standard library."""
    stored = json.dumps([{"at": "2026-12-05T18:36:11.123456+00:00", "by": "5e0c4a2b-8d1f-4e6a-9b3c-7f2d1a0e4b58",
                          "lat": 41.63791234567891, "lon": -70.90345678901234, "n": 9223372036854775807 // 10}
                         for _ in range(5)])
    expected = json.loads(stored)
    fallbacks: list[str] = []

    def standard(text):
        fallbacks.append(text)
        return json.loads(text)
    monkeypatch.setattr(json_provider, "json", SimpleNamespace(loads=standard))
    assert load_stored(stored) == expected and load_stored(stored.encode()) == expected
    assert fallbacks == []
    for text in ("[12345678901234567890]", '{"x": NaN}'):
        assert repr(load_stored(text)) == repr(json.loads(text))
    assert fallbacks == ["[12345678901234567890]", '{"x": NaN}']


def test_an_instant_is_answered_in_utc_inline_as_through_marshmallow():
    """UTCInstant (every record's created_at, updated_at, device_created_at): an aware instant in any
    zone is answered in UTC, a naive one as it is; the schema base formats it inline and gives what
    marshmallow's own dumping gives. A strftime pattern is refused when the schema is made."""
    from zoneinfo import ZoneInfo

    import pytest

    from inspect_api.entry.schemas import UTCInstant

    class _Instants(Schema):
        at = UTCInstant(allow_none=True)
        stamp = UTCInstant(format="timestamp", attribute="at", dump_only=True)

    class _PlainInstants(marshmallow.Schema):
        at = UTCInstant(allow_none=True)
        stamp = UTCInstant(format="timestamp", attribute="at", dump_only=True)

    evening = datetime(2026, 12, 5, 21, 30, 5, 120, tzinfo=ZoneInfo("America/New_York"))
    assert _Instants().dump({"at": evening}) == {"at": "2026-12-06T02:30:05.000120+00:00", "stamp": evening.timestamp()}
    naive = datetime(2026, 12, 5, 21, 30)
    for record in ({"at": evening}, {"at": naive}, _Object(at=datetime(2026, 1, 1, tzinfo=timezone.utc)), {"at": None}):
        assert _Instants().dump(record) == _PlainInstants().dump(record)
    assert _Instants().dump({"at": naive})["at"] == "2026-12-05T21:30:00"
    assert UTCInstant().deserialize("2026-12-05T21:30:00-05:00") == evening.replace(second=0, microsecond=0)

    class _Patterned(Schema):
        at = UTCInstant(format="%Y")
    with pytest.raises(ValueError, match="not one of"):
        _Patterned()
