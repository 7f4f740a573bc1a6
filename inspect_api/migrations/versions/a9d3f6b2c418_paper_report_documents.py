"""a final report's document may be a paper delivered to the Town, recorded by name with no file (R-F2)

Revision ID: a9d3f6b2c418
Revises: f3a8c5d2e917
Create Date: 2027-01-10 10:00:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'a9d3f6b2c418'
down_revision = 'f3a8c5d2e917'
branch_labels = None
depends_on = None

_FILE_COLUMNS = (('content_type', sa.String(length=60)), ('sha256', sa.String(length=64)),
                 ('size', sa.BigInteger()), ('storage_key', sa.String(length=200)))


def upgrade():
    with op.batch_alter_table('final_report_documents', schema=None) as batch_op:
        for name, type_ in _FILE_COLUMNS:
            batch_op.alter_column(name, existing_type=type_, nullable=True)


def downgrade():
    # A paper recorded by name has no file to keep: those rows go, the uploaded files stay.
    op.execute("DELETE FROM final_report_documents WHERE storage_key IS NULL")
    with op.batch_alter_table('final_report_documents', schema=None) as batch_op:
        for name, type_ in _FILE_COLUMNS:
            batch_op.alter_column(name, existing_type=type_, nullable=False)
