"""The base of the app's schemas: marshmallow's Schema, dumping a record the same way with less work per
field, which is most of what a list of a hundred records costs.

marshmallow asks each field to fetch its value through the schema's accessor (`get_value`, which
tries `obj[key]` and then `getattr`) and then to format it. For a field that keeps marshmallow's own
`serialize` and `get_value`, under a schema that keeps its own `get_attribute`, this base fetches the
value directly: an attribute of an object (from the object's own `__dict__` where Python's lookup
would give that: `_in_instance_dict`), a key or else an attribute of a dict (as `get_value` would),
a dotted path through marshmallow's own `utils.get_value` (what the accessor calls). A field that
reads nothing (`fields.Function`, `fields.Method`) formats the object, as `Field.serialize` has it
do. Any other field or kind of object goes marshmallow's way.

Each schema writes its dumping out as a Python function with a few lines per field (`_compile`), once
for each type of object it dumps, so a record costs no loop over its fields and no call per plain
value: where a field formats as marshmallow's own text, number, boolean, ISO date and time, mapping
(without key or value fields), nested schema (of this base, without dump hooks) and list fields do,
the function formats the value inline exactly as that field's `_serialize` would (a raw field answers
it as it is); any other field is asked to format it itself. A value that is absent gives no key, or,
for a field with a dump_default, goes marshmallow's way for that field alone. The function's text is
made from the schema's own field declarations and the type's own class attributes only, never from data.
"""
from __future__ import annotations

from datetime import datetime, timezone
from functools import lru_cache
from typing import Any, Callable

import marshmallow
import orjson
from marshmallow import fields, missing, utils
from marshmallow.decorators import POST_DUMP, PRE_DUMP
from sqlalchemy.orm.attributes import InstrumentedAttribute

_FIELD_SERIALIZE = fields.Field.serialize
_FIELD_GET_VALUE = fields.Field.get_value
_GET_ATTRIBUTE = marshmallow.Schema.get_attribute
_TEMPORAL = getattr(fields, "_TemporalField", None)  # DateTime, Date and Time's base, where they format
# The text of a schema's dumping, compiled: a schema made anew for each request compiles it once.
_COMPILED: dict[str, Any] = {}
_ISOFORMAT = datetime.isoformat
_UTC = timezone.utc


def iso_datetime(value: datetime) -> str:
    """`datetime.isoformat(value)`, written by orjson for a plain datetime in UTC (every stored instant
    is read as one): the same text (RFC 3339, "+00:00", microseconds only when there are some) in a
    third of the time, which counts where a page formats a few thousand instants. Anything else,
    another zone, a naive value or a subclass included, is formatted by `isoformat` itself."""
    if value.__class__ is datetime and value.tzinfo is _UTC:
        return orjson.dumps(value)[1:-1].decode()
    return _ISOFORMAT(value)


def fast_formats(functions: dict[str, Callable]) -> dict[str, Callable]:
    """A temporal field's named formats with `datetime.isoformat` written as `iso_datetime`."""
    return {name: iso_datetime if function is _ISOFORMAT else function for name, function in functions.items()}


def _keeps(field: fields.Field, base: type, method: str = "_serialize") -> bool:
    """Whether `field` is a `base` that formats with `base`'s own `method`."""
    return isinstance(field, base) and getattr(type(field), method) is getattr(base, method)


