def test_json_body_over_limit_is_413_in_error_shape(app, client):
    app.config["MAX_JSON_BYTES"] = 1024
    big = {"email": "x" * 2000 + "@example.org", "password": "p" * 20, "name": "n"}
    r = client.post("/api/v1/auth/register", json=big)
    assert r.status_code == 413
    assert r.get_json()["error"] == "payload_too_large"


def test_json_body_under_limit_passes(app, client):
    app.config["MAX_JSON_BYTES"] = 4096
    r = client.post("/api/v1/auth/register", json={"email": "small@example.org", "password": "kettle harbor 4 lanes", "name": "N"})
    assert r.status_code == 201, r.get_json()
    assert r.headers["X-Content-Type-Options"] == "nosniff"
    assert r.headers["Cache-Control"] == "no-store"


def test_every_api_blueprint_parses_with_the_apps_parser(app):
    """A PATCH of a record sent back as GET gave it is settled by the request parser of
    inspect_api.http.Blueprint (API.md "Sync"); a blueprint made from flask-smorest's own class
    would load such bodies unsettled and refuse their read-only fields."""
    import flask_smorest

    from inspect_api.http import Blueprint

    smorest = [bp for bp in app.blueprints.values() if isinstance(bp, flask_smorest.Blueprint)]
    assert len(smorest) > 15
    assert [bp.name for bp in smorest if not isinstance(bp, Blueprint)] == []
