"""The public's pages under /public/: server-rendered HTML in English and Portuguese for residents
with no account. Reading and reporting need no JavaScript; the small scripts only enhance: the map of
active sites becomes an interactive map, and the report form gains a map to pick the place on and
"Use my location", which fill the two boxes a resident may also type.

A plain Flask blueprint, not a flask-smorest one: pages are not operations of the API, so they stay
out of the OpenAPI document. Every answer carries a strict Content-Security-Policy ('self' only, no
inline script or style). Permit, search and map pages may be kept by browsers and shared caches for
PUBLIC_CACHE_SECONDS (they vary by language); the report pages are never stored (`no-store`).
"""
from __future__ import annotations

import logging
from math import cos, isfinite, radians

from flask import Blueprint, current_app, make_response, redirect, render_template, request, url_for
from flask_babel import gettext as _, lazy_gettext as _l, refresh
from sqlalchemy.exc import DataError
from werkzeug.exceptions import HTTPException

from .. import clock, maptiles
from ..errors import ApiError, NotFound, ValidationFailed
from . import i18n, lookup, reports, rules
from .rules import MAX_PHOTOS, normal_reference

log = logging.getLogger(__name__)

bp = Blueprint("public_pages", __name__, url_prefix="/public", template_folder="templates",
               static_folder="static")
bp.record_once(lambda state: i18n.init_app(state.app))

PAGE_SIZE = 20
TEXT_MAX = 200  # a search box's text beyond this finds nothing more; it is cut, not refused
POLICY = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:{tiles}; connect-src 'self'; "
          "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
# The interactive maps' library: the field app's vendored copy (README "The public"), loaded by the
# pages' scripts only where they run, never copied here.
LEAFLET = {"module": "vendor/leaflet/leaflet-src.esm.js", "css": "vendor/leaflet/leaflet.css"}

# What went wrong with each of the report form's fields, in the page's language. The service's own
# messages are English and name the API's fields; a resident reads these instead.
FIELD_ERRORS = {
    "description": _l("Say what you saw, in at most 4,000 characters."),
    "address": _l("Give the address or a place nearby (at most 200 characters), or a location."),
    "lat": _l("Give the latitude as a number between -90 and 90, with the longitude too."),
    "lon": _l("Give the longitude as a number between -180 and 180, with the latitude too."),
    "accuracy_m": _l("The location from your phone could not be read; try again or type it."),
    "observed_at": _l("Give the date and time you saw it, not in the future."),
    "name": _l("Give a name of at most 200 characters."),
    "email": _l("Give an e-mail address such as name@example.com."),
    "phone": _l("Give a phone number with at most 40 characters."),
    "photos": _l("Attach at most three photos."),
    "form": _l("Check what you entered and send it again."),
}
PHOTOS_TOO_LARGE = _l("The photos are too large. Send fewer or smaller ones.")
PHOTOS_UNREADABLE = _l("A photo could not be read as a picture. Send photos from a camera or phone (JPEG, PNG, WebP "
                       "or HEIC).")
TRY_AGAIN = _l("The server is busy. Please send your report again in a moment.")
# Errors the service may key otherwise, and the field of the form that shows them.
FIELD_ALIASES = {"location": "lat", "contact": "email", "website": "form"}
NOT_FOUND = {
    "public_pages.permit_page": _l("No permit open to the public has that number. Check it, or search for it."),
    "public_pages.report_page": _l("No report has that reference. Check it: it looks like R-2026-0042-K7QX."),
    "public_pages.find_report": _l("No report has that reference. Check it: it looks like R-2026-0042-K7QX."),
}
PROBLEMS = {
    408: _l("Your report took too long to arrive. Try again, perhaps with smaller or fewer photos."),
    413: _l("Your report is too large. Try again with smaller or fewer photos."),
    429: _l("Too many reports came from your connection. Please try again later."),
}
SERVER_FAULT = _l("Something went wrong on our side; nothing was changed. Please try again.")


# --- answers ------------------------------------------------------------------------------------
def policy() -> str:
    """'self' only; a configured base map's tile server (maptiles.tile_origin) is added for images, the
    map's tiles, and for nothing else."""
    origin = maptiles.tile_origin(current_app.config)
    return POLICY.format(tiles=f" {origin}" if origin else "")


