"""application documents keep their uploaded file: type, SHA-256, size and blob key (R-C1)

Revision ID: e7b3c1d9a402
Revises: d5a2b8c3e701
Create Date: 2026-12-01 19:00:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'e7b3c1d9a402'
down_revision = 'd5a2b8c3e701'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('permit_documents', schema=None) as batch_op:
        batch_op.add_column(sa.Column('content_type', sa.String(length=60), nullable=True))
        batch_op.add_column(sa.Column('sha256', sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column('size', sa.BigInteger(), nullable=True))
        batch_op.add_column(sa.Column('storage_key', sa.String(length=200), nullable=True))


def downgrade():
    # The stored bytes stay in the blob store (content-addressed, possibly shared); only the links go.
    with op.batch_alter_table('permit_documents', schema=None) as batch_op:
        batch_op.drop_column('storage_key')
        batch_op.drop_column('size')
        batch_op.drop_column('sha256')
        batch_op.drop_column('content_type')
