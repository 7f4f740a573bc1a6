"""an index on parties.user_id: every applicant's request asks which permits name them as a party

Revision ID: 8d4f6b1e2a57
Revises: 6c3e5a7b9d42
Create Date: 2026-12-06 21:40:00.000000

"""
from alembic import op


# revision identifiers, used by Alembic.
revision = '8d4f6b1e2a57'
down_revision = '6c3e5a7b9d42'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('parties', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_parties_user_id'), ['user_id'], unique=False)


def downgrade():
    with op.batch_alter_table('parties', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_parties_user_id'))
