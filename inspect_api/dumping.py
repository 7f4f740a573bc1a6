"""The base of the app's schemas: marshmallow's Schema, dumping a record the same way with less work per
field, which is most of what a list of a hundred records costs.

marshmallow asks each field to fetch its value through the schema's accessor (`get_value`, which
tries `obj[key]` and then `getattr`) and then to format it. For a field that keeps marshmallow's own
`serialize` and `get_value`, under a schema that keeps its own `get_attribute`, this base fetches the
value directly (an attribute of an object; a key, or else an attribute, of a dict: as `get_value`
would; a dotted path through marshmallow's own `utils.get_value`, which is what the accessor calls),
and a field that reads nothing (`fields.Function`, `fields.Method`) formats the object, as
`Field.serialize` has it do. Any other field or kind of object goes marshmallow's way.

Each schema writes its dumping out once as a Python function with a few lines per field (`_compile`),
so a record costs no loop over its fields and no call per plain value: where a field formats as
marshmallow's own text, number, boolean, ISO date and time, mapping (without key or value fields),
nested schema (of this base, without dump hooks) and list fields do, the function formats the value inline exactly as that field's `_serialize`
would; any other field is asked to format it itself. A value that is absent goes marshmallow's way for
that field alone (its dump_default, or no key). The function's text is made from the schema's own
field declarations only, never from data.
"""
from __future__ import annotations

from typing import Any, Callable

import marshmallow
from marshmallow import fields, missing, utils
from marshmallow.decorators import POST_DUMP, PRE_DUMP

_FIELD_SERIALIZE = fields.Field.serialize
_FIELD_GET_VALUE = fields.Field.get_value
_GET_ATTRIBUTE = marshmallow.Schema.get_attribute
_TEMPORAL = getattr(fields, "_TemporalField", None)  # DateTime, Date and Time's base, where they format
_MAPPING_TYPES: dict[type, bool] = {}  # a type: whether marshmallow would read it by key (has __getitem__)
# The text of a schema's dumping, compiled: a schema made anew for each request compiles it once.
_COMPILED: dict[str, Any] = {}


def _keeps(field: fields.Field, base: type, method: str = "_serialize") -> bool:
    """Whether `field` is a `base` that formats with `base`'s own `method`."""
    return isinstance(field, base) and getattr(type(field), method) is getattr(base, method)


def _inline(field: fields.Field, value: str, name: str, ref: str, refs: dict[str, Any]) -> str | None:
    """An expression giving what `field._serialize(value, name, obj)` gives for the value of the
    expression `value`, or None when the field has to be asked. The objects it names are added to
    `refs` under names starting with `ref`."""
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


class Schema(marshmallow.Schema):
    _dumpers: tuple[Callable[[Any], dict], Callable[[dict], dict]] | None = None

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

    def _compile(self) -> tuple[Callable[[Any], dict], Callable[[dict], dict]]:
        """This schema's dumping of one object and of one dict, written out as two functions."""
        own_accessor = type(self).get_attribute is _GET_ATTRIBUTE
        refs: dict[str, Any] = {"_missing": missing, "_getattr": getattr, "_accessor": self.get_attribute,
                                "_get_value": utils.get_value, "_absent": self._dump_absent}
        lines: dict[str, list[str]] = {"obj": [], "dict": []}
        for index, (name, field) in enumerate(self.dump_fields.items()):
            key = name if field.data_key is None else field.data_key
            ref = f"_f{index}"
            refs[ref] = field
            source = self._direct_source(name, field, own_accessor)
            if source is None or source == "":
                call = (f"{ref}.serialize({name!r}, obj, accessor=_accessor)" if source is None
                        else f"{ref}._serialize(None, {name!r}, obj)")  # what Field.serialize does for it
                for kind in lines:
                    lines[kind] += [f"    value = {call}", f"    if value is not _missing: out[{key!r}] = value"]
                continue
            formatted = _inline(field, "value", name, f"_v{index}", refs)
            if formatted is None:
                setting = [f"    value = {ref}._serialize(value, {name!r}, obj)",
                           f"    if value is not _missing: out[{key!r}] = value"]
            else:
                setting = [f"    out[{key!r}] = {formatted}"]
            if "." in source:  # the schema's accessor, as Field.get_value would call it
                reads = dict.fromkeys(lines, f"_get_value(obj, {source!r}, _missing)")
            else:
                reads = {"obj": f"_getattr(obj, {source!r}, _missing)",
                         "dict": f"obj[{source!r}] if {source!r} in obj else _getattr(obj, {source!r}, _missing)"}
            for kind, read in reads.items():
                lines[kind] += [f"    value = {read}",
                                f"    if value is _missing: _absent({key!r}, {name!r}, {ref}, obj, out)",
                                "    else:", *("    " + line for line in setting)]
        made: dict[str, Any] = {}
        for kind, body in lines.items():
            text = "\n".join([f"def dump_{kind}(obj):", "    out = {}", *body, "    return out"])
            code = _COMPILED.get(text)
            if code is None:
                code = _COMPILED[text] = compile(text, f"<dump {type(self).__qualname__}>", "exec")
            exec(code, refs, made)  # noqa: S102  (defines the function, on this instance's fields)
        return made["dump_obj"], made["dump_dict"]

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
            dumpers = self._dumpers = self._compile()
        if kind is dict:
            return dumpers[1](obj)
        mapping = _MAPPING_TYPES.get(kind)
        if mapping is None:
            mapping = _MAPPING_TYPES[kind] = hasattr(obj, "__getitem__")
        if obj is None or mapping:
            return super()._serialize(obj)
        return dumpers[0](obj)

    def _serialize(self, obj: Any, *, many: bool = False):
        if many and obj is not None:
            dump_one = self._dump_one
            return [dump_one(item) for item in obj]
        return self._dump_one(obj)
