"""Demo data: the owners' written consent to enter the inspector's active sites.

Also holds the small helpers the field domains' demo steps share (the Town's wall-clock times
relative to the demo's "today", and the sites the demo inspector works on), since every field
record rests on one of these authorizations.
"""
from __future__ import annotations

from datetime import datetime, time, timedelta

from ..db import new_id
from ..demo_steps import DemoContext, demo_step
from ..permits.access import is_assigned
from ..clock import town_zone
from .schemas import EntryAuthorizationCreateSchema
from .services import create_entry_authorization

# Who signed for each owner; a site not listed here is signed for by its owner of record.
GRANTORS = {
    "sconticut": ("Daniel Furtado", "Manager of the owner, Winsegansett Development Corp."),
    "alden": ("Carla Pimentel", "Trustee of the owner, Alden Road Holdings"),
}
CONSENT_FROM_DAYS_AGO = 30
CONSENT_DAYS = 180


def local(ctx: DemoContext, days_ago: int, hhmm: str) -> datetime:
    """An instant on the Town's clock, `days_ago` days before the demo's today (wall time `hhmm`)."""
    hour, minute = (int(part) for part in hhmm.split(":"))
    return datetime.combine(ctx.today - timedelta(days=days_ago), time(hour, minute), tzinfo=town_zone())


def iso(ctx: DemoContext, days_ago: int, hhmm: str) -> str:
    return local(ctx, days_ago, hhmm).isoformat()


def field_sites(ctx: DemoContext) -> list[tuple[str, object]]:
    """(key, permit) of the active permits assigned to the demo inspector, in the permit step's order.

    Field work needs both: an active permit (work under way) and an assignment (R-E, check_field_work).
    An empty list makes every field step add nothing rather than fail."""
    inspector = ctx.users["inspector"]
    return [(key, permit) for key, permit in ctx.permits.items()
            if permit.status == "active" and is_assigned(inspector, permit)]


@demo_step
def seed_entry_authorizations(ctx: DemoContext) -> None:
    inspector = ctx.users["inspector"]
    schema = EntryAuthorizationCreateSchema()
    for key, permit in field_sites(ctx):
        name, relation = GRANTORS.get(key, (permit.owner_name, "Owner of record"))
        data = schema.load({
            "permit_id": permit.id, "basis": "owner_consent", "granted_by_name": name,
            "granted_by_relation": relation, "scope": ["examination", "survey", "sampling"],
            "valid_from": iso(ctx, CONSENT_FROM_DAYS_AGO, "08:00"),
            "valid_to": iso(ctx, CONSENT_FROM_DAYS_AGO - CONSENT_DAYS, "17:00"),
            # The signature image is referenced before its upload, as a device does offline.
            "signature_photo_id": new_id(),
            "notes": "Consent signed at the pre-construction meeting for the life of the permit.",
            "device_created_at": iso(ctx, CONSENT_FROM_DAYS_AGO, "08:05")})
        create_entry_authorization(inspector, data)
