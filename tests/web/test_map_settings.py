"""Base map tiles (README "Base map tiles and offline maps"): the settings checked at start, the
Content-Security-Policy naming the tile server only when one is configured, and GET /api/v1/map-settings
for every signed-in user."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from inspect_api import create_app, maptiles
from inspect_api.config import TestConfig

TILES = "https://tiles.example.gov/osm/{z}/{x}/{y}.png"
CREDIT = "Tiles © Example <GIS> & Town"
ROLES = ("applicant", "inspector", "supervisor", "admin")


def _directives(response) -> dict[str, str]:
    return {d.strip().split(" ", 1)[0]: d.strip() for d in response.headers["Content-Security-Policy"].split(";")}


# -- the settings ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("url, origin", [
    (TILES, "https://tiles.example.gov"),
    ("https://gis.example.gov:8443/tiles/{z}/{y}/{x}", "https://gis.example.gov:8443"),
    ("https://gis.example.gov:443/t?z={z}&x={x}&y={y}", "https://gis.example.gov"),
    ("http://127.0.0.1:8765/{z}/{x}/{y}.png", "http://127.0.0.1:8765"),
    ("http://localhost/{z}/{x}/{y}.png", "http://localhost"),
    ("http://[::1]:9000/{z}/{x}/{y}.png", "http://[::1]:9000"),
])
def test_a_usable_template_and_its_origin(url, origin):
    config = {"MAP_TILE_URL": url, "MAP_TILE_ATTRIBUTION": "  Tiles   by the Town "}
    maptiles.check(config)
    assert maptiles.tile_origin(config) == origin
    assert maptiles.tile_settings(config) == {"url": url, "attribution": "Tiles by the Town", "min_zoom": 0, "max_zoom": 19}
    assert maptiles.offline_settings(config) == {"zooms": [14, 15, 16, 17], "budget_bytes": 150 * 1024 * 1024}


@pytest.mark.parametrize("url, says", [
    ("http://tiles.example.gov/{z}/{x}/{y}.png", "must be https (http only on a loopback host"),
    ("http://10.0.0.5/{z}/{x}/{y}.png", "must be https (http only on a loopback host"),
    ("http://127.0.0.1.example.org/{z}/{x}/{y}.png", "must be https (http only on a loopback host"),
    ("ftp://tiles.example.gov/{z}/{x}/{y}.png", "must be an https address"),
    ("tiles.example.gov/{z}/{x}/{y}.png", "must be an https address"),
    ("https://tiles.example.gov/{x}/{y}.png", "{z}, {x} and {y} once each"),
    ("https://tiles.example.gov/{z}/{x}/{y}/{z}.png", "{z}, {x} and {y} once each"),
    ("https://tiles.example.gov/{z}/{x}/{y}{r}.png", "{z}, {x} and {y} once each"),
    ("https://{s}.tiles.example.gov/{z}/{x}/{y}.png", "must name one host"),
    ("https://user:secret@tiles.example.gov/{z}/{x}/{y}.png", "must not carry a user name or password"),
    ("https://tiles.example.gov:99999/{z}/{x}/{y}.png", "invalid port"),
    ("https://tiles.example.gov/{z}/{x}/{y}.png#a", "fragment"),
    ("https://tiles_example;gov/{z}/{x}/{y}.png", "must name a host"),
])
def test_an_unusable_template_is_refused_by_name(url, says):
    with pytest.raises(RuntimeError) as refused:
        maptiles.check({"MAP_TILE_URL": url, "MAP_TILE_ATTRIBUTION": "Town GIS"})
    assert str(refused.value).startswith("MAP_TILE_URL ") and says in str(refused.value)
    assert "secret" not in str(refused.value)


def test_the_attribution_is_required_with_a_url_and_nothing_without():
    with pytest.raises(RuntimeError, match="^MAP_TILE_ATTRIBUTION must be set when MAP_TILE_URL is"):
        maptiles.check({"MAP_TILE_URL": TILES, "MAP_TILE_ATTRIBUTION": "   "})
    with pytest.raises(RuntimeError, match="at most 300 characters"):
        maptiles.check({"MAP_TILE_URL": TILES, "MAP_TILE_ATTRIBUTION": "x" * 301})
    maptiles.check({"MAP_TILE_URL": TILES, "MAP_TILE_ATTRIBUTION": "x" * 300})
    none = {"MAP_TILE_URL": None, "MAP_TILE_ATTRIBUTION": None}
    maptiles.check(none)
    assert (maptiles.tile_settings(none), maptiles.tile_origin(none)) == (None, None)
    assert maptiles.offline_settings(none) == {"zooms": [], "budget_bytes": 0}


@pytest.mark.parametrize("text, max_zoom, zooms", [
    ("14-17", 19, [14, 15, 16, 17]), ("17", 19, [17]), ("12, 14-15,15", 19, [12, 14, 15]), ("0", 0, [0]),
    ("16-18", 18, [16, 17, 18]),
])
def test_offline_zooms(text, max_zoom, zooms):
    assert maptiles.parse_zooms(text, max_zoom) == zooms


@pytest.mark.parametrize("settings, says", [
    ({"MAP_TILE_OFFLINE_ZOOMS": "14-20"}, "MAP_TILE_OFFLINE_ZOOMS must lie between 0 and MAP_TILE_MAX_ZOOM (19)"),
    ({"MAP_TILE_OFFLINE_ZOOMS": "17-14"}, "MAP_TILE_OFFLINE_ZOOMS has a range that runs backwards"),
    ({"MAP_TILE_OFFLINE_ZOOMS": "all"}, 'MAP_TILE_OFFLINE_ZOOMS must be zoom levels like "14-17"'),
    ({"MAP_TILE_OFFLINE_ZOOMS": "-1"}, 'MAP_TILE_OFFLINE_ZOOMS must be zoom levels like "14-17"'),
    ({"MAP_TILE_MAX_ZOOM": "25"}, "MAP_TILE_MAX_ZOOM must be a whole number between 0 and 24"),
    ({"MAP_TILE_MAX_ZOOM": "16"}, "MAP_TILE_OFFLINE_ZOOMS must lie between 0 and MAP_TILE_MAX_ZOOM (16)"),
    ({"MAP_TILE_OFFLINE_BUDGET_MB": "-1"}, "MAP_TILE_OFFLINE_BUDGET_MB must be a whole number between 0"),
    ({"MAP_TILE_OFFLINE_BUDGET_MB": "1.5"}, "MAP_TILE_OFFLINE_BUDGET_MB must be a whole number between 0"),
])
def test_bad_numbers_are_refused_by_name(settings, says):
    with pytest.raises(RuntimeError) as refused:
        maptiles.check({"MAP_TILE_URL": TILES, "MAP_TILE_ATTRIBUTION": "Town GIS", **settings})
    assert str(refused.value).startswith(says)


def test_the_budget_and_zooms_as_configured():
    config = {"MAP_TILE_URL": TILES, "MAP_TILE_ATTRIBUTION": "Town GIS", "MAP_TILE_MAX_ZOOM": "20",
              "MAP_TILE_OFFLINE_ZOOMS": "15,18-20", "MAP_TILE_OFFLINE_BUDGET_MB": "0"}
    assert maptiles.offline_settings(config) == {"zooms": [15, 18, 19, 20], "budget_bytes": 0}
    assert maptiles.tile_settings(config)["max_zoom"] == 20


@pytest.mark.parametrize("overrides, says", [
    ({"MAP_TILE_URL": "http://tiles.example.gov/{z}/{x}/{y}.png", "MAP_TILE_ATTRIBUTION": "Town"},
     "MAP_TILE_URL must be https (http only on a loopback host: 127.0.0.1, localhost or [::1])"),
    ({"MAP_TILE_URL": "https://tiles.example.gov/tiles.png", "MAP_TILE_ATTRIBUTION": "Town"},
     "MAP_TILE_URL must be a template with {z}, {x} and {y} once each"),
    ({"MAP_TILE_URL": TILES}, "MAP_TILE_ATTRIBUTION must be set when MAP_TILE_URL is"),
])
def test_the_app_does_not_start_with_a_bad_tile_setting(overrides, says):
    with pytest.raises(RuntimeError) as refused:
        create_app(TestConfig(SQLALCHEMY_DATABASE_URI="sqlite://", **overrides))
    assert str(refused.value).startswith(says)


def test_a_server_started_from_the_environment_refuses_a_bad_tile_url(tmp_path):
    """The keys come from the environment, and a bad one stops the start with a message naming it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MAP_TILE_")}
    env.update(INSPECT_API_ENV="development", INSTANCE_PATH=str(tmp_path), DATABASE_URL="",
               MAP_TILE_URL="http://tiles.example.gov/{z}/{x}/{y}.png", MAP_TILE_ATTRIBUTION="Town GIS")
    start = [sys.executable, "-c", "from inspect_api import create_app; create_app(); print('started')"]
    refused = subprocess.run(start, env=env, capture_output=True, text=True, timeout=120)
    assert refused.returncode != 0 and "started" not in refused.stdout
    assert refused.stderr.strip().splitlines()[-1] == (
        "RuntimeError: MAP_TILE_URL must be https (http only on a loopback host: 127.0.0.1, localhost or [::1]); "
        'see README "Base map tiles and offline maps"')
    env.update(MAP_TILE_URL="https://tiles.example.gov/{z}/{x}/{y}.png", MAP_TILE_OFFLINE_BUDGET_MB="20")
    read = [sys.executable, "-c", "from inspect_api import config, maptiles; c = config.config_for_environment(); "
            "c.check(); print(maptiles.tile_origin(c), maptiles.offline_settings(c)['budget_bytes'])"]
    started = subprocess.run(read, env=env, capture_output=True, text=True, timeout=120)
    assert started.stdout.strip() == f"https://tiles.example.gov {20 * 1024 * 1024}", started.stderr[-2000:]


