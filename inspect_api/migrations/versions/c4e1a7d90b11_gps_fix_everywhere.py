"""one GPS fix shape: altitude and source on inspections; accuracy, altitude and source on samples

Revision ID: c4e1a7d90b11
Revises: c4e1f0a9d214
Create Date: 2026-12-01 05:30:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'c4e1a7d90b11'
down_revision = 'c4e1f0a9d214'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('inspections', schema=None) as batch_op:
        batch_op.add_column(sa.Column('location_altitude_m', sa.Float(), nullable=True))
        batch_op.add_column(sa.Column('location_source', sa.String(length=20), nullable=True))
    with op.batch_alter_table('samples', schema=None) as batch_op:
        batch_op.add_column(sa.Column('location_accuracy_m', sa.Float(), nullable=True))
        batch_op.add_column(sa.Column('location_altitude_m', sa.Float(), nullable=True))
        batch_op.add_column(sa.Column('location_source', sa.String(length=20), nullable=True))


def downgrade():
    with op.batch_alter_table('samples', schema=None) as batch_op:
        batch_op.drop_column('location_source')
        batch_op.drop_column('location_altitude_m')
        batch_op.drop_column('location_accuracy_m')
    with op.batch_alter_table('inspections', schema=None) as batch_op:
        batch_op.drop_column('location_source')
        batch_op.drop_column('location_altitude_m')
