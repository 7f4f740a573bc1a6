from __future__ import annotations

from flask.views import MethodView
from flask_jwt_extended import current_user

from ..http import Blueprint
from ..auth.permissions import roles_required
from ..errors import NotFound
from . import services
from .schemas import ChecklistTemplateSchema, PublishVersionSchema, TemplateListQuerySchema

blp = Blueprint("checklists", __name__, url_prefix="/api/v1",
                description="Versioned inspection checklist templates (R-I3)")

STAFF = ("inspector", "supervisor")


@blp.route("/checklist-templates")
class Templates(MethodView):
    @roles_required(*STAFF)
    @blp.arguments(TemplateListQuerySchema, location="query")
    @blp.response(200, ChecklistTemplateSchema(many=True))
    def get(self, query):
        """Checklist templates: the current version of each, or every version with ?all=1"""
        return services.list_templates(every_version=query["all"])


@blp.route("/checklist-templates/<key>")
class CurrentTemplate(MethodView):
    @roles_required(*STAFF)
    @blp.response(200, ChecklistTemplateSchema)
    def get(self, key):
        """The current version of one checklist template"""
        template = services.find_template(key)
        if template is None:
            raise NotFound(f"No checklist {key!r}.")
        return services.get_template(key, template.version)


@blp.route("/checklist-templates/<key>/versions")
class TemplateVersions(MethodView):
    @roles_required("supervisor")
    @blp.arguments(PublishVersionSchema)
    @blp.response(201, ChecklistTemplateSchema)
    @blp.alt_response(409, description="Another version was published since `based_on_version`")
    def post(self, body, key):
        """Publish a new version of a checklist template (supervisor); answered checklists keep theirs"""
        return services.publish_version(current_user, key, body)


@blp.route("/checklist-templates/<key>/versions/<int:version>")
class TemplateVersion(MethodView):
    @roles_required(*STAFF)
    @blp.response(200, ChecklistTemplateSchema)
    def get(self, key, version):
        """One version of a checklist template"""
        return services.get_template(key, version)