# -- the policy ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("url", ["/", "/sw.js", "/manifest.webmanifest", "/static/pwa/js/ui/tiles.js"])
def test_the_policy_names_no_tile_server_unless_configured(client, url):
    directives = _directives(client.get(url))
    assert directives["img-src"] == "img-src 'self' blob: data:"
    assert directives["connect-src"] == "connect-src 'self'"


@pytest.mark.parametrize("url", ["/", "/sw.js", "/static/pwa/js/ui/tiles.js"])
def test_the_policy_adds_the_configured_tile_origin_to_images_and_connections(app, client, url):
    app.config.update(MAP_TILE_URL="https://tiles.example.gov:8443/osm/{z}/{x}/{y}.png", MAP_TILE_ATTRIBUTION=CREDIT,
                      PWA_MEDIA_ORIGINS="https://bucket.s3.amazonaws.com")
    directives = _directives(client.get(url))
    assert directives["img-src"] == "img-src 'self' blob: data: https://bucket.s3.amazonaws.com https://tiles.example.gov:8443"
    assert directives["connect-src"] == "connect-src 'self' https://bucket.s3.amazonaws.com https://tiles.example.gov:8443"
    assert directives["script-src"] == "script-src 'self'" and directives["default-src"] == "default-src 'self'"
    assert "tiles.example.gov" not in directives["script-src"] + directives["style-src"] + directives["frame-ancestors"]


