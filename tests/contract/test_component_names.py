"""No component is named what a client generator derives for an inline property.

openapi-python-client names the enum or object written inline in property P of component S
`<S><P>` (PascalCase) and, for an array's inline items, `<S><P>Item`; when a component already has
that name it drops the model S altogether (as it did `Order` for `OrderStatus` and `Citation` for
`CitationViolator`). Component names are set in inspect_api/openapi.py (COMPONENT_NAMES)."""
from __future__ import annotations

import re

API = "/api/v1"


def pascal(*parts: str) -> str:
    words = []
    for part in parts:
        words += [w for w in re.split(r"[^A-Za-z0-9]+", re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", part)) if w]
    return "".join(w[0].upper() + w[1:] for w in words)


def _inline(schema: dict) -> bool:
    """An enum or an object written in place, which a generator turns into a class of its own."""
    if "$ref" in schema:
        return False
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind]
    return "enum" in schema or "object" in kinds or "properties" in schema


def derived_names(name: str, schema: dict, where: str):
    """(where, derived class name, inline schema) for every inline enum or object under `schema`."""
    for prop, sub in (schema.get("properties") or {}).items():
        candidates = [(sub, pascal(name, prop))]
        candidates += [(member, pascal(name, prop)) for key in ("anyOf", "oneOf", "allOf") for member in sub.get(key, [])]
        if "items" in sub:
            candidates.append((sub["items"], pascal(name, prop, "item")))
        for candidate, derived in candidates:
            if _inline(candidate):
                yield f"{where}.{prop}", derived, candidate
                yield from derived_names(derived, candidate, f"{where}.{prop}")


def test_pascal_case_is_the_generators():
    assert pascal("Order", "status") == "OrderStatus"
    assert pascal("Permit", "limit_of_work", "item") == "PermitLimitOfWorkItem"


def test_no_component_is_named_as_a_generator_names_an_inline_property(client):
    components = client.get(f"{API}/openapi.json").get_json()["components"]["schemas"]
    inline = [found for name, schema in components.items() for found in derived_names(name, schema, name)]
    assert len(inline) > 50  # the walk reaches the document's inline enums and objects
    clashes = [f"{where} (inline) is named {derived}, a component" for where, derived, _ in inline
               if derived in components]
    assert clashes == []
