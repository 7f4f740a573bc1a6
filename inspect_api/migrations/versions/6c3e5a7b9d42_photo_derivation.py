"""photo display and thumbnail images made after the upload answers

Revision ID: 6c3e5a7b9d42
Revises: 6b2d4f6a8c31
Create Date: 2026-12-04 05:00:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '6c3e5a7b9d42'
down_revision = '6b2d4f6a8c31'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('photo_derivations',
    sa.Column('sha256', sa.String(length=64), nullable=False),
    sa.Column('content_type', sa.String(length=40), nullable=False),
    sa.Column('original_key', sa.String(length=200), nullable=False),
    sa.Column('display_key', sa.String(length=200), nullable=False),
    sa.Column('small_key', sa.String(length=200), nullable=False),
    sa.Column('status', sa.String(length=10), nullable=False),
    sa.Column('attempts', sa.Integer(), nullable=False),
    sa.Column('next_attempt_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('claimed_by', sa.String(length=100), nullable=True),
    sa.Column('lease_until', sa.DateTime(timezone=True), nullable=True),
    sa.Column('last_error', sa.Text(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('derived_at', sa.DateTime(timezone=True), nullable=True),
    sa.CheckConstraint("status IN ('queued', 'done', 'failed')", name=op.f('ck_photo_derivations_status')),
    sa.PrimaryKeyConstraint('sha256', name=op.f('pk_photo_derivations'))
    )
    # Photos stored before this table have their thumbnails already (made with the upload): no rows.
    with op.batch_alter_table('photo_derivations', schema=None) as batch_op:
        batch_op.create_index('ix_photo_derivations_due', ['status', 'next_attempt_at'], unique=False)


def downgrade():
    with op.batch_alter_table('photo_derivations', schema=None) as batch_op:
        batch_op.drop_index('ix_photo_derivations_due')

    op.drop_table('photo_derivations')
