from __future__ import annotations

from flask.views import MethodView

from ..http import Blueprint
from ..auth.permissions import current_user, login_required, roles_required
from ..permits.access import get_visible_permit
from .. import paging
from ..records import expected_version, versioned
from . import exceedances, levels, services
from .schemas import (ActionLevelsSchema, SampleCreateSchema, SampleQuerySchema, SampleSchema,
                      SampleUpdateSchema, WeeklyTurbiditySchema)

blp = Blueprint("sampling", __name__, url_prefix="/api/v1",
                description="Water samples, units, holding times and action levels (R-S)")


@blp.route("/samples")
class Samples(MethodView):
    @login_required
    @blp.arguments(SampleQuerySchema, location="query")
    @blp.response(200, SampleSchema(many=True), headers=paging.HEADERS)
    def get(self, args):
        """List the samples you may see, oldest first (filter by permit_id)"""
        samples, total = services.list_samples(current_user, args)
        return services.sample_views(samples), 200, paging.total_header(total)

    @roles_required("inspector", "supervisor")
    @blp.arguments(SampleCreateSchema)
    @blp.response(201, SampleSchema)
    @blp.alt_response(200, schema=SampleSchema, description="The same id and data were posted before")
    @blp.alt_response(409, description="entry_not_authorized, or conflict: the id holds other data")
    @blp.alt_response(422, description="Unknown unit or impossible value; errors name the field")
    def post(self, body):
        """Record a sample; needs a site-entry authorization covering sampling at sampled_at (R-E2)"""
        record, created = services.create_sample(current_user, body)
        return services.sample_view(record), 201 if created else 200


@blp.route("/samples/<sample_id>")
class SampleItem(MethodView):
    @login_required
    @blp.response(200, SampleSchema)
    def get(self, sample_id):
        """One sample with its exceedances, holding times and findings"""
        return services.sample_view(services.get_sample(current_user, sample_id))

    @roles_required("inspector", "supervisor")
    @blp.arguments(SampleUpdateSchema)
    @blp.response(200, SampleSchema)
    @blp.alt_response(409, description="version_conflict (errors.current holds the record) or entry_not_authorized")
    @versioned(blp, conflict=False)
    def patch(self, body, sample_id):
        """Change a sample (e.g. add lab results); exceedances and their findings follow the new values"""
        record = services.get_sample(current_user, sample_id)
        record = services.update_sample(current_user, record, body, expected_version(body))
        return services.sample_view(record)


@blp.route("/permits/<permit_id>/turbidity-weekly")
class WeeklyTurbidity(MethodView):
    @login_required
    @blp.response(200, WeeklyTurbiditySchema(many=True))
    def get(self, permit_id):
        """Weekly average turbidity per discharge point against the CGP benchmark (R-S2)"""
        permit = get_visible_permit(current_user, permit_id)
        return exceedances.weekly_report(permit)


@blp.route("/action-levels")
class ActionLevels(MethodView):
    @login_required
    @blp.response(200, ActionLevelsSchema)
    def get(self):
        """The action levels samples are judged against (R-S2)"""
        return {"levels": levels.list_levels()}

    @roles_required("supervisor")
    @blp.arguments(ActionLevelsSchema)
    @blp.response(200, ActionLevelsSchema)
    def put(self, body):
        """Replace the action levels (supervisor); levels left out are switched off"""
        return {"levels": levels.replace_levels(current_user, body["levels"])}