# -- GET /api/v1/map-settings --------------------------------------------------------------------------------
def test_map_settings_need_a_sign_in(client):
    response = client.get("/api/v1/map-settings")
    assert response.status_code == 401
    assert response.get_json()["error"] in ("unauthorized", "invalid_token")


@pytest.mark.parametrize("role", ROLES)
def test_every_role_reads_that_no_tile_server_is_configured(client, factory, role):
    _user, headers = factory.as_role(role)
    response = client.get("/api/v1/map-settings", headers=headers)
    assert response.status_code == 200
    assert response.get_json() == {"tiles": None, "offline": {"zooms": [], "budget_bytes": 0}}


@pytest.mark.parametrize("role", ROLES)
def test_every_role_reads_the_configured_tile_server(app, client, factory, role):
    app.config.update(MAP_TILE_URL=TILES, MAP_TILE_ATTRIBUTION=CREDIT, MAP_TILE_MAX_ZOOM="18",
                      MAP_TILE_OFFLINE_ZOOMS="15-16", MAP_TILE_OFFLINE_BUDGET_MB="25")
    _user, headers = factory.as_role(role)
    response = client.get("/api/v1/map-settings", headers=headers)
    assert response.status_code == 200
    assert response.get_json() == {
        "tiles": {"url": TILES, "attribution": CREDIT, "min_zoom": 0, "max_zoom": 18},
        "offline": {"zooms": [15, 16], "budget_bytes": 25 * 1024 * 1024}}
