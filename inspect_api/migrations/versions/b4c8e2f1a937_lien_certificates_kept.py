"""a lien certificate produced is kept as it was, and marked superseded when its lien date moves (R-O3)

Revision ID: b4c8e2f1a937
Revises: a9d3f6b2c418
Create Date: 2027-01-10 12:00:00.000000

"""
from alembic import op
import sqlalchemy as sa

from inspect_api.db import UTCDateTime


# revision identifiers, used by Alembic.
revision = 'b4c8e2f1a937'
down_revision = 'a9d3f6b2c418'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('lien_certificates',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('cost_recovery_id', sa.String(length=36), nullable=False),
    sa.Column('lien_on', sa.Date(), nullable=False),
    sa.Column('lien_amount', sa.Numeric(precision=14, scale=2), nullable=False),
    sa.Column('produced_on', sa.Date(), nullable=False),
    sa.Column('produced_at', UTCDateTime(), nullable=False),
    sa.Column('produced_by', sa.String(length=36), nullable=True),
    sa.Column('sha256', sa.String(length=64), nullable=False),
    sa.Column('storage_key', sa.String(length=200), nullable=False),
    sa.Column('superseded_at', UTCDateTime(), nullable=True),
    sa.ForeignKeyConstraint(['cost_recovery_id'], ['cost_recoveries.id'], name=op.f('fk_lien_certificates_cost_recovery_id_cost_recoveries')),
    sa.ForeignKeyConstraint(['produced_by'], ['users.id'], name=op.f('fk_lien_certificates_produced_by_users')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_lien_certificates'))
    )
    with op.batch_alter_table('lien_certificates', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_lien_certificates_cost_recovery_id'), ['cost_recovery_id'], unique=False)


def downgrade():
    # The certificates' PDF bytes stay in the blob store (content-addressed); only the records go.
    with op.batch_alter_table('lien_certificates', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_lien_certificates_cost_recovery_id'))
    op.drop_table('lien_certificates')
