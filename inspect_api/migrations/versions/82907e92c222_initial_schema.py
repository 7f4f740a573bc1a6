"""initial schema

Revision ID: 82907e92c222
Revises: 
Create Date: 2026-11-29 18:16:17.309853

"""
import uuid
from datetime import datetime, timezone
from decimal import Decimal

from alembic import op
import sqlalchemy as sa

from inspect_api.db import UTCDateTime


# revision identifiers, used by Alembic.
revision = '82907e92c222'
down_revision = None
branch_labels = None
depends_on = None


# Reference data as this revision ships it, frozen here (explicit tables and columns, literal values)
# so the revision keeps working whatever later revisions do to the models: it must never load data
# through the ORM models or the app's seeders. The app's seeders (inspect_api.seed, used by tests
# and the demo) must agree with the database at head; tests/test_migrations.py compares the two.
ESC_CHECKLIST_ITEMS = [
    {
        "key": "limit_of_work_marked",
        "label": "Limit of work marked",
        "help_text": ("The limit of work shown on the ESC plan is marked in the field (flagging, orange fence "
                      "or stakes) and no clearing or grading has gone past it. Note any disturbance outside the"
                      " line."),
        "control": "limit of work flagging or fencing",
        "photo_expected_when_deficient": True,
        "needs_new_control_default": False,
    },
    {
        "key": "perimeter_controls_installed",
        "label": "Perimeter controls installed",
        "help_text": ("Silt fence, compost filter sock or straw wattles are in place along every down-slope "
                      "edge shown on the plan before upslope grading; silt fence is trenched in and staked, "
                      "socks and wattles are staked with no gaps at joints."),
        "control": "perimeter controls",
        "photo_expected_when_deficient": True,
        "needs_new_control_default": True,
    },
    {
        "key": "perimeter_controls_maintained",
        "label": "Perimeter controls maintained",
        "help_text": ("Perimeter controls are upright and intact, with no undercutting, tears or overtopping, "
                      "and sediment behind them is removed before it reaches one half of the control's above-"
                      "ground height."),
        "control": "perimeter controls",
        "photo_expected_when_deficient": True,
        "needs_new_control_default": False,
    },
    {
        "key": "construction_entrance_stabilized",
        "label": "Stabilized construction entrance",
        "help_text": ("Every vehicle exit has a stone construction entrance (typically 2-3 in. crushed stone on"
                      " geotextile, at least 50 ft long or as the plan shows) that is not clogged with mud."),
        "control": "stabilized construction entrance",
        "photo_expected_when_deficient": True,
        "needs_new_control_default": True,
    },
    {
        "key": "no_tracking_street_sweeping",
        "label": "No tracking onto streets; street sweeping",
        "help_text": ("No sediment is tracked onto public or private ways; any tracked sediment is swept (not "
                      "washed) from the street by the end of the working day."),
        "control": "street sweeping",
        "photo_expected_when_deficient": True,
        "needs_new_control_default": False,
    },
    {
        "key": "inlet_protection",
        "label": "Catch basin and inlet protection",
        "help_text": ("Every catch basin and inlet that can receive runoff from the site, on or off site, has "
                      "inlet protection (silt sack, filter fabric or sock) that is intact, not clogged and not "
                      "bypassed."),
        "control": "catch basin / inlet protection",
        "photo_expected_when_deficient": True,
        "needs_new_control_default": True,
    },
    {
        "key": "check_dams",
        "label": "Check dams",
        "help_text": ("Check dams in swales and ditches are in place as designed, the center lower than the "
                      "edges, with sediment removed before it reaches half the dam height and no flow around "
                      "the ends."),
        "control": "check dams",
        "photo_expected_when_deficient": True,
        "needs_new_control_default": False,
    },
    {
        "key": "stockpiles_managed",
        "label": "Stockpiles covered or stabilized",
        "help_text": ("Soil and material stockpiles are covered or stabilized, ringed by a perimeter control, "
                      "and placed away from drainage ways, inlets, wetlands and the street."),
        "control": "stockpile cover and perimeter",
        "photo_expected_when_deficient": True,
        "needs_new_control_default": False,
    },
    {
        "key": "inactive_areas_stabilized",
        "label": "Inactive disturbed areas stabilized",
        "help_text": ("Disturbed areas where work has stopped for 14 days or more are stabilized (seed and "
                      "mulch, hydroseed, erosion control blanket or similar) within 14 days of the last "
                      "disturbance."),
        "control": "temporary stabilization",
        "photo_expected_when_deficient": True,
        "needs_new_control_default": True,
    },
    {
        "key": "slopes_protected",
        "label": "Slopes protected",
        "help_text": ("Slopes are protected with erosion control blankets, mulch or other measures shown on the"
                      " plan; no rills or gullies are forming and runoff is not concentrated down the slope "
                      "face."),
        "control": "slope protection",
        "photo_expected_when_deficient": True,
        "needs_new_control_default": True,
    },
    {
        "key": "sediment_traps_basins",
        "label": "Sediment traps and basins",
        "help_text": ("Sediment traps and basins hold their design capacity (cleaned out at one half full or as"
                      " the plan says), and outlets and spillways are stable and not eroding or discharging "
                      "turbid water."),
        "control": "sediment trap / basin",
        "photo_expected_when_deficient": True,
        "needs_new_control_default": False,
    },
    {
        "key": "dewatering_treated",
        "label": "Dewatering discharge treated",
        "help_text": ("Water pumped from excavations passes through a dewatering bag, sediment basin or other "
                      "treatment before discharge, onto a stable area, with no visibly turbid discharge leaving"
                      " the site."),
        "control": "dewatering treatment",
        "photo_expected_when_deficient": True,
        "needs_new_control_default": True,
    },
    {
        "key": "concrete_washout_contained",
        "label": "Concrete washout contained",
        "help_text": ("Concrete trucks and tools are washed out only into a lined, leak-free washout container "
                      "or pit that is not overflowing and is away from drains and waters."),
        "control": "concrete washout",
        "photo_expected_when_deficient": True,
        "needs_new_control_default": True,
    },
    {
        "key": "dust_control",
        "label": "Dust control",
        "help_text": ("Dust is controlled (watering, covering, limiting traffic) so that no visible dust leaves"
                      " the site."),
        "control": "dust control",
        "photo_expected_when_deficient": True,
        "needs_new_control_default": False,
    },
    {
        "key": "waste_sanitary_facilities",
        "label": "Waste, litter and sanitary facilities",
        "help_text": ("Waste and litter are contained and covered; fuel and chemicals have secondary "
                      "containment; portable toilets are secured and at least 50 ft from inlets, drainage ways "
                      "and waters."),
        "control": "waste and sanitary facilities",
        "photo_expected_when_deficient": True,
        "needs_new_control_default": False,
    },
    {
        "key": "outfalls_receiving_waters",
        "label": "Outfalls and receiving waters free of sediment",
        "help_text": ("Discharge points, outfalls and receiving waters (streams, wetlands, the harbor) show no "
                      "sediment deposits, turbid plumes or sheen from the site."),
        "control": "discharge points",
        "photo_expected_when_deficient": True,
        "needs_new_control_default": False,
    },
    {
        "key": "plans_posted",
        "label": "ESC plan and permit posted on site",
        "help_text": ("The approval or permit, with its number, and the current ESC plan are posted or kept on "
                      "site and available to the inspector."),
        "control": "posted permit and ESC plan",
        "photo_expected_when_deficient": False,
        "needs_new_control_default": False,
    },
]

ACTION_LEVELS = [
    {"parameter": "turbidity", "basis": "weekly_average", "unit": "NTU", "min_value": None, "max_value": "50",
     "citation": "EPA Construction General Permit, dewatering turbidity benchmark"},
    {"parameter": "ph", "basis": "per_sample", "unit": "SU", "min_value": "6.5", "max_value": "8.3",
     "citation": "314 CMR 4.05"},
]


def _load_reference_data():
    now = datetime.now(timezone.utc)
    op.bulk_insert(sa.table("sync_counter", sa.column("id", sa.Integer), sa.column("value", sa.BigInteger),
                            sa.column("purged_through", sa.BigInteger)),
                   [{"id": 1, "value": 0, "purged_through": 0}])
    op.bulk_insert(
        sa.table("checklist_templates", sa.column("id", sa.String(36)), sa.column("key", sa.String(60)),
                 sa.column("version", sa.Integer), sa.column("title", sa.String(200)),
                 sa.column("description", sa.Text), sa.column("items", sa.JSON),
                 sa.column("published_at", UTCDateTime())),
        [{"id": str(uuid.uuid4()), "key": "esc", "version": 1, "title": "Erosion and sediment control inspection",
          "description": "Default ESC checklist (DOMAIN.md R-I3).", "items": ESC_CHECKLIST_ITEMS,
          "published_at": now}])
    op.bulk_insert(
        sa.table("action_levels", sa.column("id", sa.String(36)), sa.column("parameter", sa.String(60)),
                 sa.column("basis", sa.String(20)), sa.column("unit", sa.String(20)),
                 sa.column("min_value", sa.String(40)), sa.column("max_value", sa.String(40)),
                 sa.column("citation", sa.Text), sa.column("enabled", sa.Boolean),
                 sa.column("updated_at", UTCDateTime())),
        [{"id": str(uuid.uuid4()), **level, "enabled": True, "updated_at": now} for level in ACTION_LEVELS])
    op.bulk_insert(
        sa.table("fine_schedules", sa.column("key", sa.String(40)),
                 sa.column("first_offense", sa.Numeric(14, 2)), sa.column("second_offense", sa.Numeric(14, 2)),
                 sa.column("third_and_subsequent", sa.Numeric(14, 2)), sa.column("version", sa.Integer),
                 sa.column("updated_at", UTCDateTime())),
        [{"key": "default", "first_offense": Decimal("100.00"), "second_offense": Decimal("200.00"),
          "third_and_subsequent": Decimal("300.00"), "version": 1, "updated_at": now}])