def _page(template: str, *, status: int = 200, cacheable: bool = False, **context):
    response = make_response(render_template(template, **context), status)
    if cacheable and status == 200:
        # A page reached by the language switch also sets the language cookie: no shared cache may
        # keep an answer that sets a cookie, so that one is kept by the browser only.
        scope = "private" if i18n.requested_language() else "public"
        response.headers["Cache-Control"] = f"{scope}, max-age={int(current_app.config['PUBLIC_CACHE_SECONDS'])}"
    else:
        response.headers["Cache-Control"] = "no-store"
    return response


@bp.before_request
def _choose_language():
    # Flask-Babel keeps the chosen locale on `g`, which lives as long as the app context: where one
    # outlives a request (a test client inside a running app context), the next request would reuse
    # the previous one's language. Each page chooses its own.
    refresh()


@bp.context_processor
def _common() -> dict:
    return {"lang": i18n.current_language(), "languages": i18n.switch_links(), "town": current_app.config["TOWN_NAME"],
            "town_contact": current_app.config["TOWN_CONTACT"], "words": i18n.words, "long_date": i18n.long_date,
            "REVIEW_LEVELS": i18n.REVIEW_LEVELS, "PERMIT_STATUSES": i18n.PERMIT_STATUSES,
            "ORDER_KINDS": i18n.ORDER_KINDS, "REPORT_STATUSES": i18n.REPORT_STATUSES, "live_map": live_map}


def live_map() -> dict:
    """What the pages' map scripts need, for data- attributes: the library's addresses (the field app's
    unversioned ones, revalidated by ETag) and the base map's tiles (None: a plain background)."""
    return {"leaflet": url_for("web.asset", filename=LEAFLET["module"]),
            "leaflet_css": url_for("web.asset", filename=LEAFLET["css"]),
            "tiles": maptiles.tile_settings(current_app.config)}


def map_sites(items: list[dict]) -> list[dict]:
    """The sites as the interactive maps draw them: the number in the list, the permit page, its name in
    words (the drawing's link name), the point and the limit of work. Data only: the script builds the
    elements and sets these as text and attributes."""
    return [{"n": n, "number": item["number"], "href": url_for(".permit_page", number=item["number"]),
             "label": _("Permit %(number)s, %(address)s: %(status)s", number=item["number"],
                        address=item.get("address") or _("no address recorded"),
                        status=i18n.words(i18n.PERMIT_STATUSES, item.get("status"))),
             "lat": item["site"]["lat"], "lon": item["site"]["lon"], "limit": item.get("limit_of_work")}
            for n, item in enumerate(items, start=1) if item.get("site")]


@bp.after_request
def _headers(response):
    response.headers["Content-Security-Policy"] = policy()
    response.headers["X-Frame-Options"] = "DENY"
    response.vary.update(("Accept-Language", "Cookie"))
    if request.endpoint == "public_pages.static" and response.status_code in (200, 304):
        response.headers["Cache-Control"] = f"public, max-age={int(current_app.config['PUBLIC_CACHE_SECONDS'])}"
    elif response.status_code == 200 and response.headers.get("Cache-Control", "").startswith(("public", "private")):
        response.add_etag()
        response.make_conditional(request)
    return i18n.remember(response)


@bp.errorhandler(ApiError)
def _api_error(exc: ApiError):
    return _problem(exc.code)


@bp.errorhandler(HTTPException)
def _http_error(exc: HTTPException):
    return _problem(exc.code or 500)


@bp.errorhandler(DataError)
@bp.errorhandler(OverflowError)
def _out_of_range(exc: Exception):
    log.info("value out of range for the database on a public page: %s", exc)
    return _problem(400)


@bp.errorhandler(Exception)
def _unexpected(exc: Exception):
    log.exception("unhandled error on a public page")
    return _problem(500)


def _problem(status: int):
    if status == 404:
        message = NOT_FOUND.get(request.endpoint, _l("There is no page at this address."))
    else:
        message = PROBLEMS.get(status) or (SERVER_FAULT if status >= 500 else _l("This request could not be read."))
    response = _page("public/problem.html", status=status, status_code=status, message=message)
    if status == 408:
        # The unread rest of the body must not be taken for the next request on this connection.
        response.headers["Connection"] = "close"
    return response


# --- permits ------------------------------------------------------------------------------------
def _text(name: str) -> str:
    return " ".join(request.args.get(name, "").split())[:TEXT_MAX]


