"""The public permit lookup (API.md "Public"): no sign-in, and nothing in the answer depends on one
(an Authorization header, if sent, is never read), so every answer is the same for everyone and may
be kept by any cache for PUBLIC_CACHE_SECONDS, revalidated by its ETag."""
from __future__ import annotations

import hashlib

from flask import current_app, request
from flask.views import MethodView
from werkzeug.http import remove_entity_headers

from .. import paging
from ..http import Blueprint
from ..schemas import ErrorSchema
from . import lookup
from .lookup_schemas import CACHE_HEADERS, HEADERS, NEXT_CURSOR, PublicPermitQuerySchema, PublicPermitSchema

blp = Blueprint("public_permits", __name__, url_prefix="/api/v1",
                description="Permits anyone may look up, with no account: number, status and its dates, the site, "
                            "whether a certificate was issued and the orders in force (counts and kinds); never a "
                            "party, a document, a photo or a finding")

NOT_MODIFIED = "Not modified: the answer named by the If-None-Match sent still stands"
# Headers that are part of a list's answer as much as its body: an ETag over the body alone would
# answer 304 while the total or the next page had changed.
ETAG_HEADERS = (paging.TOTAL_HEADER, NEXT_CURSOR)


def _not_modified(etag: str) -> bool:
    """RFC 9110 13.1.2 (weak comparison); an ETag given out compressed (`"<tag>:gzip"`, Flask-Compress)
    names the same answer."""
    sent = request.if_none_match
    return sent.star_tag or any(tag == etag or tag.startswith(etag + ":") for tag in sent.as_set(include_weak=True))


@blp.after_request
def _cacheable(response):
    """A public answer may be kept by browsers and shared caches (the app's default for /api/ is
    no-store); errors keep that default, since a permit may become public any time."""
    if request.method not in ("GET", "HEAD") or response.status_code != 200:
        return response
    digest = hashlib.sha256(response.get_data())
    for name in ETAG_HEADERS:
        digest.update(b"\x00" + response.headers.get(name, "").encode("utf-8"))
    etag = digest.hexdigest()[:40]
    response.set_etag(etag)
    response.headers["Cache-Control"] = f"public, max-age={int(current_app.config['PUBLIC_CACHE_SECONDS'])}"
    if _not_modified(etag):
        response.status_code = 304
        response.set_data(b"")
        remove_entity_headers(response.headers)
    return response


@blp.route("/public/permits")
class PublicPermits(MethodView):
    @blp.doc(security=[])
    @blp.arguments(PublicPermitQuerySchema, location="query")
    @blp.response(200, PublicPermitSchema(many=True), headers={**HEADERS, **CACHE_HEADERS})
    @blp.alt_response(304, description=NOT_MODIFIED)
    def get(self, args):
        """Find permits anyone may look up: by number or address, street, status, or nearest a point"""
        items, total, cursor = lookup.search(args)
        headers = paging.total_header(total)
        if cursor:
            headers[NEXT_CURSOR] = cursor
        return items, 200, headers


@blp.route("/public/permits/<number>")
class PublicPermit(MethodView):
    @blp.doc(security=[])
    @blp.response(200, PublicPermitSchema, headers=CACHE_HEADERS)
    @blp.alt_response(304, description=NOT_MODIFIED)
    @blp.alt_response(404, schema=ErrorSchema, description="No permit anyone may look up has this number")
    def get(self, number):
        """One permit anyone may look up, by its number"""
        return lookup.get_by_number(number)
