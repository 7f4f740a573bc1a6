"""One location shape: every record with a GPS fix publishes the same GpsFix schema."""
from __future__ import annotations


def _resolve(spec, prop):
    """The component a property refers to, through allOf/anyOf wrappers used for nullability."""
    if "$ref" in prop:
        return prop["$ref"]
    for key in ("allOf", "anyOf", "oneOf"):
        for part in prop.get(key, []):
            if "$ref" in part:
                return part["$ref"]
    return None


def test_every_gps_fix_is_one_component(client):
    spec = client.get("/api/v1/openapi.json").get_json()
    schemas = spec["components"]["schemas"]
    places = [("Inspection", "location"), ("InspectionCreate", "location"), ("Sample", "location"),
              ("SampleCreate", "location"), ("Photo", "exif_gps"), ("Photo", "device_gps"), ("Photo", "location")]
    refs = {(name, prop): _resolve(spec, schemas[name]["properties"][prop]) for name, prop in places}
    assert set(refs.values()) == {"#/components/schemas/GpsFix"}, refs
    assert set(schemas["GpsFix"]["properties"]) == {"lat", "lon", "accuracy_m", "altitude_m", "source"}
    assert schemas["GpsFix"]["required"] == ["lat", "lon"]