@bp.get("/")
def search_page():
    """Search permits by number or address, street and status, a page at a time."""
    chosen = {"q": _text("q"), "street": _text("street"), "status": _text("status")}
    args = {"q": chosen["q"] or None, "street": chosen["street"] or None,
            "status": chosen["status"] if chosen["status"] in i18n.PERMIT_STATUSES else None,
            "near": None, "limit": PAGE_SIZE, "cursor": request.args.get("cursor") or None}
    try:
        items, total, next_cursor = lookup.search(args)
    except ValidationFailed:  # a cursor from an old or edited address: start again from the first page
        args["cursor"] = None
        items, total, next_cursor = lookup.search(args)
    searched = {key: value for key, value in chosen.items() if value}
    next_href = url_for(".search_page", **searched, cursor=next_cursor) if next_cursor else None
    first_href = url_for(".search_page", **searched) if args["cursor"] else None
    return _page("public/search.html", cacheable=True, items=items, total=total, chosen=chosen,
                 searched=bool(searched), next_href=next_href, first_href=first_href)


@bp.get("/permits/<number>")
def permit_page(number: str):
    """One permit in words, with its site on a small map."""
    permit = lookup.get_by_number(number)
    return _page("public/permit.html", cacheable=True, permit=permit, drawing=site_map([permit]))


@bp.get("/map")
def map_page():
    """The sites where work is under way, drawn on the server (no script needed; where script runs, an
    interactive map takes the drawing's place), and as a list."""
    sites = lookup.active_sites()
    return _page("public/map.html", cacheable=True, sites=sites, drawing=site_map(sites, links=True),
                 live_sites=map_sites(sites))


@bp.get("/<path:rest>")
def unknown(rest: str):
    """Any other address under /public/ answers with the pages' own 404, in the page's language."""
    raise NotFound()


# --- reports from residents ---------------------------------------------------------------------
def _report_form(values: dict, errors: dict | None = None, status: int = 200, lost: bool = False):
    # The active sites show on the form's map (where script runs), so a resident finds the site they mean
    # even on a plain background.
    return _page("public/report_form.html", status=status, values=values, errors=errors or {}, lost=lost,
                 max_photos=MAX_PHOTOS, pick_sites=map_sites(lookup.active_sites()),
                 contact_days=int(current_app.config["PUBLIC_REPORT_CONTACT_DAYS"]),
                 now=clock.now().astimezone(clock.town_zone()).strftime("%Y-%m-%dT%H:%M"))


def refusal(exc: ApiError, fields: dict) -> dict:
    """Why the report was not sent, by the form's fields, each in the page's language."""
    if not isinstance(exc, ValidationFailed):
        return {413: {"photos": PHOTOS_TOO_LARGE}, 422: {"photos": PHOTOS_UNREADABLE}}.get(
            exc.code, {"form": TRY_AGAIN})
    # "contact.email" and "photos[1]" are shown at the form's "email" and "photos".
    keys = {FIELD_ALIASES.get(key, key) for key in (str(k).split(".")[-1].split("[")[0] for k in exc.errors)}
    if "address" in keys and not (fields.get("lat") or "").strip() and not (fields.get("lon") or "").strip():
        keys -= {"lat", "lon"}  # no place at all: say so once, at the address
    return {key: FIELD_ERRORS[key] for key in keys if key in FIELD_ERRORS} or {"form": FIELD_ERRORS["form"]}


@bp.get("/report")
def report_form():
    """The report form; `?address=` and `?lat=&lon=` fill in the place (the permit page's "Report a problem
    at this site" sends the site's). A point that is not one is left out, never shown back."""
    values = {"address": _text("address")}
    try:
        lat, lon = float(_text("lat")), float(_text("lon"))
    except ValueError:
        return _report_form(values)
    if isfinite(lat) and isfinite(lon) and -90 <= lat <= 90 and -180 <= lon <= 180:
        values.update(lat=f"{lat:.6f}", lon=f"{lon:.6f}")
    return _report_form(values)


@bp.post("/report")
@reports.public_report_limit
def send_report():
    """A resident's report from the form: on a mistake the form comes back with what they typed and
    each field's problem; when it is sent, the reference page (Post/Redirect/Get, so reloading it
    sends nothing twice)."""
    # The form's reports count toward the client's limit as the API's do: receive_form counts a body
    # read (reports.py); one refused only for its fields does not.
    try:
        fields, photos = reports.receive_form()
    except ApiError as exc:  # refused before its text was read: too large, too slow, unreadable, too many photos
        return _report_form({}, refusal(exc, {}), status=exc.code, lost=True)
    try:
        data = reports.form_to_data(fields)
        report = reports.submit_report(data, photos, language=i18n.current_language())
    except ApiError as exc:
        return _report_form(fields, refusal(exc, fields), status=exc.code)
    finally:
        for photo in photos:
            photo.discard()
    if rules.is_robot(data.get("website")):
        # The hidden field was filled: the report was kept nowhere, so its page would be a 404. A robot
        # is shown a receipt like anyone's, which teaches it nothing about the field.
        receipt = {"reference": report.reference, "status": report.status, "received_at": clock.now()}
        return _page("public/report.html", report=receipt, sent=True)
    return redirect(url_for(".report_page", reference=report.reference, sent=1), code=303)


