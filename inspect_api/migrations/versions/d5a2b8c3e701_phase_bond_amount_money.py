"""phase bond amounts hold what the one Money type allows: twelve integer digits, Numeric(14, 2)

Revision ID: d5a2b8c3e701
Revises: c4e1a7d90b11
Create Date: 2026-12-01 07:15:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'd5a2b8c3e701'
down_revision = 'c4e1a7d90b11'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('permit_phases', schema=None) as batch_op:
        batch_op.alter_column('bond_amount', existing_type=sa.Numeric(12, 2), type_=sa.Numeric(14, 2),
                              existing_nullable=True)


def downgrade():
    # Refuses (numeric overflow on PostgreSQL) when a phase holds more than ten integer digits,
    # rather than silently truncating a bond.
    with op.batch_alter_table('permit_phases', schema=None) as batch_op:
        batch_op.alter_column('bond_amount', existing_type=sa.Numeric(14, 2), type_=sa.Numeric(12, 2),
                              existing_nullable=True)
