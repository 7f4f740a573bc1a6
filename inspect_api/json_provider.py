"""The app's JSON answers, written by orjson: the same text Flask's own provider writes (keys sorted,
non-ASCII escaped as \\uXXXX, dates as HTTP dates, Decimals and UUIDs as strings, compact), several
times faster on a list of a hundred records.

Anything orjson refuses (an integer past 64 bits, a lone surrogate, a dict with non-text keys, nesting
past its limit) is written by the standard library instead, exactly as before. One difference stays:
a float under 1e-4 is written as a decimal (0.00001) where `json` writes an exponent (1e-05); both
read back as the same number. Reading JSON (request bodies) is left to the standard library, whose
errors the request checks (http.py) rely on.
"""
from __future__ import annotations

import codecs
import json
from json.encoder import encode_basestring_ascii
from typing import Any

import orjson
from flask.json.provider import DefaultJSONProvider

_OPTIONS = orjson.OPT_SORT_KEYS | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS
_ESCAPE = "inspect_api.json_ascii"


def _as_json_escapes(error: UnicodeEncodeError) -> tuple[str, int]:
    """A run of non-ASCII characters as `json` writes it with ensure_ascii (\\uXXXX, surrogate pairs
    for characters past U+FFFF). Only text inside strings can be non-ASCII, so the whole document
    can be encoded at once."""
    return encode_basestring_ascii(error.object[error.start:error.end])[1:-1], error.end


codecs.register_error(_ESCAPE, _as_json_escapes)


class OrjsonProvider(DefaultJSONProvider):
    """Flask's DefaultJSONProvider with orjson writing the compact form (the indented debug form and
    every call with extra arguments are the standard library's)."""

    def _compact(self) -> bool:
        return not ((self.compact is None and self._app.debug) or self.compact is False)

    def dump_bytes(self, obj: Any) -> bytes | None:
        """`obj` as compact JSON bytes, or None when orjson cannot write it as `json` would."""
        if not self.sort_keys or not self.ensure_ascii:
            return None
        try:
            data = orjson.dumps(obj, default=self.default, option=_OPTIONS)
        except orjson.JSONEncodeError:
            return None
        if b"\x7f" in data:  # DEL is ASCII, but `json` escapes it too
            data = data.replace(b"\x7f", b"\\u007f")
        return data if data.isascii() else data.decode("utf-8").encode("ascii", _ESCAPE)

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        if kwargs == {"separators": (",", ":")}:  # without them `json` writes ", " and ": "
            data = self.dump_bytes(obj)
            if data is not None:
                return data.decode("ascii")
        return super().dumps(obj, **kwargs)

    def response(self, *args: Any, **kwargs: Any):
        if self._compact():
            data = self.dump_bytes(self._prepare_response_obj(args, kwargs))
            if data is not None:
                return self._app.response_class(data + b"\n", mimetype=self.mimetype)
        return super().response(*args, **kwargs)


# Every byte as "0" if it is a digit and " " if not: a run of 19 digits is then a run of 19 "0"s.
_DIGIT_RUNS = bytes(0x30 if 0x30 <= byte <= 0x39 else 0x20 for byte in range(256))
_LONG_RUN = b"0" * 19


def load_stored(text: str | bytes) -> Any:
    """A stored JSON column's value, read by orjson, exactly as the standard library reads it.

    orjson reads an integer past 64 bits as a float (`json` as the integer), and such an integer is
    a run of at least 19 digits, so a text with such a run goes to the standard library; finding one
    costs two passes in C (a byte translation and a search), less than a tenth of reading. Ids, ISO
    times and coordinates have many digits but never 19 in a row. Text orjson refuses goes there
    too: NaN, the infinities, a number past a double, a lone surrogate escape, nesting past its limit."""
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text  # orjson refuses a lone one
    # (`find`, not `in`: the operator costs about twice the method on such short texts)
    if len(data) < len(_LONG_RUN) or data.translate(_DIGIT_RUNS).find(_LONG_RUN) < 0:  # too short to hold one
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError:
            pass
    return json.loads(text)