@bp.get("/reports")
def find_report():
    """The lookup form's answer: the report's own page, by the reference typed."""
    reference = normal_reference(_text("reference"))
    if not reference:
        raise NotFound()
    return redirect(url_for(".report_page", reference=reference), code=303)


@bp.get("/reports/<reference>")
def report_page(reference: str):
    """A report's status in words and the Town's public answer; after sending, its reference first."""
    found = reports.report_status(normal_reference(reference))
    return _page("public/report.html", report=found, sent=request.args.get("sent") == "1")


# --- the map, drawn on the server ---------------------------------------------------------------
METRES_PER_DEGREE = 111_320.0
MIN_SPAN_M = 300.0  # one site alone is shown with this much of the town around it
SCALES_M = (10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000)


def _rings(geometry) -> list[list[tuple[float, float]]]:
    """The (lon, lat) rings of a GeoJSON Polygon or MultiPolygon (or a Feature holding one)."""
    if not isinstance(geometry, dict):
        return []
    if geometry.get("type") == "Feature":
        geometry = geometry.get("geometry") or {}
    coordinates = geometry.get("coordinates") or []
    polygons = {"Polygon": [coordinates], "MultiPolygon": coordinates}.get(geometry.get("type"), [])
    return [[(float(p[0]), float(p[1])) for p in ring] for polygon in polygons for ring in polygon if ring]


def site_map(items: list[dict], *, links: bool = False) -> dict | None:
    """Each site's point and limit of work projected into one SVG viewBox, in metres east and south of
    the sites' centre (equirectangular: at a town's scale the error is far below a drawn line's width),
    north up, with a scale bar. None when no site has a place to draw."""
    sites = []  # (number in the list, item, anchor, rings): a site with no place keeps its number, undrawn
    for n, item in enumerate(items, start=1):
        rings = _rings(item.get("limit_of_work"))
        point = item.get("site")
        if point and point.get("lat") is not None and point.get("lon") is not None:
            anchor = (float(point["lon"]), float(point["lat"]))
        elif rings:
            anchor = (sum(p[0] for p in rings[0]) / len(rings[0]), sum(p[1] for p in rings[0]) / len(rings[0]))
        else:
            continue
        sites.append((n, item, anchor, rings))
    if not sites:
        return None
    every = [p for _n, _item, anchor, rings in sites for p in [anchor, *(q for ring in rings for q in ring)]]
    lons, lats = [p[0] for p in every], [p[1] for p in every]
    lon0, lat0 = (min(lons) + max(lons)) / 2, (min(lats) + max(lats)) / 2
    east = METRES_PER_DEGREE * cos(radians(lat0))

    def xy(lon: float, lat: float) -> tuple[float, float]:
        return round((lon - lon0) * east, 1), round((lat0 - lat) * METRES_PER_DEGREE, 1)

    width = max((max(lons) - min(lons)) * east, MIN_SPAN_M)
    height = max((max(lats) - min(lats)) * METRES_PER_DEGREE, MIN_SPAN_M * 0.6)
    pad = max(width, height) * 0.1
    box = tuple(round(v, 1) for v in (-width / 2 - pad, -height / 2 - pad, width + 2 * pad, height + 2 * pad))
    drawn = []
    for n, item, anchor, rings in sites:
        path = " ".join("M " + " L ".join("{} {}".format(*xy(*p)) for p in ring) + " Z" for ring in rings)
        x, y = xy(*anchor)
        drawn.append({"n": n, "item": item, "x": x, "y": y, "path": path or None,
                      "href": url_for(".permit_page", number=item["number"]) if links else None})
    bar = max([s for s in SCALES_M if s <= box[2] / 4] or [SCALES_M[0]])
    return {"box": box, "viewbox": " ".join(str(v) for v in box), "sites": drawn, "r": round(box[2] / 70, 1),
            "font": round(box[2] / 30, 1), "bar": bar, "bar_label": f"{bar // 1000} km" if bar >= 1000 else f"{bar} m",
            "bar_x": round(box[0] + pad / 2, 1), "bar_y": round(box[1] + box[3] - pad / 2, 1)}