def _inline(field: fields.Field, value: str, name: str, ref: str, refs: dict[str, Any]) -> str | None:
    """An expression giving what `field._serialize(value, name, obj)` gives for the value of the
    expression `value`, or None when the field has to be asked. The objects it names are added to
    `refs` under names starting with `ref`."""
    if type(field) is fields.Raw:  # it formats nothing: the value is answered as it is
        return value
    if _keeps(field, fields.String):
        refs["_text"] = utils.ensure_text_type
        return f"(None if {value} is None else {value} if {value}.__class__ is str else _text({value}))"
    if _keeps(field, fields.Number) and _keeps(field, fields.Number, "_format_num") and not field.as_string \
            and field.num_type in (int, float):
        refs[ref] = field.num_type
        return f"(None if {value} is None else {value} if {value}.__class__ is {ref} else {ref}({value}))"
    if _keeps(field, fields.Boolean):
        refs[ref] = field
        if True in field.truthy and False in field.falsy and False not in field.truthy:
            return f"({value} if {value} is True or {value} is False else {ref}._serialize({value}, {name!r}, obj))"
    if _TEMPORAL is not None and _keeps(field, _TEMPORAL):
        format_function = field.SERIALIZATION_FUNCS.get(field.format or field.DEFAULT_FORMAT)
        if format_function is _ISOFORMAT:
            format_function = iso_datetime
        if format_function is not None:
            refs[ref] = format_function
            return f"(None if {value} is None else {ref}({value}))"
    if _keeps(field, fields.Nested):
        schema = field.schema
        if isinstance(schema, Schema) and not (schema._hooks[PRE_DUMP] or schema._hooks[POST_DUMP]):
            refs[ref] = schema._dump_one
            if schema.many or field.many:
                return f"(None if {value} is None else [{ref}(each) for each in {value}])"
            return f"(None if {value} is None else {ref}({value}))"
    if _keeps(field, fields.Mapping) and field.key_field is None and field.value_field is None:
        refs[ref] = field.mapping_type
        return f"(None if {value} is None else {ref}({value}))"
    if _keeps(field, fields.List) and value != "each":
        inner = _inline(field.inner, "each", name, f"{ref}_", refs)
        if inner is None:
            refs[f"{ref}_"] = field.inner
            inner = f"{ref}_._serialize(each, {name!r}, obj)"
        return f"(None if {value} is None else [{inner} for each in {value}])"
    return None


def _in_instance_dict(kind: type, name: str) -> bool:
    """Whether `getattr(obj, name)` is `obj.__dict__[name]` whenever that key is there, for every
    object of type `kind`: instances have a `__dict__`, attribute lookup is Python's own, and the
    class gives `name` as nothing, a plain value or method (the instance's own wins), or as a mapped
    column or relationship (SQLAlchemy answers a loaded value from the instance's `__dict__`). A
    property or other data descriptor is always asked."""
    if not getattr(kind, "__dictoffset__", 0) or kind.__getattribute__ is not object.__getattribute__:
        return False
    for klass in kind.__mro__:
        if name in klass.__dict__:
            given = klass.__dict__[name]
            if isinstance(given, InstrumentedAttribute):
                return bool(given.impl.supports_population)
            return not (hasattr(type(given), "__set__") or hasattr(type(given), "__delete__"))
    return True


def _attribute_read(kind: type, name: str, default: str | None) -> tuple[str, bool]:
    """An expression giving `getattr(obj, name[, default])` for an object `obj` of type `kind`
    (`default`: the name the default goes by in the written-out code, or None for none), read from
    `state` (the object's `__dict__`) where Python's lookup gives that; and whether it reads `state`."""
    ask = f"_getattr(obj, {name!r})" if default is None else f"_getattr(obj, {name!r}, {default})"
    if _in_instance_dict(kind, name):
        return f"state[{name!r}] if {name!r} in state else {ask}", True
    return ask, False


_NO_DEFAULT = object()


@lru_cache(maxsize=256)
def _values_reader(kind: type, names: tuple[str, ...], default: Any) -> Callable[[Any], dict[str, Any]]:
    """`values_of` for objects of type `kind`, written out as one dict display."""
    reads = [_attribute_read(kind, name, None if default is _NO_DEFAULT else "_default") for name in names]
    items = [f"{name!r}: {read}" for name, (read, _) in zip(names, reads)]
    text = "\n".join(["def read(obj):", *(["    state = obj.__dict__"] if any(s for _, s in reads) else []),
                      "    return {" + ", ".join(items) + "}"])
    made: dict[str, Any] = {}
    exec(compile(text, f"<values of {kind.__qualname__}>", "exec"), {"_getattr": getattr, "_default": default},
         made)  # noqa: S102  (names are a caller's attribute names, never data)
    return made["read"]


def values_of(obj: Any, names: tuple[str, ...], default: Any = _NO_DEFAULT) -> dict[str, Any]:
    """`{name: getattr(obj, name[, default]) for name in names}`, each value read from the object's
    own `__dict__` where Python's lookup would give that (`_in_instance_dict`: a loaded column or
    relationship of a record costs no descriptor call); anything else (a property, an unloaded or
    expired column, an absent attribute) is asked as getattr would ask it."""
    return _values_reader(type(obj), names, default)(obj)


