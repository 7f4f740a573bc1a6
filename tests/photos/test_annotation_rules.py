"""The markup model at its edges (photos/annotation_rules.py, loaded through the schemas a push is loaded
with): points per kind, coordinates in [0, 1], text on labels only and at most 200 characters, at most
100 shapes and 20,000 points, colours as #rrggbb, unknown fields refused. Each error names its field."""
from __future__ import annotations

import uuid

import pytest
from marshmallow import ValidationError

from inspect_api.photos import annotation_rules as rules
from inspect_api.photos.schemas import PhotoAnnotationCreateSchema, PhotoAnnotationUpdateSchema

RED = "#ff2a1a"


def shape(kind="arrow", points=None, **extra):
    defaults = {"arrow": [[0.1, 0.1], [0.5, 0.5]], "circle": [[0.2, 0.2], [0.4, 0.6]],
                "freehand": [[0.1, 0.1], [0.2, 0.3]], "text": [[0.3, 0.3]]}
    body = {"kind": kind, "points": points if points is not None else defaults[kind], "colour": RED}
    if kind == "text" and "text" not in extra:
        body["text"] = "Silt fence down"
    body.update(extra)
    return body


def load(*shapes, schema=None):
    schema = schema or PhotoAnnotationCreateSchema()
    body = {"photo_id": str(uuid.uuid4()), "shapes": list(shapes)}
    if isinstance(schema, PhotoAnnotationUpdateSchema):
        body.pop("photo_id")
    return schema.load(body)


def errors_of(*shapes, schema=None) -> dict:
    with pytest.raises(ValidationError) as exc:
        load(*shapes, schema=schema)
    return exc.value.messages


@pytest.mark.parametrize("kind, fewest, most", [("arrow", 2, 2), ("circle", 2, 2), ("text", 1, 1),
                                                ("freehand", 2, 2000)])
def test_each_kind_takes_its_number_of_points_and_no_other(kind, fewest, most):
    point = [0.5, 0.5]
    assert load(shape(kind, [point] * fewest))["shapes"][0]["points"] == [point] * fewest
    assert load(shape(kind, [point] * most))["shapes"][0]["points"] == [point] * most
    assert "points" in errors_of(shape(kind, [point] * (most + 1)))["shapes"][0]
    if fewest > 1:
        assert "points" in errors_of(shape(kind, [point] * (fewest - 1)))["shapes"][0]


def test_an_arrow_with_three_points_is_refused_naming_the_shape_and_field():
    assert errors_of(shape("arrow"), shape("arrow", [[0.1, 0.1], [0.2, 0.2], [0.3, 0.3]])) == {
        "shapes": {1: {"points": ["An arrow has exactly 2 points: its tail, then its head."]}}}


def test_freehand_edges_2000_points_kept_2001_refused():
    line = [[i / 2000, 1 - i / 2000] for i in range(2000)]
    assert len(load(shape("freehand", line))["shapes"][0]["points"]) == 2000
    assert errors_of(shape("freehand", line + [[0.5, 0.5]]))["shapes"][0]["points"] == [
        "Length must be between 1 and 2000."]


@pytest.mark.parametrize("value", [0, 0.0, 1, 1.0, 0.5])
def test_a_coordinate_from_0_to_1_is_kept(value):
    assert load(shape("text", [[value, value]]))["shapes"][0]["points"] == [[value, value]]


@pytest.mark.parametrize("value", [1.0001, -0.0001, 2, "0.5", True, None, float("nan")])
def test_a_coordinate_outside_0_to_1_or_not_a_number_is_refused(value):
    messages = errors_of(shape("arrow", [[0.1, 0.1], [0.2, value]]))
    assert list(messages["shapes"][0]["points"][1]) == [1], messages


def test_a_point_is_a_pair():
    assert errors_of(shape("text", [[0.1, 0.2, 0.3]]))["shapes"][0]["points"] == {0: ["A point is an [x, y] pair."]}


def test_text_200_characters_kept_201_refused():
    assert load(shape("text", text="x" * 200))["shapes"][0]["text"] == "x" * 200
    assert errors_of(shape("text", text="x" * 201))["shapes"][0]["text"] == ["Length must be between 1 and 200."]


