"""login throttle: consecutive failed sign-ins per account and when it may next be tried

Revision ID: f3a8c5d2e917
Revises: 7b3e9d41c2a8
Create Date: 2026-12-02 04:40:00.000000

"""
from alembic import op
import sqlalchemy as sa

from inspect_api.db import UTCDateTime


# revision identifiers, used by Alembic.
revision = 'f3a8c5d2e917'
down_revision = '7b3e9d41c2a8'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('login_throttle',
    sa.Column('account', sa.String(length=254), nullable=False),
    sa.Column('failures', sa.Integer(), nullable=False),
    sa.Column('last_failed_at', UTCDateTime(), nullable=False),
    sa.Column('next_allowed_at', UTCDateTime(), nullable=True),
    sa.PrimaryKeyConstraint('account', name=op.f('pk_login_throttle'))
    )
    with op.batch_alter_table('login_throttle', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_login_throttle_last_failed_at'), ['last_failed_at'], unique=False)


def downgrade():
    with op.batch_alter_table('login_throttle', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_login_throttle_last_failed_at'))
    op.drop_table('login_throttle')
