"""the public: reports from residents with their photos; a complaint is an inspection the office may make due

Revision ID: 0eabd334477e
Revises: b4c8e2f1a937
Create Date: 2026-12-03 15:09:09.147753

"""
from alembic import op
import sqlalchemy as sa

from inspect_api.db import UTCDateTime


# revision identifiers, used by Alembic.
revision = '0eabd334477e'
down_revision = 'b4c8e2f1a937'
branch_labels = None
depends_on = None


OLD_KINDS = "kind IN ('post_installation', 'final', 're_inspection')"
NEW_KINDS = "kind IN ('post_installation', 'final', 're_inspection', 'complaint')"


def upgrade():
    with op.batch_alter_table('inspection_requests', schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f('ck_inspection_requests_kind'), type_='check')
        batch_op.create_check_constraint(batch_op.f('ck_inspection_requests_kind'), sa.text(NEW_KINDS))
    op.create_table('public_reports',
    sa.Column('reference', sa.String(length=24), nullable=False),
    sa.Column('status', sa.String(length=20), nullable=False),
    sa.Column('language', sa.String(length=5), nullable=False),
    sa.Column('description', sa.Text(), nullable=False),
    sa.Column('lat', sa.Float(), nullable=True),
    sa.Column('lon', sa.Float(), nullable=True),
    sa.Column('accuracy_m', sa.Float(), nullable=True),
    sa.Column('address', sa.String(length=200), nullable=True),
    sa.Column('observed_at', UTCDateTime(), nullable=True),
    sa.Column('contact_name', sa.String(length=200), nullable=True),
    sa.Column('contact_email', sa.String(length=254), nullable=True),
    sa.Column('contact_phone', sa.String(length=40), nullable=True),
    sa.Column('contact_erased_at', UTCDateTime(), nullable=True),
    sa.Column('permit_id', sa.String(length=36), nullable=True),
    sa.Column('inspection_request_id', sa.String(length=36), nullable=True),
    sa.Column('answer', sa.Text(), nullable=True),
    sa.Column('note', sa.Text(), nullable=True),
    sa.Column('triaged_by', sa.String(length=36), nullable=True),
    sa.Column('first_response_at', UTCDateTime(), nullable=True),
    sa.Column('closed_at', UTCDateTime(), nullable=True),
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('created_at', UTCDateTime(), nullable=False),
    sa.Column('updated_at', UTCDateTime(), nullable=False),
    sa.Column('created_by', sa.String(length=36), nullable=True),
    sa.Column('device_id', sa.String(length=64), nullable=True),
    sa.Column('device_created_at', UTCDateTime(), nullable=True),
    sa.CheckConstraint("language IN ('en', 'pt')", name=op.f('ck_public_reports_language')),
    sa.CheckConstraint("status IN ('received', 'linked', 'case_opened', 'closed')", name=op.f('ck_public_reports_status')),
    sa.ForeignKeyConstraint(['created_by'], ['users.id'], name=op.f('fk_public_reports_created_by_users')),
    sa.ForeignKeyConstraint(['permit_id'], ['permits.id'], name=op.f('fk_public_reports_permit_id_permits')),
    sa.ForeignKeyConstraint(['triaged_by'], ['users.id'], name=op.f('fk_public_reports_triaged_by_users')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_public_reports')),
    sa.UniqueConstraint('reference', name=op.f('uq_public_reports_reference'))
    )
    with op.batch_alter_table('public_reports', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_public_reports_closed_at'), ['closed_at'], unique=False)
        batch_op.create_index(batch_op.f('ix_public_reports_permit_id'), ['permit_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_public_reports_status'), ['status'], unique=False)

    op.create_table('public_report_photos',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('report_id', sa.String(length=36), nullable=False),
    sa.Column('position', sa.SmallInteger(), nullable=False),
    sa.Column('sha256', sa.String(length=64), nullable=False),
    sa.Column('content_type', sa.String(length=40), nullable=False),
    sa.Column('bytes', sa.BigInteger(), nullable=False),
    sa.Column('width', sa.Integer(), nullable=False),
    sa.Column('height', sa.Integer(), nullable=False),
    sa.Column('taken_at', UTCDateTime(), nullable=True),
    sa.Column('exif_lat', sa.Float(), nullable=True),
    sa.Column('exif_lon', sa.Float(), nullable=True),
    sa.Column('original_key', sa.String(length=200), nullable=False),
    sa.Column('display_key', sa.String(length=200), nullable=False),
    sa.Column('small_key', sa.String(length=200), nullable=False),
    sa.Column('created_at', UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['report_id'], ['public_reports.id'], name=op.f('fk_public_report_photos_report_id_public_reports')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_public_report_photos')),
    sa.UniqueConstraint('report_id', 'position', name='uq_public_report_photos_position')
    )
    with op.batch_alter_table('public_report_photos', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_public_report_photos_report_id'), ['report_id'], unique=False)



def downgrade():
    with op.batch_alter_table('public_report_photos', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_public_report_photos_report_id'))

    op.drop_table('public_report_photos')
    with op.batch_alter_table('public_reports', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_public_reports_status'))
        batch_op.drop_index(batch_op.f('ix_public_reports_permit_id'))
        batch_op.drop_index(batch_op.f('ix_public_reports_closed_at'))

    op.drop_table('public_reports')
    op.execute("DELETE FROM inspection_requests WHERE kind = 'complaint'")
    with op.batch_alter_table('inspection_requests', schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f('ck_inspection_requests_kind'), type_='check')
        batch_op.create_check_constraint(batch_op.f('ck_inspection_requests_kind'), sa.text(OLD_KINDS))
