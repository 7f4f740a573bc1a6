"""notification preferences (a user's optional messages) and the days whose reminder pass has run

Revision ID: 7b3e9d41c2a8
Revises: 29acfd789e92
Create Date: 2026-12-01 19:05:00.000000

"""
from alembic import op
import sqlalchemy as sa

from inspect_api.db import UTCDateTime


# revision identifiers, used by Alembic.
revision = '7b3e9d41c2a8'
down_revision = '29acfd789e92'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('notification_preferences',
    sa.Column('user_id', sa.String(length=36), nullable=False),
    sa.Column('event', sa.String(length=60), nullable=False),
    sa.Column('enabled', sa.Boolean(), nullable=False),
    sa.Column('updated_at', UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_notification_preferences_user_id_users')),
    sa.PrimaryKeyConstraint('user_id', 'event', name=op.f('pk_notification_preferences'))
    )
    op.create_table('reminder_runs',
    sa.Column('local_date', sa.Date(), nullable=False),
    sa.Column('finished_at', UTCDateTime(), nullable=False),
    sa.Column('worker', sa.String(length=80), nullable=True),
    sa.Column('written', sa.Integer(), nullable=False),
    sa.PrimaryKeyConstraint('local_date', name=op.f('pk_reminder_runs'))
    )


def downgrade():
    op.drop_table('reminder_runs')
    op.drop_table('notification_preferences')
