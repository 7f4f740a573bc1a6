"""documents issued once, signed and stored: the bytes every download and e-mail serves

Revision ID: 6b2d4f6a8c31
Revises: 6a1c3e5f7b20
Create Date: 2026-12-04 05:00:00.000000

"""
from alembic import op
import sqlalchemy as sa

from inspect_api.db import UTCDateTime


# revision identifiers, used by Alembic.
revision = '6b2d4f6a8c31'
down_revision = '6a1c3e5f7b20'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'issued_documents',
        sa.Column('id', sa.String(length=36), nullable=False),
        sa.Column('kind', sa.String(length=40), nullable=False),
        sa.Column('record_id', sa.String(length=36), nullable=False),
        sa.Column('revision', sa.Integer(), nullable=False),
        sa.Column('permit_id', sa.String(length=36), nullable=True),
        sa.Column('blob_name', sa.String(length=200), nullable=False),
        sa.Column('sha256', sa.String(length=64), nullable=False),
        sa.Column('size', sa.BigInteger(), nullable=False),
        sa.Column('signed', sa.Boolean(), nullable=False),
        sa.Column('signer_subject', sa.String(length=500), nullable=True),
        sa.Column('signer_fingerprint', sa.String(length=64), nullable=True),
        sa.Column('timestamped', sa.Boolean(), nullable=False),
        sa.Column('issued_at', UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_issued_documents')),
        sa.UniqueConstraint('kind', 'record_id', 'revision', name='uq_issued_documents_record'),
    )
    with op.batch_alter_table('issued_documents', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_issued_documents_permit_id'), ['permit_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_issued_documents_issued_at'), ['issued_at'], unique=False)


def downgrade():
    with op.batch_alter_table('issued_documents', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_issued_documents_issued_at'))
        batch_op.drop_index(batch_op.f('ix_issued_documents_permit_id'))
    op.drop_table('issued_documents')