def upgrade():
    op.create_table('audit_log',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('at', UTCDateTime(), nullable=False),
    sa.Column('actor_id', sa.String(length=36), nullable=True),
    sa.Column('device_id', sa.String(length=64), nullable=True),
    sa.Column('ip_address', sa.String(length=64), nullable=True),
    sa.Column('action', sa.String(length=80), nullable=False),
    sa.Column('record_type', sa.String(length=40), nullable=False),
    sa.Column('record_id', sa.String(length=64), nullable=False),
    sa.Column('permit_id', sa.String(length=36), nullable=True),
    sa.Column('changes', sa.JSON(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_audit_log'))
    )
    with op.batch_alter_table('audit_log', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_audit_log_actor_id'), ['actor_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_audit_log_at'), ['at'], unique=False)
        batch_op.create_index(batch_op.f('ix_audit_log_permit_id'), ['permit_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_audit_log_record_id'), ['record_id'], unique=False)

    op.create_table('number_counters',
    sa.Column('prefix', sa.String(length=8), nullable=False),
    sa.Column('year', sa.Integer(), autoincrement=False, nullable=False),
    sa.Column('last', sa.Integer(), nullable=False),
    sa.PrimaryKeyConstraint('prefix', 'year', name=op.f('pk_number_counters'))
    )
    op.create_table('sync_changes',
    sa.Column('entity', sa.String(length=40), nullable=False),
    sa.Column('record_id', sa.String(length=64), nullable=False),
    sa.Column('seq', sa.BigInteger(), nullable=False),
    sa.Column('permit_id', sa.String(length=36), nullable=True),
    sa.Column('op', sa.String(length=10), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('changed_at', UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('entity', 'record_id', name=op.f('pk_sync_changes')),
    sa.UniqueConstraint('seq', name=op.f('uq_sync_changes_seq'))
    )
    with op.batch_alter_table('sync_changes', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_sync_changes_permit_id'), ['permit_id'], unique=False)

    op.create_table('sync_counter',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('value', sa.BigInteger(), nullable=False),
    sa.Column('purged_through', sa.BigInteger(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_sync_counter'))
    )
    op.create_table('sync_snapshots',
    sa.Column('entity', sa.String(length=40), nullable=False),
    sa.Column('record_id', sa.String(length=64), nullable=False),
    sa.Column('seq', sa.BigInteger(), nullable=False),
    sa.Column('data', sa.Text(), nullable=False),
    sa.PrimaryKeyConstraint('entity', 'record_id', name=op.f('pk_sync_snapshots'))
    )
    op.create_table('users',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('email', sa.String(length=254), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('role', sa.String(length=20), nullable=False),
    sa.Column('password_hash', sa.String(length=255), nullable=False),
    sa.Column('active', sa.Boolean(), nullable=False),
    sa.Column('created_at', UTCDateTime(), nullable=False),
    sa.Column('updated_at', UTCDateTime(), nullable=False),
    sa.CheckConstraint("role IN ('applicant', 'inspector', 'supervisor', 'admin')", name=op.f('ck_users_role')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_users')),
    sa.UniqueConstraint('email', name=op.f('uq_users_email'))
    )
    op.create_table('action_levels',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('parameter', sa.String(length=60), nullable=False),
    sa.Column('basis', sa.String(length=20), nullable=False),
    sa.Column('unit', sa.String(length=20), nullable=False),
    sa.Column('min_value', sa.String(length=40), nullable=True),
    sa.Column('max_value', sa.String(length=40), nullable=True),
    sa.Column('citation', sa.Text(), nullable=False),
    sa.Column('enabled', sa.Boolean(), nullable=False),
    sa.Column('updated_at', UTCDateTime(), nullable=False),
    sa.Column('updated_by', sa.String(length=36), nullable=True),
    sa.CheckConstraint("basis IN ('per_sample', 'weekly_average')", name=op.f('ck_action_levels_basis')),
    sa.ForeignKeyConstraint(['updated_by'], ['users.id'], name=op.f('fk_action_levels_updated_by_users')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_action_levels')),
    sa.UniqueConstraint('parameter', 'basis', name='uq_action_levels_parameter_basis')
    )
    op.create_table('auth_sessions',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('user_id', sa.String(length=36), nullable=False),
    sa.Column('device_id', sa.String(length=64), nullable=True),
    sa.Column('device_name', sa.String(length=200), nullable=True),
    sa.Column('created_at', UTCDateTime(), nullable=False),
    sa.Column('expires_at', UTCDateTime(), nullable=False),
    sa.Column('revoked_at', UTCDateTime(), nullable=True),
    sa.Column('last_used_at', UTCDateTime(), nullable=True),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_auth_sessions_user_id_users')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_auth_sessions'))
    )
    with op.batch_alter_table('auth_sessions', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_auth_sessions_device_id'), ['device_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_auth_sessions_user_id'), ['user_id'], unique=False)

    op.create_table('checklist_templates',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('key', sa.String(length=60), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('title', sa.String(length=200), nullable=False),
    sa.Column('description', sa.Text(), nullable=True),
    sa.Column('items', sa.JSON(), nullable=False),
    sa.Column('published_at', UTCDateTime(), nullable=False),
    sa.Column('published_by', sa.String(length=36), nullable=True),
    sa.ForeignKeyConstraint(['published_by'], ['users.id'], name=op.f('fk_checklist_templates_published_by_users')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_checklist_templates')),
    sa.UniqueConstraint('key', 'version', name='uq_checklist_templates_key_version')
    )
    with op.batch_alter_table('checklist_templates', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_checklist_templates_key'), ['key'], unique=False)

    op.create_table('devices',
    sa.Column('id', sa.String(length=64), nullable=False),
    sa.Column('user_id', sa.String(length=36), nullable=True),
    sa.Column('name', sa.String(length=200), nullable=True),
    sa.Column('app_version', sa.String(length=40), nullable=True),
    sa.Column('first_seen', UTCDateTime(), nullable=False),
    sa.Column('last_push_at', UTCDateTime(), nullable=True),
    sa.Column('last_pull_at', UTCDateTime(), nullable=True),
    sa.Column('pending_count', sa.Integer(), nullable=True),
    sa.Column('pending_reported_at', UTCDateTime(), nullable=True),
    sa.Column('revoked_at', UTCDateTime(), nullable=True),
    sa.Column('revoked_by', sa.String(length=36), nullable=True),
    sa.ForeignKeyConstraint(['revoked_by'], ['users.id'], name=op.f('fk_devices_revoked_by_users')),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_devices_user_id_users')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_devices'))
    )
    with op.batch_alter_table('devices', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_devices_user_id'), ['user_id'], unique=False)

    op.create_table('fine_schedules',
    sa.Column('key', sa.String(length=40), nullable=False),
    sa.Column('first_offense', sa.Numeric(precision=14, scale=2), nullable=False),
    sa.Column('second_offense', sa.Numeric(precision=14, scale=2), nullable=False),
    sa.Column('third_and_subsequent', sa.Numeric(precision=14, scale=2), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('updated_at', UTCDateTime(), nullable=False),
    sa.Column('updated_by', sa.String(length=36), nullable=True),
    sa.ForeignKeyConstraint(['updated_by'], ['users.id'], name=op.f('fk_fine_schedules_updated_by_users')),
    sa.PrimaryKeyConstraint('key', name=op.f('pk_fine_schedules'))
    )
    op.create_table('permits',
    sa.Column('number', sa.String(length=20), nullable=True),
    sa.Column('former_numbers', sa.JSON(), nullable=False),
    sa.Column('status', sa.String(length=20), nullable=False),
    sa.Column('applicant_id', sa.String(length=36), nullable=False),
    sa.Column('site_address', sa.String(length=300), nullable=False),
    sa.Column('parcel_id', sa.String(length=60), nullable=True),
    sa.Column('site_lat', sa.Float(), nullable=False),
    sa.Column('site_lon', sa.Float(), nullable=False),
    sa.Column('limit_of_work', sa.JSON(), nullable=True),
    sa.Column('owner_name', sa.String(length=200), nullable=False),
    sa.Column('owner_email', sa.String(length=254), nullable=True),
    sa.Column('owner_phone', sa.String(length=40), nullable=True),
    sa.Column('disturbed_area_sqft', sa.Float(), nullable=False),
    sa.Column('drains_to_ms4', sa.Boolean(), nullable=False),
    sa.Column('drains_to_waters', sa.Boolean(), nullable=False),
    sa.Column('proposed_use', sa.String(length=300), nullable=False),
    sa.Column('luhppl_kind', sa.String(length=40), nullable=True),
    sa.Column('luhppl_description', sa.Text(), nullable=True),
    sa.Column('description', sa.Text(), nullable=True),
    sa.Column('review_level', sa.String(length=30), nullable=False),
    sa.Column('determination', sa.JSON(), nullable=False),
    sa.Column('submitted_at', UTCDateTime(), nullable=True),
    sa.Column('decided_at', UTCDateTime(), nullable=True),
    sa.Column('work_commenced_on', sa.Date(), nullable=True),
    sa.Column('work_completed_on', sa.Date(), nullable=True),
    sa.Column('closed_at', UTCDateTime(), nullable=True),
    sa.Column('cease_and_desist', sa.Boolean(), nullable=False),
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('created_at', UTCDateTime(), nullable=False),
    sa.Column('updated_at', UTCDateTime(), nullable=False),
    sa.Column('created_by', sa.String(length=36), nullable=True),
    sa.Column('device_id', sa.String(length=64), nullable=True),
    sa.Column('device_created_at', UTCDateTime(), nullable=True),
    sa.ForeignKeyConstraint(['applicant_id'], ['users.id'], name=op.f('fk_permits_applicant_id_users')),
    sa.ForeignKeyConstraint(['created_by'], ['users.id'], name=op.f('fk_permits_created_by_users')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_permits')),
    sa.UniqueConstraint('number', name=op.f('uq_permits_number'))
    )
    with op.batch_alter_table('permits', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_permits_applicant_id'), ['applicant_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_permits_status'), ['status'], unique=False)

    op.create_table('sync_conflicts',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('entity', sa.String(length=40), nullable=False),
    sa.Column('record_id', sa.String(length=64), nullable=False),
    sa.Column('permit_id', sa.String(length=36), nullable=True),
    sa.Column('op', sa.String(length=10), nullable=False),
    sa.Column('mutation_id', sa.String(length=64), nullable=True),
    sa.Column('device_id', sa.String(length=64), nullable=True),
    sa.Column('user_id', sa.String(length=36), nullable=False),
    sa.Column('base_version', sa.Integer(), nullable=True),
    sa.Column('device_data', sa.JSON(), nullable=False),
    sa.Column('server_version', sa.Integer(), nullable=True),
    sa.Column('server_record', sa.JSON(), nullable=True),
    sa.Column('fields', sa.JSON(), nullable=False),
    sa.Column('status', sa.String(length=10), nullable=False),
    sa.Column('resolution', sa.String(length=20), nullable=True),
    sa.Column('resolved_by', sa.String(length=36), nullable=True),
    sa.Column('resolved_at', UTCDateTime(), nullable=True),
    sa.Column('resolved_version', sa.Integer(), nullable=True),
    sa.Column('created_at', UTCDateTime(), nullable=False),
    sa.CheckConstraint("resolution IN ('keep_server', 'take_device', 'merge')", name=op.f('ck_sync_conflicts_resolution')),
    sa.CheckConstraint("status IN ('open', 'resolved')", name=op.f('ck_sync_conflicts_status')),
    sa.ForeignKeyConstraint(['resolved_by'], ['users.id'], name=op.f('fk_sync_conflicts_resolved_by_users')),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_sync_conflicts_user_id_users')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_sync_conflicts'))
    )
    with op.batch_alter_table('sync_conflicts', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_sync_conflicts_created_at'), ['created_at'], unique=False)
        batch_op.create_index(batch_op.f('ix_sync_conflicts_device_id'), ['device_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_sync_conflicts_permit_id'), ['permit_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_sync_conflicts_record_id'), ['record_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_sync_conflicts_status'), ['status'], unique=False)
        batch_op.create_index(batch_op.f('ix_sync_conflicts_user_id'), ['user_id'], unique=False)

    op.create_table('sync_mutations',
    sa.Column('mutation_id', sa.String(length=64), nullable=False),
    sa.Column('device_id', sa.String(length=64), nullable=True),
    sa.Column('user_id', sa.String(length=36), nullable=False),
    sa.Column('entity', sa.String(length=40), nullable=False),
    sa.Column('record_id', sa.String(length=64), nullable=True),
    sa.Column('op', sa.String(length=10), nullable=False),
    sa.Column('status', sa.String(length=12), nullable=False),
    sa.Column('version', sa.Integer(), nullable=True),
    sa.Column('error', sa.String(length=60), nullable=True),
    sa.Column('message', sa.Text(), nullable=True),
    sa.Column('errors', sa.JSON(), nullable=True),
    sa.Column('server_record', sa.JSON(), nullable=True),
    sa.Column('conflict_id', sa.String(length=36), nullable=True),
    sa.Column('at', UTCDateTime(), nullable=False),
    sa.CheckConstraint("status IN ('applied', 'duplicate', 'conflict', 'rejected')", name=op.f('ck_sync_mutations_status')),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_sync_mutations_user_id_users')),
    sa.PrimaryKeyConstraint('mutation_id', name=op.f('pk_sync_mutations'))
    )
    with op.batch_alter_table('sync_mutations', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_sync_mutations_at'), ['at'], unique=False)
        batch_op.create_index(batch_op.f('ix_sync_mutations_device_id'), ['device_id'], unique=False)

    op.create_table('bonds',
    sa.Column('permit_id', sa.String(length=36), nullable=False),
    sa.Column('form', sa.String(length=20), nullable=False),
    sa.Column('form_description', sa.String(length=200), nullable=True),
    sa.Column('amount', sa.Numeric(precision=14, scale=2), nullable=False),
    sa.Column('released_amount', sa.Numeric(precision=14, scale=2), nullable=False),
    sa.Column('issuer', sa.String(length=200), nullable=True),
    sa.Column('reference', sa.String(length=100), nullable=True),
    sa.Column('received_on', sa.Date(), nullable=True),
    sa.Column('notes', sa.Text(), nullable=True),
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('created_at', UTCDateTime(), nullable=False),
    sa.Column('updated_at', UTCDateTime(), nullable=False),
    sa.Column('created_by', sa.String(length=36), nullable=True),
    sa.Column('device_id', sa.String(length=64), nullable=True),
    sa.Column('device_created_at', UTCDateTime(), nullable=True),
    sa.CheckConstraint('amount > 0', name=op.f('ck_bonds_amount_positive')),
    sa.CheckConstraint('released_amount >= 0 AND released_amount <= amount', name=op.f('ck_bonds_released_within_amount')),
    sa.ForeignKeyConstraint(['created_by'], ['users.id'], name=op.f('fk_bonds_created_by_users')),
    sa.ForeignKeyConstraint(['permit_id'], ['permits.id'], name=op.f('fk_bonds_permit_id_permits')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_bonds'))
    )
    with op.batch_alter_table('bonds', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_bonds_permit_id'), ['permit_id'], unique=False)

    op.create_table('certificates',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('permit_id', sa.String(length=36), nullable=False),
    sa.Column('number', sa.String(length=20), nullable=False),
    sa.Column('year', sa.Integer(), nullable=False),
    sa.Column('sequence', sa.Integer(), nullable=False),
    sa.Column('issued_at', UTCDateTime(), nullable=False),
    sa.Column('issued_on', sa.Date(), nullable=False),
    sa.Column('issued_by', sa.String(length=36), nullable=False),
    sa.Column('basis_type', sa.String(length=20), nullable=False),
    sa.Column('basis_id', sa.String(length=36), nullable=False),
    sa.Column('remarks', sa.Text(), nullable=True),
    sa.Column('snapshot', sa.JSON(), nullable=False),
    sa.ForeignKeyConstraint(['issued_by'], ['users.id'], name=op.f('fk_certificates_issued_by_users')),
    sa.ForeignKeyConstraint(['permit_id'], ['permits.id'], name=op.f('fk_certificates_permit_id_permits')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_certificates')),
    sa.UniqueConstraint('number', name=op.f('uq_certificates_number')),
    sa.UniqueConstraint('permit_id', name=op.f('uq_certificates_permit_id')),
    sa.UniqueConstraint('year', 'sequence', name=op.f('uq_certificates_year'))
    )
    op.create_table('completion_notices',
    sa.Column('permit_id', sa.String(length=36), nullable=False),
    sa.Column('statement', sa.Text(), nullable=False),
    sa.Column('photo_ids', sa.JSON(), nullable=False),
    sa.Column('completed_on', sa.Date(), nullable=True),
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('created_at', UTCDateTime(), nullable=False),
    sa.Column('updated_at', UTCDateTime(), nullable=False),
    sa.Column('created_by', sa.String(length=36), nullable=True),
    sa.Column('device_id', sa.String(length=64), nullable=True),
    sa.Column('device_created_at', UTCDateTime(), nullable=True),
    sa.Column('status', sa.String(length=20), nullable=False),
    sa.Column('submitted_at', UTCDateTime(), nullable=True),
    sa.Column('decision', sa.String(length=10), nullable=True),
    sa.Column('review_reasons', sa.Text(), nullable=True),
    sa.Column('reviewed_at', UTCDateTime(), nullable=True),
    sa.Column('reviewed_by', sa.String(length=36), nullable=True),
    sa.ForeignKeyConstraint(['created_by'], ['users.id'], name=op.f('fk_completion_notices_created_by_users')),
    sa.ForeignKeyConstraint(['permit_id'], ['permits.id'], name=op.f('fk_completion_notices_permit_id_permits')),
    sa.ForeignKeyConstraint(['reviewed_by'], ['users.id'], name=op.f('fk_completion_notices_reviewed_by_users')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_completion_notices')),
    sa.UniqueConstraint('permit_id', name=op.f('uq_completion_notices_permit_id'))
    )
    with op.batch_alter_table('completion_notices', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_completion_notices_status'), ['status'], unique=False)

    op.create_table('enforcement_orders',
    sa.Column('permit_id', sa.String(length=36), nullable=False),
    sa.Column('number', sa.String(length=20), nullable=False),
    sa.Column('kinds', sa.JSON(), nullable=False),
    sa.Column('requirements', sa.JSON(), nullable=False),
    sa.Column('finding_ids', sa.JSON(), nullable=False),
    sa.Column('issued_on', sa.Date(), nullable=False),
    sa.Column('deadline', sa.Date(), nullable=False),
    sa.Column('issued_by', sa.String(length=36), nullable=True),
    sa.Column('service_method', sa.String(length=20), nullable=True),
    sa.Column('served_at', UTCDateTime(), nullable=True),
    sa.Column('served_to', sa.String(length=300), nullable=True),
    sa.Column('status', sa.String(length=20), nullable=False),
    sa.Column('status_changed_at', UTCDateTime(), nullable=True),
    sa.Column('referral_note', sa.Text(), nullable=True),
    sa.Column('court_case_note', sa.Text(), nullable=True),
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('created_at', UTCDateTime(), nullable=False),
    sa.Column('updated_at', UTCDateTime(), nullable=False),
    sa.Column('created_by', sa.String(length=36), nullable=True),
    sa.Column('device_id', sa.String(length=64), nullable=True),
    sa.Column('device_created_at', UTCDateTime(), nullable=True),
    sa.CheckConstraint("service_method IS NULL OR service_method IN ('hand', 'certified_mail', 'first_class_mail', 'posted_on_site', 'email')", name=op.f('ck_enforcement_orders_service_method')),
    sa.CheckConstraint("status IN ('open', 'complied', 'town_performed', 'closed')", name=op.f('ck_enforcement_orders_status')),
    sa.ForeignKeyConstraint(['created_by'], ['users.id'], name=op.f('fk_enforcement_orders_created_by_users')),
    sa.ForeignKeyConstraint(['issued_by'], ['users.id'], name=op.f('fk_enforcement_orders_issued_by_users')),
    sa.ForeignKeyConstraint(['permit_id'], ['permits.id'], name=op.f('fk_enforcement_orders_permit_id_permits')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_enforcement_orders')),
    sa.UniqueConstraint('number', name=op.f('uq_enforcement_orders_number'))
    )
    with op.batch_alter_table('enforcement_orders', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_enforcement_orders_deadline'), ['deadline'], unique=False)
        batch_op.create_index(batch_op.f('ix_enforcement_orders_permit_id'), ['permit_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_enforcement_orders_status'), ['status'], unique=False)

    op.create_table('entry_authorizations',
    sa.Column('permit_id', sa.String(length=36), nullable=False),
    sa.Column('basis', sa.String(length=20), nullable=False),
    sa.Column('granted_by_name', sa.String(length=200), nullable=False),
    sa.Column('granted_by_relation', sa.String(length=200), nullable=False),
    sa.Column('scope', sa.JSON(), nullable=False),
    sa.Column('valid_from', UTCDateTime(), nullable=False),
    sa.Column('valid_to', UTCDateTime(), nullable=False),
    sa.Column('signature_photo_id', sa.String(length=36), nullable=True),
    sa.Column('notes', sa.Text(), nullable=True),
    sa.Column('revoked_at', UTCDateTime(), nullable=True),
    sa.Column('revoked_by', sa.String(length=36), nullable=True),
    sa.Column('revocation_reason', sa.Text(), nullable=True),
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('created_at', UTCDateTime(), nullable=False),
    sa.Column('updated_at', UTCDateTime(), nullable=False),
    sa.Column('created_by', sa.String(length=36), nullable=True),
    sa.Column('device_id', sa.String(length=64), nullable=True),
    sa.Column('device_created_at', UTCDateTime(), nullable=True),
    sa.CheckConstraint("basis IN ('owner_consent', 'permit_condition', 'court_warrant', 'emergency')", name=op.f('ck_entry_authorizations_basis')),
    sa.CheckConstraint('valid_to > valid_from', name=op.f('ck_entry_authorizations_window')),
    sa.ForeignKeyConstraint(['created_by'], ['users.id'], name=op.f('fk_entry_authorizations_created_by_users')),
    sa.ForeignKeyConstraint(['permit_id'], ['permits.id'], name=op.f('fk_entry_authorizations_permit_id_permits')),
    sa.ForeignKeyConstraint(['revoked_by'], ['users.id'], name=op.f('fk_entry_authorizations_revoked_by_users')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_entry_authorizations'))
    )
    with op.batch_alter_table('entry_authorizations', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_entry_authorizations_permit_id'), ['permit_id'], unique=False)

    op.create_table('final_reports',
    sa.Column('permit_id', sa.String(length=36), nullable=False),
    sa.Column('pls_name', sa.String(length=200), nullable=True),
    sa.Column('pls_license_number', sa.String(length=40), nullable=True),
    sa.Column('pls_stamp_date', sa.Date(), nullable=True),
    sa.Column('pe_applicable', sa.Boolean(), nullable=False),
    sa.Column('pe_name', sa.String(length=200), nullable=True),
    sa.Column('pe_license_number', sa.String(length=40), nullable=True),
    sa.Column('pe_stamp_date', sa.Date(), nullable=True),
    sa.Column('cert_substantial_compliance', sa.Boolean(), nullable=False),
    sa.Column('cert_permanent_erosion_controls', sa.Boolean(), nullable=False),
    sa.Column('cert_stormwater_facilities', sa.Boolean(), nullable=False),
    sa.Column('certification_statement', sa.Text(), nullable=True),
    sa.Column('certified_by', sa.String(length=200), nullable=True),
    sa.Column('discrepancies', sa.JSON(), nullable=True),
    sa.Column('controls', sa.JSON(), nullable=False),
    sa.Column('om_statement', sa.Text(), nullable=True),
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('created_at', UTCDateTime(), nullable=False),
    sa.Column('updated_at', UTCDateTime(), nullable=False),
    sa.Column('created_by', sa.String(length=36), nullable=True),
    sa.Column('device_id', sa.String(length=64), nullable=True),
    sa.Column('device_created_at', UTCDateTime(), nullable=True),
    sa.Column('status', sa.String(length=20), nullable=False),
    sa.Column('submitted_at', UTCDateTime(), nullable=True),
    sa.Column('decision', sa.String(length=10), nullable=True),
    sa.Column('review_reasons', sa.Text(), nullable=True),
    sa.Column('reviewed_at', UTCDateTime(), nullable=True),
    sa.Column('reviewed_by', sa.String(length=36), nullable=True),
    sa.ForeignKeyConstraint(['created_by'], ['users.id'], name=op.f('fk_final_reports_created_by_users')),
    sa.ForeignKeyConstraint(['permit_id'], ['permits.id'], name=op.f('fk_final_reports_permit_id_permits')),
    sa.ForeignKeyConstraint(['reviewed_by'], ['users.id'], name=op.f('fk_final_reports_reviewed_by_users')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_final_reports')),
    sa.UniqueConstraint('permit_id', name=op.f('uq_final_reports_permit_id'))
    )
    with op.batch_alter_table('final_reports', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_final_reports_status'), ['status'], unique=False)

    op.create_table('permit_assignments',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('permit_id', sa.String(length=36), nullable=False),
    sa.Column('inspector_id', sa.String(length=36), nullable=False),
    sa.Column('assigned_at', UTCDateTime(), nullable=False),
    sa.Column('assigned_by', sa.String(length=36), nullable=True),
    sa.Column('removed_at', UTCDateTime(), nullable=True),
    sa.Column('removed_by', sa.String(length=36), nullable=True),
    sa.ForeignKeyConstraint(['assigned_by'], ['users.id'], name=op.f('fk_permit_assignments_assigned_by_users')),
    sa.ForeignKeyConstraint(['inspector_id'], ['users.id'], name=op.f('fk_permit_assignments_inspector_id_users')),
    sa.ForeignKeyConstraint(['permit_id'], ['permits.id'], name=op.f('fk_permit_assignments_permit_id_permits')),
    sa.ForeignKeyConstraint(['removed_by'], ['users.id'], name=op.f('fk_permit_assignments_removed_by_users')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_permit_assignments'))
    )
    with op.batch_alter_table('permit_assignments', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_permit_assignments_inspector_id'), ['inspector_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_permit_assignments_permit_id'), ['permit_id'], unique=False)

    op.create_table('permit_conditions',
    sa.Column('permit_id', sa.String(length=36), nullable=False),
    sa.Column('number', sa.Integer(), nullable=False),
    sa.Column('text', sa.Text(), nullable=False),
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('created_at', UTCDateTime(), nullable=False),
    sa.Column('updated_at', UTCDateTime(), nullable=False),
    sa.Column('created_by', sa.String(length=36), nullable=True),
    sa.Column('device_id', sa.String(length=64), nullable=True),
    sa.Column('device_created_at', UTCDateTime(), nullable=True),
    sa.ForeignKeyConstraint(['created_by'], ['users.id'], name=op.f('fk_permit_conditions_created_by_users')),
    sa.ForeignKeyConstraint(['permit_id'], ['permits.id'], name=op.f('fk_permit_conditions_permit_id_permits')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_permit_conditions')),
    sa.UniqueConstraint('permit_id', 'number', name='uq_permit_conditions_permit_number')
    )
    with op.batch_alter_table('permit_conditions', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_permit_conditions_permit_id'), ['permit_id'], unique=False)

    op.create_table('permit_documents',
    sa.Column('permit_id', sa.String(length=36), nullable=False),
    sa.Column('kind', sa.String(length=20), nullable=False),
    sa.Column('filename', sa.String(length=255), nullable=False),
    sa.Column('title', sa.String(length=300), nullable=True),
    sa.Column('file_id', sa.String(length=64), nullable=True),
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('created_at', UTCDateTime(), nullable=False),
    sa.Column('updated_at', UTCDateTime(), nullable=False),
    sa.Column('created_by', sa.String(length=36), nullable=True),
    sa.Column('device_id', sa.String(length=64), nullable=True),
    sa.Column('device_created_at', UTCDateTime(), nullable=True),
    sa.ForeignKeyConstraint(['created_by'], ['users.id'], name=op.f('fk_permit_documents_created_by_users')),
    sa.ForeignKeyConstraint(['permit_id'], ['permits.id'], name=op.f('fk_permit_documents_permit_id_permits')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_permit_documents'))
    )
    with op.batch_alter_table('permit_documents', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_permit_documents_permit_id'), ['permit_id'], unique=False)

    op.create_table('permit_events',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('permit_id', sa.String(length=36), nullable=False),
    sa.Column('from_status', sa.String(length=20), nullable=True),
    sa.Column('to_status', sa.String(length=20), nullable=False),
    sa.Column('actor_id', sa.String(length=36), nullable=True),
    sa.Column('at', UTCDateTime(), nullable=False),
    sa.Column('reason', sa.Text(), nullable=True),
    sa.ForeignKeyConstraint(['actor_id'], ['users.id'], name=op.f('fk_permit_events_actor_id_users')),
    sa.ForeignKeyConstraint(['permit_id'], ['permits.id'], name=op.f('fk_permit_events_permit_id_permits')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_permit_events'))
    )
    with op.batch_alter_table('permit_events', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_permit_events_permit_id'), ['permit_id'], unique=False)

    op.create_table('permit_phases',
    sa.Column('permit_id', sa.String(length=36), nullable=False),
    sa.Column('number', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('description', sa.Text(), nullable=True),
    sa.Column('bond_amount', sa.Numeric(precision=12, scale=2), nullable=True),
    sa.Column('status', sa.String(length=20), nullable=False),
    sa.Column('completed_on', sa.Date(), nullable=True),
    sa.Column('completed_in_compliance', sa.Boolean(), nullable=False),
    sa.Column('completion_notes', sa.Text(), nullable=True),
    sa.Column('completed_by', sa.String(length=36), nullable=True),
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('created_at', UTCDateTime(), nullable=False),
    sa.Column('updated_at', UTCDateTime(), nullable=False),
    sa.Column('created_by', sa.String(length=36), nullable=True),
    sa.Column('device_id', sa.String(length=64), nullable=True),
    sa.Column('device_created_at', UTCDateTime(), nullable=True),
    sa.ForeignKeyConstraint(['completed_by'], ['users.id'], name=op.f('fk_permit_phases_completed_by_users')),
    sa.ForeignKeyConstraint(['created_by'], ['users.id'], name=op.f('fk_permit_phases_created_by_users')),
    sa.ForeignKeyConstraint(['permit_id'], ['permits.id'], name=op.f('fk_permit_phases_permit_id_permits')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_permit_phases')),
    sa.UniqueConstraint('permit_id', 'number', name='uq_permit_phases_permit_number')
    )
    with op.batch_alter_table('permit_phases', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_permit_phases_permit_id'), ['permit_id'], unique=False)

    op.create_table('photo_uploads',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('created_by', sa.String(length=36), nullable=False),
    sa.Column('device_id', sa.String(length=64), nullable=True),
    sa.Column('permit_id', sa.String(length=36), nullable=False),
    sa.Column('photo_id', sa.String(length=36), nullable=False),
    sa.Column('length', sa.BigInteger(), nullable=False),
    sa.Column('offset', sa.BigInteger(), nullable=False),
    sa.Column('chunks', sa.JSON(), nullable=False),
    sa.Column('meta', sa.JSON(), nullable=False),
    sa.Column('created_at', UTCDateTime(), nullable=False),
    sa.Column('expires_at', UTCDateTime(), nullable=False),
    sa.Column('completed_at', UTCDateTime(), nullable=True),
    sa.ForeignKeyConstraint(['created_by'], ['users.id'], name=op.f('fk_photo_uploads_created_by_users')),
    sa.ForeignKeyConstraint(['permit_id'], ['permits.id'], name=op.f('fk_photo_uploads_permit_id_permits')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_photo_uploads'))
    )
    with op.batch_alter_table('photo_uploads', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_photo_uploads_created_by'), ['created_by'], unique=False)
        batch_op.create_index(batch_op.f('ix_photo_uploads_expires_at'), ['expires_at'], unique=False)
        batch_op.create_index(batch_op.f('ix_photo_uploads_photo_id'), ['photo_id'], unique=False)

    op.create_table('photos',
    sa.Column('permit_id', sa.String(length=36), nullable=False),
    sa.Column('parent_type', sa.String(length=30), nullable=True),
    sa.Column('parent_id', sa.String(length=36), nullable=True),
    sa.Column('sha256', sa.String(length=64), nullable=False),
    sa.Column('content_type', sa.String(length=40), nullable=False),
    sa.Column('bytes', sa.BigInteger(), nullable=False),
    sa.Column('width', sa.Integer(), nullable=False),
    sa.Column('height', sa.Integer(), nullable=False),
    sa.Column('orientation', sa.SmallInteger(), nullable=False),
    sa.Column('camera_make', sa.String(length=100), nullable=True),
    sa.Column('camera_model', sa.String(length=100), nullable=True),
    sa.Column('taken_at', UTCDateTime(), nullable=True),
    sa.Column('taken_at_offset_min', sa.SmallInteger(), nullable=True),
    sa.Column('exif_lat', sa.Float(), nullable=True),
    sa.Column('exif_lon', sa.Float(), nullable=True),
    sa.Column('exif_alt', sa.Float(), nullable=True),
    sa.Column('device_lat', sa.Float(), nullable=True),
    sa.Column('device_lon', sa.Float(), nullable=True),
    sa.Column('device_accuracy_m', sa.Float(), nullable=True),
    sa.Column('location_lat', sa.Float(), nullable=True),
    sa.Column('location_lon', sa.Float(), nullable=True),
    sa.Column('location_source', sa.String(length=10), nullable=True),
    sa.Column('distance_to_site_m', sa.Float(), nullable=True),
    sa.Column('within_site', sa.Boolean(), nullable=True),
    sa.Column('far_from_site', sa.Boolean(), nullable=True),
    sa.Column('original_key', sa.String(length=200), nullable=False),
    sa.Column('display_key', sa.String(length=200), nullable=False),
    sa.Column('small_key', sa.String(length=200), nullable=False),
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('created_at', UTCDateTime(), nullable=False),
    sa.Column('updated_at', UTCDateTime(), nullable=False),
    sa.Column('created_by', sa.String(length=36), nullable=True),
    sa.Column('device_id', sa.String(length=64), nullable=True),
    sa.Column('device_created_at', UTCDateTime(), nullable=True),
    sa.CheckConstraint("parent_type IN ('inspection', 'finding', 'sample', 'completion_notice', 'entry_authorization') OR parent_type IS NULL", name=op.f('ck_photos_parent_type')),
    sa.ForeignKeyConstraint(['created_by'], ['users.id'], name=op.f('fk_photos_created_by_users')),
    sa.ForeignKeyConstraint(['permit_id'], ['permits.id'], name=op.f('fk_photos_permit_id_permits')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_photos'))
    )
    with op.batch_alter_table('photos', schema=None) as batch_op:
        batch_op.create_index('ix_photos_parent', ['parent_type', 'parent_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_photos_permit_id'), ['permit_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_photos_sha256'), ['sha256'], unique=False)

    op.create_table('bond_phases',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('bond_id', sa.String(length=36), nullable=False),
    sa.Column('phase_id', sa.String(length=36), nullable=False),
    sa.Column('amount', sa.Numeric(precision=14, scale=2), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.CheckConstraint('amount > 0', name=op.f('ck_bond_phases_amount_positive')),
    sa.ForeignKeyConstraint(['bond_id'], ['bonds.id'], name=op.f('fk_bond_phases_bond_id_bonds')),
    sa.ForeignKeyConstraint(['phase_id'], ['permit_phases.id'], name=op.f('fk_bond_phases_phase_id_permit_phases')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_bond_phases')),
    sa.UniqueConstraint('bond_id', 'phase_id', name=op.f('uq_bond_phases_bond_id'))
    )
    with op.batch_alter_table('bond_phases', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_bond_phases_bond_id'), ['bond_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_bond_phases_phase_id'), ['phase_id'], unique=False)

    op.create_table('bond_releases',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('bond_id', sa.String(length=36), nullable=False),
    sa.Column('phase_id', sa.String(length=36), nullable=True),
    sa.Column('kind', sa.String(length=10), nullable=False),
    sa.Column('amount', sa.Numeric(precision=14, scale=2), nullable=False),
    sa.Column('released_on', sa.Date(), nullable=False),
    sa.Column('released_by', sa.String(length=36), nullable=False),
    sa.Column('note', sa.Text(), nullable=True),
    sa.Column('created_at', UTCDateTime(), nullable=False),
    sa.CheckConstraint('amount > 0', name=op.f('ck_bond_releases_amount_positive')),
    sa.ForeignKeyConstraint(['bond_id'], ['bonds.id'], name=op.f('fk_bond_releases_bond_id_bonds')),
    sa.ForeignKeyConstraint(['phase_id'], ['permit_phases.id'], name=op.f('fk_bond_releases_phase_id_permit_phases')),
    sa.ForeignKeyConstraint(['released_by'], ['users.id'], name=op.f('fk_bond_releases_released_by_users')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_bond_releases')),
    sa.UniqueConstraint('bond_id', 'phase_id', name=op.f('uq_bond_releases_bond_id'))
    )
    with op.batch_alter_table('bond_releases', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_bond_releases_bond_id'), ['bond_id'], unique=False)

    op.create_table('cost_recoveries',
    sa.Column('permit_id', sa.String(length=36), nullable=False),
    sa.Column('order_id', sa.String(length=36), nullable=False),
    sa.Column('description', sa.Text(), nullable=True),
    sa.Column('abatement_completed_on', sa.Date(), nullable=False),
    sa.Column('notice_sent_on', sa.Date(), nullable=True),
    sa.Column('notice_method', sa.String(length=20), nullable=True),
    sa.Column('notice_received_on', sa.Date(), nullable=True),
    sa.Column('protest_filed_on', sa.Date(), nullable=True),
    sa.Column('protest_text', sa.Text(), nullable=True),
    sa.Column('protest_by', sa.String(length=36), nullable=True),
    sa.Column('decision', sa.String(length=10), nullable=True),
    sa.Column('decided_on', sa.Date(), nullable=True),
    sa.Column('decided_amount', sa.Numeric(precision=14, scale=2), nullable=True),
    sa.Column('decision_reason', sa.Text(), nullable=True),
    sa.Column('decided_by', sa.String(length=36), nullable=True),
    sa.Column('court_decision_on', sa.Date(), nullable=True),
    sa.Column('court_amount', sa.Numeric(precision=14, scale=2), nullable=True),
    sa.Column('court_case_note', sa.Text(), nullable=True),
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('created_at', UTCDateTime(), nullable=False),
    sa.Column('updated_at', UTCDateTime(), nullable=False),
    sa.Column('created_by', sa.String(length=36), nullable=True),
    sa.Column('device_id', sa.String(length=64), nullable=True),
    sa.Column('device_created_at', UTCDateTime(), nullable=True),
    sa.CheckConstraint("decision IS NULL OR decision IN ('affirm', 'reduce', 'void')", name=op.f('ck_cost_recoveries_decision')),
    sa.ForeignKeyConstraint(['created_by'], ['users.id'], name=op.f('fk_cost_recoveries_created_by_users')),
    sa.ForeignKeyConstraint(['decided_by'], ['users.id'], name=op.f('fk_cost_recoveries_decided_by_users')),
    sa.ForeignKeyConstraint(['order_id'], ['enforcement_orders.id'], name=op.f('fk_cost_recoveries_order_id_enforcement_orders')),
    sa.ForeignKeyConstraint(['permit_id'], ['permits.id'], name=op.f('fk_cost_recoveries_permit_id_permits')),
    sa.ForeignKeyConstraint(['protest_by'], ['users.id'], name=op.f('fk_cost_recoveries_protest_by_users')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_cost_recoveries'))
    )
    with op.batch_alter_table('cost_recoveries', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_cost_recoveries_order_id'), ['order_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_cost_recoveries_permit_id'), ['permit_id'], unique=False)

    op.create_table('enforcement_order_events',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('order_id', sa.String(length=36), nullable=False),
    sa.Column('kind', sa.String(length=20), nullable=False),
    sa.Column('from_status', sa.String(length=20), nullable=True),
    sa.Column('to_status', sa.String(length=20), nullable=True),
    sa.Column('note', sa.Text(), nullable=True),
    sa.Column('actor_id', sa.String(length=36), nullable=True),
    sa.Column('at', UTCDateTime(), nullable=False),
    sa.CheckConstraint("kind IN ('status', 'response')", name=op.f('ck_enforcement_order_events_kind')),
    sa.ForeignKeyConstraint(['actor_id'], ['users.id'], name=op.f('fk_enforcement_order_events_actor_id_users')),
    sa.ForeignKeyConstraint(['order_id'], ['enforcement_orders.id'], name=op.f('fk_enforcement_order_events_order_id_enforcement_orders')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_enforcement_order_events'))
    )
    with op.batch_alter_table('enforcement_order_events', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_enforcement_order_events_order_id'), ['order_id'], unique=False)

    op.create_table('final_report_documents',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('report_id', sa.String(length=36), nullable=False),
    sa.Column('kind', sa.String(length=30), nullable=False),
    sa.Column('filename', sa.String(length=200), nullable=False),
    sa.Column('content_type', sa.String(length=60), nullable=False),
    sa.Column('sha256', sa.String(length=64), nullable=False),
    sa.Column('size', sa.BigInteger(), nullable=False),
    sa.Column('storage_key', sa.String(length=200), nullable=False),
    sa.Column('uploaded_at', UTCDateTime(), nullable=False),
    sa.Column('uploaded_by', sa.String(length=36), nullable=True),
    sa.ForeignKeyConstraint(['report_id'], ['final_reports.id'], name=op.f('fk_final_report_documents_report_id_final_reports')),
    sa.ForeignKeyConstraint(['uploaded_by'], ['users.id'], name=op.f('fk_final_report_documents_uploaded_by_users')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_final_report_documents'))
    )
    with op.batch_alter_table('final_report_documents', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_final_report_documents_report_id'), ['report_id'], unique=False)

    op.create_table('inspections',
    sa.Column('permit_id', sa.String(length=36), nullable=False),
    sa.Column('entry_authorization_id', sa.String(length=36), nullable=False),
    sa.Column('kind', sa.String(length=30), nullable=False),
    sa.Column('started_at', UTCDateTime(), nullable=False),
    sa.Column('ended_at', UTCDateTime(), nullable=True),
    sa.Column('location_lat', sa.Float(), nullable=True),
    sa.Column('location_lon', sa.Float(), nullable=True),
    sa.Column('location_accuracy_m', sa.Float(), nullable=True),
    sa.Column('weather', sa.JSON(), nullable=True),
    sa.Column('phase', sa.String(length=200), nullable=True),
    sa.Column('unsafe_areas', sa.JSON(), nullable=False),
    sa.Column('notes', sa.Text(), nullable=True),
    sa.Column('disturbance_observed', sa.Boolean(), nullable=False),
    sa.Column('checklist_template', sa.String(length=60), nullable=True),
    sa.Column('checklist_template_version', sa.Integer(), nullable=True),
    sa.Column('checklist_items', sa.JSON(), nullable=False),
    sa.Column('verifies_finding_ids', sa.JSON(), nullable=False),
    sa.Column('supersedes_id', sa.String(length=36), nullable=True),
    sa.Column('status', sa.String(length=20), nullable=False),
    sa.Column('submitted_at', UTCDateTime(), nullable=True),
    sa.Column('submitted_by', sa.String(length=36), nullable=True),
    sa.Column('reviewed_at', UTCDateTime(), nullable=True),
    sa.Column('reviewed_by', sa.String(length=36), nullable=True),
    sa.Column('review_comment', sa.Text(), nullable=True),
    sa.Column('reviews', sa.JSON(), nullable=False),
    sa.Column('deleted_at', UTCDateTime(), nullable=True),
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('created_at', UTCDateTime(), nullable=False),
    sa.Column('updated_at', UTCDateTime(), nullable=False),
    sa.Column('created_by', sa.String(length=36), nullable=True),
    sa.Column('device_id', sa.String(length=64), nullable=True),
    sa.Column('device_created_at', UTCDateTime(), nullable=True),
    sa.CheckConstraint("kind IN ('pre_construction', 'post_installation', 'routine', 'storm_event', 'follow_up', 'final', 'complaint')", name=op.f('ck_inspections_kind')),
    sa.CheckConstraint("status IN ('draft', 'submitted', 'approved', 'returned')", name=op.f('ck_inspections_status')),
    sa.ForeignKeyConstraint(['created_by'], ['users.id'], name=op.f('fk_inspections_created_by_users')),
    sa.ForeignKeyConstraint(['entry_authorization_id'], ['entry_authorizations.id'], name=op.f('fk_inspections_entry_authorization_id_entry_authorizations')),
    sa.ForeignKeyConstraint(['permit_id'], ['permits.id'], name=op.f('fk_inspections_permit_id_permits')),
    sa.ForeignKeyConstraint(['reviewed_by'], ['users.id'], name=op.f('fk_inspections_reviewed_by_users')),
    sa.ForeignKeyConstraint(['submitted_by'], ['users.id'], name=op.f('fk_inspections_submitted_by_users')),
    sa.ForeignKeyConstraint(['supersedes_id'], ['inspections.id'], name=op.f('fk_inspections_supersedes_id_inspections')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_inspections'))
    )
    with op.batch_alter_table('inspections', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_inspections_entry_authorization_id'), ['entry_authorization_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_inspections_permit_id'), ['permit_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_inspections_started_at'), ['started_at'], unique=False)
        batch_op.create_index(batch_op.f('ix_inspections_status'), ['status'], unique=False)
        batch_op.create_index(batch_op.f('ix_inspections_supersedes_id'), ['supersedes_id'], unique=False)

    op.create_table('permit_exemptions',
    sa.Column('permit_id', sa.String(length=36), nullable=False),
    sa.Column('kind', sa.String(length=4), nullable=False),
    sa.Column('statement', sa.Text(), nullable=True),
    sa.Column('single_family', sa.Boolean(), nullable=True),
    sa.Column('utility_kind', sa.String(length=40), nullable=True),
    sa.Column('document_number', sa.String(length=80), nullable=True),
    sa.Column('issued_on', sa.Date(), nullable=True),
    sa.Column('expires_on', sa.Date(), nullable=True),
    sa.Column('document_photo_id', sa.String(length=64), nullable=True),
    sa.Column('document_id', sa.String(length=36), nullable=True),
    sa.Column('status', sa.String(length=20), nullable=False),
    sa.Column('decided_by', sa.String(length=36), nullable=True),
    sa.Column('decided_at', UTCDateTime(), nullable=True),
    sa.Column('decided_on', sa.Date(), nullable=True),
    sa.Column('decision_reason', sa.Text(), nullable=True),
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('created_at', UTCDateTime(), nullable=False),
    sa.Column('updated_at', UTCDateTime(), nullable=False),
    sa.Column('created_by', sa.String(length=36), nullable=True),
    sa.Column('device_id', sa.String(length=64), nullable=True),
    sa.Column('device_created_at', UTCDateTime(), nullable=True),
    sa.ForeignKeyConstraint(['created_by'], ['users.id'], name=op.f('fk_permit_exemptions_created_by_users')),
    sa.ForeignKeyConstraint(['decided_by'], ['users.id'], name=op.f('fk_permit_exemptions_decided_by_users')),
    sa.ForeignKeyConstraint(['document_id'], ['permit_documents.id'], name=op.f('fk_permit_exemptions_document_id_permit_documents')),
    sa.ForeignKeyConstraint(['permit_id'], ['permits.id'], name=op.f('fk_permit_exemptions_permit_id_permits')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_permit_exemptions'))
    )
    with op.batch_alter_table('permit_exemptions', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_permit_exemptions_permit_id'), ['permit_id'], unique=False)

    op.create_table('samples',
    sa.Column('permit_id', sa.String(length=36), nullable=False),
    sa.Column('entry_authorization_id', sa.String(length=36), nullable=False),
    sa.Column('sampled_at', UTCDateTime(), nullable=False),
    sa.Column('sampler', sa.String(length=200), nullable=False),
    sa.Column('location_lat', sa.Float(), nullable=True),
    sa.Column('location_lon', sa.Float(), nullable=True),
    sa.Column('outfall_id', sa.String(length=60), nullable=True),
    sa.Column('sample_type', sa.String(length=20), nullable=False),
    sa.Column('analysis', sa.String(length=10), nullable=False),
    sa.Column('lab_name', sa.String(length=200), nullable=True),
    sa.Column('parameters', sa.JSON(), nullable=False),
    sa.Column('chain_of_custody', sa.JSON(), nullable=False),
    sa.Column('received_by_lab_at', UTCDateTime(), nullable=True),
    sa.Column('analyzed_at', UTCDateTime(), nullable=True),
    sa.Column('notes', sa.Text(), nullable=True),
    sa.Column('exceedances', sa.JSON(), nullable=False),
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('created_at', UTCDateTime(), nullable=False),
    sa.Column('updated_at', UTCDateTime(), nullable=False),
    sa.Column('created_by', sa.String(length=36), nullable=True),
    sa.Column('device_id', sa.String(length=64), nullable=True),
    sa.Column('device_created_at', UTCDateTime(), nullable=True),
    sa.CheckConstraint("analysis IN ('field', 'lab')", name=op.f('ck_samples_analysis')),
    sa.CheckConstraint("sample_type IN ('grab', 'composite')", name=op.f('ck_samples_sample_type')),
    sa.ForeignKeyConstraint(['created_by'], ['users.id'], name=op.f('fk_samples_created_by_users')),
    sa.ForeignKeyConstraint(['entry_authorization_id'], ['entry_authorizations.id'], name=op.f('fk_samples_entry_authorization_id_entry_authorizations')),
    sa.ForeignKeyConstraint(['permit_id'], ['permits.id'], name=op.f('fk_samples_permit_id_permits')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_samples'))
    )
    with op.batch_alter_table('samples', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_samples_entry_authorization_id'), ['entry_authorization_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_samples_outfall_id'), ['outfall_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_samples_permit_id'), ['permit_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_samples_sampled_at'), ['sampled_at'], unique=False)

    op.create_table('violations',
    sa.Column('permit_id', sa.String(length=36), nullable=False),
    sa.Column('provision_kind', sa.String(length=20), nullable=False),
    sa.Column('condition_id', sa.String(length=36), nullable=True),
    sa.Column('provision', sa.String(length=300), nullable=True),
    sa.Column('description', sa.Text(), nullable=True),
    sa.Column('first_observed_on', sa.Date(), nullable=False),
    sa.Column('last_observed_on', sa.Date(), nullable=True),
    sa.Column('finding_ids', sa.JSON(), nullable=False),
    sa.Column('photo_ids', sa.JSON(), nullable=False),
    sa.Column('inspection_ids', sa.JSON(), nullable=False),
    sa.Column('referral_note', sa.Text(), nullable=True),
    sa.Column('court_case_note', sa.Text(), nullable=True),
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('created_at', UTCDateTime(), nullable=False),
    sa.Column('updated_at', UTCDateTime(), nullable=False),
    sa.Column('created_by', sa.String(length=36), nullable=True),
    sa.Column('device_id', sa.String(length=64), nullable=True),
    sa.Column('device_created_at', UTCDateTime(), nullable=True),
    sa.CheckConstraint("provision_kind IN ('permit_condition', 'bylaw', 'esc_plan', 'om_plan')", name=op.f('ck_violations_provision_kind')),
    sa.ForeignKeyConstraint(['condition_id'], ['permit_conditions.id'], name=op.f('fk_violations_condition_id_permit_conditions')),
    sa.ForeignKeyConstraint(['created_by'], ['users.id'], name=op.f('fk_violations_created_by_users')),
    sa.ForeignKeyConstraint(['permit_id'], ['permits.id'], name=op.f('fk_violations_permit_id_permits')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_violations'))
    )
    with op.batch_alter_table('violations', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_violations_condition_id'), ['condition_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_violations_permit_id'), ['permit_id'], unique=False)

    op.create_table('citations',
    sa.Column('permit_id', sa.String(length=36), nullable=False),
    sa.Column('violation_id', sa.String(length=36), nullable=False),
    sa.Column('number', sa.String(length=20), nullable=False),
    sa.Column('violator_name', sa.String(length=200), nullable=False),
    sa.Column('violator_key', sa.String(length=200), nullable=False),
    sa.Column('violator_address', sa.String(length=300), nullable=True),
    sa.Column('provision_key', sa.String(length=340), nullable=False),
    sa.Column('offense_on', sa.Date(), nullable=False),
    sa.Column('bylaw_section', sa.String(length=100), nullable=False),
    sa.Column('offense_number', sa.Integer(), nullable=False),
    sa.Column('fine_amount', sa.Numeric(precision=14, scale=2), nullable=False),
    sa.Column('delivery_method', sa.String(length=20), nullable=True),
    sa.Column('delivered_on', sa.Date(), nullable=True),
    sa.Column('notes', sa.Text(), nullable=True),
    sa.Column('court_case_note', sa.Text(), nullable=True),
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('created_at', UTCDateTime(), nullable=False),
    sa.Column('updated_at', UTCDateTime(), nullable=False),
    sa.Column('created_by', sa.String(length=36), nullable=True),
    sa.Column('device_id', sa.String(length=64), nullable=True),
    sa.Column('device_created_at', UTCDateTime(), nullable=True),
    sa.ForeignKeyConstraint(['created_by'], ['users.id'], name=op.f('fk_citations_created_by_users')),
    sa.ForeignKeyConstraint(['permit_id'], ['permits.id'], name=op.f('fk_citations_permit_id_permits')),
    sa.ForeignKeyConstraint(['violation_id'], ['violations.id'], name=op.f('fk_citations_violation_id_violations')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_citations')),
    sa.UniqueConstraint('number', name=op.f('uq_citations_number')),
    sa.UniqueConstraint('violator_key', 'provision_key', 'offense_on', name='uq_citations_offense')
    )
    with op.batch_alter_table('citations', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_citations_permit_id'), ['permit_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_citations_violation_id'), ['violation_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_citations_violator_key'), ['violator_key'], unique=False)

    op.create_table('cost_items',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('cost_recovery_id', sa.String(length=36), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.Column('category', sa.String(length=20), nullable=False),
    sa.Column('description', sa.String(length=500), nullable=False),
    sa.Column('amount', sa.Numeric(precision=14, scale=2), nullable=False),
    sa.CheckConstraint("category IN ('labor', 'equipment', 'materials', 'contractor', 'administrative')", name=op.f('ck_cost_items_category')),
    sa.ForeignKeyConstraint(['cost_recovery_id'], ['cost_recoveries.id'], name=op.f('fk_cost_items_cost_recovery_id_cost_recoveries')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_cost_items'))
    )
    with op.batch_alter_table('cost_items', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_cost_items_cost_recovery_id'), ['cost_recovery_id'], unique=False)

    op.create_table('cost_payments',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('cost_recovery_id', sa.String(length=36), nullable=False),
    sa.Column('paid_on', sa.Date(), nullable=False),
    sa.Column('amount', sa.Numeric(precision=14, scale=2), nullable=False),
    sa.Column('reference', sa.String(length=200), nullable=True),
    sa.Column('recorded_by', sa.String(length=36), nullable=True),
    sa.Column('created_at', UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['cost_recovery_id'], ['cost_recoveries.id'], name=op.f('fk_cost_payments_cost_recovery_id_cost_recoveries')),
    sa.ForeignKeyConstraint(['recorded_by'], ['users.id'], name=op.f('fk_cost_payments_recorded_by_users')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_cost_payments'))
    )
    with op.batch_alter_table('cost_payments', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_cost_payments_cost_recovery_id'), ['cost_recovery_id'], unique=False)

    op.create_table('findings',
    sa.Column('permit_id', sa.String(length=36), nullable=False),
    sa.Column('inspection_id', sa.String(length=36), nullable=True),
    sa.Column('sample_id', sa.String(length=36), nullable=True),
    sa.Column('item_key', sa.String(length=60), nullable=True),
    sa.Column('parameter', sa.String(length=60), nullable=True),
    sa.Column('kind', sa.String(length=30), nullable=False),
    sa.Column('severity', sa.String(length=20), nullable=False),
    sa.Column('description', sa.Text(), nullable=False),
    sa.Column('required_action', sa.Text(), nullable=True),
    sa.Column('needs_new_control', sa.Boolean(), nullable=False),
    sa.Column('observed_on', sa.Date(), nullable=False),
    sa.Column('due_on', sa.Date(), nullable=False),
    sa.Column('due_on_override_reason', sa.Text(), nullable=True),
    sa.Column('status', sa.String(length=20), nullable=False),
    sa.Column('verified_fixed_on', sa.Date(), nullable=True),
    sa.Column('verified_by_inspection_id', sa.String(length=36), nullable=True),
    sa.Column('closed_at', UTCDateTime(), nullable=True),
    sa.Column('photo_ids', sa.JSON(), nullable=False),
    sa.Column('deleted_at', UTCDateTime(), nullable=True),
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('created_at', UTCDateTime(), nullable=False),
    sa.Column('updated_at', UTCDateTime(), nullable=False),
    sa.Column('created_by', sa.String(length=36), nullable=True),
    sa.Column('device_id', sa.String(length=64), nullable=True),
    sa.Column('device_created_at', UTCDateTime(), nullable=True),
    sa.CheckConstraint("kind IN ('deficiency', 'exceedance', 'work_without_approval', 'other')", name=op.f('ck_findings_kind')),
    sa.CheckConstraint("severity IN ('low', 'moderate', 'high', 'critical')", name=op.f('ck_findings_severity')),
    sa.CheckConstraint("status IN ('open', 'closed')", name=op.f('ck_findings_status')),
    sa.ForeignKeyConstraint(['created_by'], ['users.id'], name=op.f('fk_findings_created_by_users')),
    sa.ForeignKeyConstraint(['inspection_id'], ['inspections.id'], name=op.f('fk_findings_inspection_id_inspections')),
    sa.ForeignKeyConstraint(['permit_id'], ['permits.id'], name=op.f('fk_findings_permit_id_permits')),
    sa.ForeignKeyConstraint(['verified_by_inspection_id'], ['inspections.id'], name=op.f('fk_findings_verified_by_inspection_id_inspections')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_findings'))
    )
    with op.batch_alter_table('findings', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_findings_due_on'), ['due_on'], unique=False)
        batch_op.create_index(batch_op.f('ix_findings_inspection_id'), ['inspection_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_findings_permit_id'), ['permit_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_findings_sample_id'), ['sample_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_findings_status'), ['status'], unique=False)

    op.create_table('exceedance_findings',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('permit_id', sa.String(length=36), nullable=False),
    sa.Column('key', sa.String(length=200), nullable=False),
    sa.Column('finding_id', sa.String(length=36), nullable=False),
    sa.Column('sample_id', sa.String(length=36), nullable=False),
    sa.Column('withdrawn', sa.Boolean(), nullable=False),
    sa.Column('created_at', UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['finding_id'], ['findings.id'], name=op.f('fk_exceedance_findings_finding_id_findings')),
    sa.ForeignKeyConstraint(['permit_id'], ['permits.id'], name=op.f('fk_exceedance_findings_permit_id_permits')),
    sa.ForeignKeyConstraint(['sample_id'], ['samples.id'], name=op.f('fk_exceedance_findings_sample_id_samples')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_exceedance_findings')),
    sa.UniqueConstraint('permit_id', 'key', name='uq_exceedance_findings_permit_key')
    )
    with op.batch_alter_table('exceedance_findings', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_exceedance_findings_permit_id'), ['permit_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_exceedance_findings_sample_id'), ['sample_id'], unique=False)


    _load_reference_data()


def downgrade():
    with op.batch_alter_table('exceedance_findings', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_exceedance_findings_sample_id'))
        batch_op.drop_index(batch_op.f('ix_exceedance_findings_permit_id'))

    op.drop_table('exceedance_findings')
    with op.batch_alter_table('findings', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_findings_status'))
        batch_op.drop_index(batch_op.f('ix_findings_sample_id'))
        batch_op.drop_index(batch_op.f('ix_findings_permit_id'))
        batch_op.drop_index(batch_op.f('ix_findings_inspection_id'))
        batch_op.drop_index(batch_op.f('ix_findings_due_on'))

    op.drop_table('findings')
    with op.batch_alter_table('cost_payments', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_cost_payments_cost_recovery_id'))

    op.drop_table('cost_payments')
    with op.batch_alter_table('cost_items', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_cost_items_cost_recovery_id'))

    op.drop_table('cost_items')
    with op.batch_alter_table('citations', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_citations_violator_key'))
        batch_op.drop_index(batch_op.f('ix_citations_violation_id'))
        batch_op.drop_index(batch_op.f('ix_citations_permit_id'))

    op.drop_table('citations')
    with op.batch_alter_table('violations', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_violations_permit_id'))
        batch_op.drop_index(batch_op.f('ix_violations_condition_id'))

    op.drop_table('violations')
    with op.batch_alter_table('samples', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_samples_sampled_at'))
        batch_op.drop_index(batch_op.f('ix_samples_permit_id'))
        batch_op.drop_index(batch_op.f('ix_samples_outfall_id'))
        batch_op.drop_index(batch_op.f('ix_samples_entry_authorization_id'))

    op.drop_table('samples')
    with op.batch_alter_table('permit_exemptions', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_permit_exemptions_permit_id'))

    op.drop_table('permit_exemptions')
    with op.batch_alter_table('inspections', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_inspections_supersedes_id'))
        batch_op.drop_index(batch_op.f('ix_inspections_status'))
        batch_op.drop_index(batch_op.f('ix_inspections_started_at'))
        batch_op.drop_index(batch_op.f('ix_inspections_permit_id'))
        batch_op.drop_index(batch_op.f('ix_inspections_entry_authorization_id'))

    op.drop_table('inspections')
    with op.batch_alter_table('final_report_documents', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_final_report_documents_report_id'))

    op.drop_table('final_report_documents')
    with op.batch_alter_table('enforcement_order_events', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_enforcement_order_events_order_id'))

    op.drop_table('enforcement_order_events')
    with op.batch_alter_table('cost_recoveries', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_cost_recoveries_permit_id'))
        batch_op.drop_index(batch_op.f('ix_cost_recoveries_order_id'))

    op.drop_table('cost_recoveries')
    with op.batch_alter_table('bond_releases', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_bond_releases_bond_id'))

    op.drop_table('bond_releases')
    with op.batch_alter_table('bond_phases', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_bond_phases_phase_id'))
        batch_op.drop_index(batch_op.f('ix_bond_phases_bond_id'))

    op.drop_table('bond_phases')
    with op.batch_alter_table('photos', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_photos_sha256'))
        batch_op.drop_index(batch_op.f('ix_photos_permit_id'))
        batch_op.drop_index('ix_photos_parent')

    op.drop_table('photos')
    with op.batch_alter_table('photo_uploads', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_photo_uploads_photo_id'))
        batch_op.drop_index(batch_op.f('ix_photo_uploads_expires_at'))
        batch_op.drop_index(batch_op.f('ix_photo_uploads_created_by'))

    op.drop_table('photo_uploads')
    with op.batch_alter_table('permit_phases', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_permit_phases_permit_id'))

    op.drop_table('permit_phases')
    with op.batch_alter_table('permit_events', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_permit_events_permit_id'))

    op.drop_table('permit_events')
    with op.batch_alter_table('permit_documents', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_permit_documents_permit_id'))

    op.drop_table('permit_documents')
    with op.batch_alter_table('permit_conditions', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_permit_conditions_permit_id'))

    op.drop_table('permit_conditions')
    with op.batch_alter_table('permit_assignments', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_permit_assignments_permit_id'))
        batch_op.drop_index(batch_op.f('ix_permit_assignments_inspector_id'))

    op.drop_table('permit_assignments')
    with op.batch_alter_table('final_reports', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_final_reports_status'))

    op.drop_table('final_reports')
    with op.batch_alter_table('entry_authorizations', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_entry_authorizations_permit_id'))

    op.drop_table('entry_authorizations')
    with op.batch_alter_table('enforcement_orders', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_enforcement_orders_status'))
        batch_op.drop_index(batch_op.f('ix_enforcement_orders_permit_id'))
        batch_op.drop_index(batch_op.f('ix_enforcement_orders_deadline'))

    op.drop_table('enforcement_orders')
    with op.batch_alter_table('completion_notices', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_completion_notices_status'))

    op.drop_table('completion_notices')
    op.drop_table('certificates')
    with op.batch_alter_table('bonds', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_bonds_permit_id'))

    op.drop_table('bonds')
    with op.batch_alter_table('sync_mutations', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_sync_mutations_device_id'))
        batch_op.drop_index(batch_op.f('ix_sync_mutations_at'))

    op.drop_table('sync_mutations')
    with op.batch_alter_table('sync_conflicts', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_sync_conflicts_user_id'))
        batch_op.drop_index(batch_op.f('ix_sync_conflicts_status'))
        batch_op.drop_index(batch_op.f('ix_sync_conflicts_record_id'))
        batch_op.drop_index(batch_op.f('ix_sync_conflicts_permit_id'))
        batch_op.drop_index(batch_op.f('ix_sync_conflicts_device_id'))
        batch_op.drop_index(batch_op.f('ix_sync_conflicts_created_at'))

    op.drop_table('sync_conflicts')
    with op.batch_alter_table('permits', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_permits_status'))
        batch_op.drop_index(batch_op.f('ix_permits_applicant_id'))

    op.drop_table('permits')
    op.drop_table('fine_schedules')
    with op.batch_alter_table('devices', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_devices_user_id'))

    op.drop_table('devices')
    with op.batch_alter_table('checklist_templates', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_checklist_templates_key'))

    op.drop_table('checklist_templates')
    with op.batch_alter_table('auth_sessions', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_auth_sessions_user_id'))
        batch_op.drop_index(batch_op.f('ix_auth_sessions_device_id'))

    op.drop_table('auth_sessions')
    op.drop_table('action_levels')
    op.drop_table('users')
    op.drop_table('sync_snapshots')
    op.drop_table('sync_counter')
    with op.batch_alter_table('sync_changes', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_sync_changes_permit_id'))

    op.drop_table('sync_changes')
    op.drop_table('number_counters')
    with op.batch_alter_table('audit_log', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_audit_log_record_id'))
        batch_op.drop_index(batch_op.f('ix_audit_log_permit_id'))
        batch_op.drop_index(batch_op.f('ix_audit_log_at'))
        batch_op.drop_index(batch_op.f('ix_audit_log_actor_id'))

    op.drop_table('audit_log')