class Schema(marshmallow.Schema):
    _dumpers: dict[type, Callable[[Any], dict]] | None = None  # by the type of what is dumped

    def _direct_source(self, name: str, field: fields.Field, own_accessor: bool) -> str | None:
        """The attribute (or key, or dotted path) of a field read directly; "" for a field that reads
        nothing (a Function or Method field: it formats the object); None when the field reads it
        itself."""
        if not (own_accessor and type(field).serialize is _FIELD_SERIALIZE
                and type(field).get_value is _FIELD_GET_VALUE):
            return None
        if not field._CHECK_ATTRIBUTE:
            return ""
        return name if field.attribute is None else field.attribute

    def _compile(self, kind: type) -> Callable[[Any], dict]:
        """This schema's dumping of one object of type `kind` (a dict, or a kind of object), written
        out as a function."""
        own_accessor = type(self).get_attribute is _GET_ATTRIBUTE
        refs: dict[str, Any] = {"_missing": missing, "_getattr": getattr, "_accessor": self.get_attribute,
                                "_get_value": utils.get_value, "_absent": self._dump_absent}
        body: list[str] = []
        reads_state = False  # whether some value is read from the object's own __dict__
        for index, (name, field) in enumerate(self.dump_fields.items()):
            key = name if field.data_key is None else field.data_key
            ref = f"_f{index}"
            refs[ref] = field
            source = self._direct_source(name, field, own_accessor)
            if source is None or source == "":
                call = (f"{ref}.serialize({name!r}, obj, accessor=_accessor)" if source is None
                        else f"{ref}._serialize(None, {name!r}, obj)")  # what Field.serialize does for it
                body += [f"    value = {call}", f"    if value is not _missing: out[{key!r}] = value"]
                continue
            formatted = _inline(field, "value", name, f"_v{index}", refs)
            if formatted is None:
                setting = [f"    value = {ref}._serialize(value, {name!r}, obj)",
                           f"    if value is not _missing: out[{key!r}] = value"]
            else:
                setting = [f"    out[{key!r}] = {formatted}"]
            if "." in source:  # the schema's accessor, as Field.get_value would call it
                read = f"_get_value(obj, {source!r}, _missing)"
            elif kind is dict:
                read = f"obj[{source!r}] if {source!r} in obj else _getattr(obj, {source!r}, _missing)"
            else:
                read, from_state = _attribute_read(kind, source, "_missing")
                reads_state = reads_state or from_state
            if field.dump_default is missing:  # an absent value gives no key: nothing to ask
                body += [f"    value = {read}", "    if value is not _missing:", *("    " + line for line in setting)]
            else:
                body += [f"    value = {read}", f"    if value is _missing: _absent({key!r}, {name!r}, {ref}, obj, out)",
                         "    else:", *("    " + line for line in setting)]
        text = "\n".join(["def dump(obj):", "    out = {}", *(["    state = obj.__dict__"] if reads_state else []),
                          *body, "    return out"])
        code = _COMPILED.get(text)
        if code is None:
            code = _COMPILED[text] = compile(text, f"<dump {type(self).__qualname__}>", "exec")
        made: dict[str, Any] = {}
        exec(code, refs, made)  # noqa: S102  (defines the function, on this instance's fields)
        return made["dump"]

    def _dump_absent(self, key: str, name: str, field: fields.Field, obj: Any, out: dict) -> None:
        """An absent value, as marshmallow dumps it: the field's dump_default, or no key."""
        default = field.dump_default
        value = default() if callable(default) else default
        if value is not missing:
            value = field._serialize(value, name, obj)
            if value is not missing:
                out[key] = value

    def _dump_one(self, obj: Any):
        kind = type(obj)
        dumpers = self._dumpers
        if dumpers is None:
            dumpers = self._dumpers = {}
        dump = dumpers.get(kind)
        if dump is None:
            mapping = kind is not dict and hasattr(obj, "__getitem__")
            if obj is None or mapping:  # marshmallow reads these by key: its own way
                return super()._serialize(obj)
            dump = dumpers[kind] = self._compile(kind)
        return dump(obj)

    def _serialize(self, obj: Any, *, many: bool = False):
        if many and obj is not None:
            dump_one = self._dump_one
            return [dump_one(item) for item in obj]
        return self._dump_one(obj)
