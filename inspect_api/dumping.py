"""The base of the app's schemas: marshmallow's Schema, dumping a record the same way with less work per
field, which is most of what a list of a hundred records costs.

marshmallow asks each field to fetch its value through the schema's accessor (`get_value`, which
tries `obj[key]` and then `getattr`) and then to format it. For a field that keeps marshmallow's own
`serialize` and `get_value`, under a schema that keeps its own `get_attribute`, this base fetches the
value directly (an attribute of an object, a key or else an attribute of a dict, as `get_value`
would) and calls the field's own formatting (`_serialize`), so every value comes out as marshmallow
would give it. Any other field, dotted attribute or kind of object goes marshmallow's way.
"""
from __future__ import annotations

from typing import Any

import marshmallow
from marshmallow import fields, missing

_FIELD_SERIALIZE = fields.Field.serialize
_FIELD_GET_VALUE = fields.Field.get_value
_GET_ATTRIBUTE = marshmallow.Schema.get_attribute


class Schema(marshmallow.Schema):
    _dump_plan: list[tuple[str, str, fields.Field, str | None]] | None = None

    def _plan(self) -> list[tuple[str, str, fields.Field, str | None]]:
        """For each dumped field: its key in the output, its name, the field, and the attribute to
        read directly (None: ask the field)."""
        if self._dump_plan is None:
            own_accessor = type(self).get_attribute is _GET_ATTRIBUTE
            plan = []
            for name, field in self.dump_fields.items():
                source = name if field.attribute is None else field.attribute
                direct = (own_accessor and field._CHECK_ATTRIBUTE and "." not in source
                          and type(field).serialize is _FIELD_SERIALIZE and type(field).get_value is _FIELD_GET_VALUE)
                plan.append((name if field.data_key is None else field.data_key, name, field,
                             source if direct else None))
            self._dump_plan = plan
        return self._dump_plan

    def _serialize(self, obj: Any, *, many: bool = False):
        if many and obj is not None:
            return [self._serialize(item) for item in obj]
        as_dict = type(obj) is dict
        if obj is None or (not as_dict and hasattr(obj, "__getitem__")):
            return super()._serialize(obj)
        out = self.dict_class()
        for key, name, field, source in self._plan():
            if source is None:
                value = field.serialize(name, obj, accessor=self.get_attribute)
            else:
                if as_dict:
                    value = obj[source] if source in obj else getattr(obj, source, missing)
                else:
                    value = getattr(obj, source, missing)
                if value is missing:
                    default = field.dump_default
                    value = default() if callable(default) else default
                    if value is missing:
                        continue
                value = field._serialize(value, name, obj)
            if value is not missing:
                out[key] = value
        return out
