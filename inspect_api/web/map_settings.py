"""The field app's base map: the configured tile server and what a device may keep of it offline
(maptiles.py; README "Base map tiles and offline maps"). Every signed-in user's maps read it."""
from __future__ import annotations

from flask import current_app
from marshmallow import Schema, fields

from .. import maptiles
from ..auth.permissions import login_required
from ..http import Blueprint

blp = Blueprint("map", __name__, url_prefix="/api/v1",
                description="The base map: the tile server the maps draw from, and its offline budget")


class TileServerSchema(Schema):
    url = fields.String(required=True, metadata={
        "description": "Tile URL template with {z}, {x} and {y}, one origin (the app's Content-Security-Policy names it)"})
    attribution = fields.String(required=True, metadata={
        "description": "The credit the tile server requires, plain text (show it as text, never as HTML)"})
    min_zoom = fields.Integer(required=True)
    max_zoom = fields.Integer(required=True)


class OfflineTilesSchema(Schema):
    zooms = fields.List(fields.Integer(), required=True, metadata={
        "description": "Zoom levels a device keeps around each assigned site for offline days (empty: none)"})
    budget_bytes = fields.Integer(required=True, metadata={
        "description": "The most bytes of tiles a device keeps; a download stops before going over"})


class MapSettingsSchema(Schema):
    tiles = fields.Nested(TileServerSchema, allow_none=True, required=True, metadata={
        "description": "null: no tile server is configured; maps draw on a plain background"})
    offline = fields.Nested(OfflineTilesSchema, required=True)


@blp.route("/map-settings", methods=["GET"])
@login_required
@blp.response(200, MapSettingsSchema)
def map_settings():
    """The base map's tile server (null when none is configured) and what may be kept offline (any signed-in user)"""
    return {"tiles": maptiles.tile_settings(current_app.config),
            "offline": maptiles.offline_settings(current_app.config)}
