"""The audit log for supervisors, and a self-contained API reference page at /api/v1/docs."""
from __future__ import annotations

from html import escape

from flask import Blueprint as FlaskBlueprint
from flask import Response
from flask.views import MethodView
from ..http import Blueprint
from .. import audit, paging
from ..auth.permissions import roles_required
from ..extensions import api
from .schemas import AuditEntrySchema, AuditQuerySchema

audit_blp = Blueprint("audit", __name__, url_prefix="/api/v1",
                      description="The append-only audit log: who changed which record, when, from which device")
docs_blp = FlaskBlueprint("api_docs", __name__, url_prefix="/api/v1")
METHODS = ("get", "post", "put", "patch", "delete", "head", "options")


@audit_blp.route("/audit")
class Audit(MethodView):
    @roles_required("supervisor")
    @audit_blp.arguments(AuditQuerySchema, location="query")
    @audit_blp.response(200, AuditEntrySchema(many=True), headers=paging.HEADERS)
    @audit_blp.doc(description="Send record_id, permit_id or both (rows matching either); with neither the "
                               "answer is 422 naming record_id. OpenAPI cannot mark one of two parameters "
                               "required, so both are optional in the list below.")
    def get(self, args):
        """Audit rows of one record (record_id) or of everything on a permit (permit_id), newest first"""
        rows, total = audit.list_entries(args)
        return rows, 200, paging.total_header(total)


def _operation_rows(spec: dict) -> str:
    rows = []
    for path, item in spec.get("paths", {}).items():
        for method in METHODS:
            if method in item:
                op = item[method]
                rows.append(f"<tr><td><code>{method.upper()}</code></td><td><code>{escape(path)}</code></td>"
                            f"<td>{escape(op.get('summary', ''))}</td><td>{escape(', '.join(op.get('tags', [])))}</td></tr>")
    return "\n".join(rows)


@docs_blp.route("/docs")
def docs():
    """A plain page listing every operation of openapi.json; it needs no network and no script."""
    spec = api.spec.to_dict()
    title = escape(f"{spec['info']['title']} {spec['info']['version']}")
    page = (f"<!doctype html><html lang=en><head><meta charset=utf-8><title>{title}</title>"
            "<meta name=viewport content='width=device-width, initial-scale=1'><style>body{font:15px/1.4 sans-serif;"
            "margin:2rem}td{padding:.2rem .6rem;border-bottom:1px solid #ccc;vertical-align:top}</style></head><body>"
            f"<h1>{title}</h1><p>{escape(spec['info'].get('description', ''))}</p>"
            "<p>Machine-readable specification: <a href=openapi.json>openapi.json</a>. Authenticate with "
            "<code>Authorization: Bearer &lt;access token&gt;</code> from <code>POST /api/v1/auth/login</code>.</p>"
            "<table><thead><tr><th>Method</th><th>Path</th><th>Summary</th><th>Tag</th></tr></thead><tbody>"
            f"{_operation_rows(spec)}</tbody></table></body></html>")
    response = Response(page, mimetype="text/html")
    response.headers["Content-Security-Policy"] = "default-src 'none'; style-src 'unsafe-inline'"
    return response
