"""a sample's lab receipt: who at the lab received it and its temperature on arrival (R-S1 chain of custody)

Revision ID: 5d7e2c9a1b46
Revises: 5d2f8a1c7e40
Create Date: 2026-12-03 19:00:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '5d7e2c9a1b46'
down_revision = '5d2f8a1c7e40'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('samples', schema=None) as batch_op:
        batch_op.add_column(sa.Column('lab_received_by', sa.String(length=200), nullable=True))
        batch_op.add_column(sa.Column('lab_receipt_temperature_c', sa.Float(), nullable=True))


def downgrade():
    with op.batch_alter_table('samples', schema=None) as batch_op:
        batch_op.drop_column('lab_receipt_temperature_c')
        batch_op.drop_column('lab_received_by')
