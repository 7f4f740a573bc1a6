"""inspection program: storm events and inspection requests

Revision ID: c6bfe2870183
Revises: 82907e92c222
Create Date: 2026-12-01 05:06:28.921319

"""
from alembic import op
import sqlalchemy as sa

from inspect_api.db import UTCDateTime


# revision identifiers, used by Alembic.
revision = 'c6bfe2870183'
down_revision = '82907e92c222'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('storm_events',
    sa.Column('ended_at', UTCDateTime(), nullable=False),
    sa.Column('inches', sa.Numeric(precision=6, scale=2), nullable=False),
    sa.Column('source', sa.String(length=200), nullable=False),
    sa.Column('source_kind', sa.String(length=20), nullable=False),
    sa.Column('station', sa.String(length=60), nullable=True),
    sa.Column('import_key', sa.String(length=60), nullable=True),
    sa.Column('rain_day', sa.Date(), nullable=True),
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('created_at', UTCDateTime(), nullable=False),
    sa.Column('updated_at', UTCDateTime(), nullable=False),
    sa.Column('created_by', sa.String(length=36), nullable=True),
    sa.Column('device_id', sa.String(length=64), nullable=True),
    sa.Column('device_created_at', UTCDateTime(), nullable=True),
    sa.CheckConstraint("source_kind IN ('manual', 'noaa_cdo')", name=op.f('ck_storm_events_source_kind')),
    sa.CheckConstraint('inches >= 0', name=op.f('ck_storm_events_inches')),
    sa.ForeignKeyConstraint(['created_by'], ['users.id'], name=op.f('fk_storm_events_created_by_users')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_storm_events')),
    sa.UniqueConstraint('import_key', name=op.f('uq_storm_events_import_key'))
    )
    with op.batch_alter_table('storm_events', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_storm_events_ended_at'), ['ended_at'], unique=False)

    op.create_table('inspection_requests',
    sa.Column('permit_id', sa.String(length=36), nullable=False),
    sa.Column('kind', sa.String(length=30), nullable=False),
    sa.Column('preferred_dates', sa.JSON(), nullable=False),
    sa.Column('note', sa.Text(), nullable=True),
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('created_at', UTCDateTime(), nullable=False),
    sa.Column('updated_at', UTCDateTime(), nullable=False),
    sa.Column('created_by', sa.String(length=36), nullable=True),
    sa.Column('device_id', sa.String(length=64), nullable=True),
    sa.Column('device_created_at', UTCDateTime(), nullable=True),
    sa.CheckConstraint("kind IN ('post_installation', 'final', 're_inspection')", name=op.f('ck_inspection_requests_kind')),
    sa.ForeignKeyConstraint(['created_by'], ['users.id'], name=op.f('fk_inspection_requests_created_by_users')),
    sa.ForeignKeyConstraint(['permit_id'], ['permits.id'], name=op.f('fk_inspection_requests_permit_id_permits')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_inspection_requests'))
    )
    with op.batch_alter_table('inspection_requests', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_inspection_requests_permit_id'), ['permit_id'], unique=False)



def downgrade():
    with op.batch_alter_table('inspection_requests', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_inspection_requests_permit_id'))

    op.drop_table('inspection_requests')
    with op.batch_alter_table('storm_events', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_storm_events_ended_at'))

    op.drop_table('storm_events')