@pytest.mark.parametrize("text, message", [
    (None, "A text label needs its text."),
    ("   ", "A text label needs some text, not only spaces."),
    ("two\nlines", "One line of text, without line breaks or control characters."),
])
def test_a_label_needs_one_line_of_text(text, message):
    body = shape("text")
    body["text"] = text
    assert errors_of(body)["shapes"][0]["text"] == [message]


def test_text_is_refused_on_other_kinds_but_null_is_no_text():
    assert errors_of(shape("circle", text="here"))["shapes"][0]["text"] == [
        "Only a text label has text; this is a circle."]
    assert rules.normalised(load(shape("arrow", text=None))["shapes"]) == [
        {"kind": "arrow", "points": [[0.1, 0.1], [0.5, 0.5]], "colour": RED}]


def test_100_shapes_kept_101_refused():
    assert len(load(*[shape("circle")] * 100)["shapes"]) == 100
    assert errors_of(*[shape("circle")] * 101) == {"shapes": ["Longer than maximum length 100."]}


def test_an_emptied_markup_loads_and_all_shapes_hold_at_most_20000_points():
    assert load()["shapes"] == []
    line = [[0.5, 0.5]] * 2000
    assert len(load(*[shape("freehand", line)] * 10)["shapes"]) == 10
    assert errors_of(*[shape("freehand", line)] * 10, shape("text")) == {
        "shapes": ["At most 20000 points in one annotation, all shapes together; this one has 20001."]}


@pytest.mark.parametrize("colour", ["red", "#ff2a1", "#ff2a1aa", "ff2a1a", "#gg0000", "", None])
def test_a_colour_is_hash_rrggbb(colour):
    messages = errors_of(shape("arrow", colour=colour))["shapes"][0]["colour"]
    assert messages in (["A colour is #rrggbb."], ["Field may not be null."])


def test_colours_are_kept_in_lower_case():
    assert rules.normalised(load(shape("circle", colour="#FF2A1A"))["shapes"])[0]["colour"] == "#ff2a1a"


@pytest.mark.parametrize("schema", [PhotoAnnotationCreateSchema(), PhotoAnnotationUpdateSchema()])
def test_unknown_fields_and_kinds_are_refused(schema):
    assert errors_of(shape("arrow", width=3), schema=schema) == {"shapes": {0: {"width": ["Unknown field."]}}}
    assert errors_of({**shape("arrow"), "kind": "square"}, schema=schema)["shapes"][0]["kind"] == [
        "Must be one of: arrow, circle, freehand, text."]
    with pytest.raises(ValidationError) as exc:
        schema.load({"shapes": [], "layer": 2, **({"photo_id": str(uuid.uuid4())}
                                                  if isinstance(schema, PhotoAnnotationCreateSchema) else {})})
    assert exc.value.messages == {"layer": ["Unknown field."]}


def test_the_photo_is_required_on_create():
    with pytest.raises(ValidationError) as exc:
        PhotoAnnotationCreateSchema().load({"shapes": [shape()]})
    assert exc.value.messages == {"photo_id": ["Missing data for required field."]}


@pytest.mark.parametrize("role, author, allowed", [("supervisor", False, True), ("inspector", True, True),
                                                   ("inspector", False, False), ("applicant", False, False)])
def test_only_the_author_or_a_supervisor_changes_a_markup(role, author, allowed):
    assert rules.may_change(role, author=author) is allowed


def test_a_locked_record_takes_markup_from_supervisors_only():
    assert rules.refused_by_lock("inspector", locked=True) and rules.refused_by_lock("applicant", locked=True)
    assert not rules.refused_by_lock("supervisor", locked=True)
    assert not rules.refused_by_lock("inspector", locked=False)


def test_the_audit_summary_names_the_drawing_without_every_point():
    shapes = rules.normalised([shape("arrow"), shape("text", text="Plume"), shape("freehand")])
    summary = rules.summary(shapes)
    assert summary["shapes"] == {"arrow": 1, "freehand": 1, "text": 1}
    assert summary["points"] == 5 and summary["texts"] == ["Plume"] and summary["colours"] == [RED]
    assert len(summary["shapes_sha256"]) == 64
    assert rules.summary(shapes[:2])["shapes_sha256"] != summary["shapes_sha256"]
