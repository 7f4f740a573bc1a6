"""notification outbox: one row per message, its rendered content, attachments' SHA-256 and delivery evidence

Revision ID: 29acfd789e92
Revises: e7b3c1d9a402
Create Date: 2026-12-01 18:45:37.604426

"""
from alembic import op
import sqlalchemy as sa

from inspect_api.db import UTCDateTime


# revision identifiers, used by Alembic.
revision = '29acfd789e92'
down_revision = 'e7b3c1d9a402'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('notifications',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('event', sa.String(length=60), nullable=False),
    sa.Column('record_type', sa.String(length=40), nullable=False),
    sa.Column('record_id', sa.String(length=36), nullable=False),
    sa.Column('permit_id', sa.String(length=36), nullable=True),
    sa.Column('required', sa.Boolean(), nullable=False),
    sa.Column('recipient_kind', sa.String(length=10), nullable=False),
    sa.Column('recipient_user_id', sa.String(length=36), nullable=True),
    sa.Column('recipient_party_id', sa.String(length=36), nullable=True),
    sa.Column('recipient_role', sa.String(length=20), nullable=True),
    sa.Column('recipient_name', sa.String(length=200), nullable=False),
    sa.Column('recipient_email', sa.String(length=254), nullable=True),
    sa.Column('subject', sa.String(length=300), nullable=False),
    sa.Column('body_text', sa.Text(), nullable=False),
    sa.Column('body_html', sa.Text(), nullable=True),
    sa.Column('link', sa.String(length=1000), nullable=True),
    sa.Column('attachments', sa.JSON(), nullable=False),
    sa.Column('dedupe_key', sa.String(length=300), nullable=True),
    sa.Column('status', sa.String(length=10), nullable=False),
    sa.Column('attempts', sa.Integer(), nullable=False),
    sa.Column('next_attempt_at', UTCDateTime(), nullable=True),
    sa.Column('last_attempt_at', UTCDateTime(), nullable=True),
    sa.Column('claimed_by', sa.String(length=80), nullable=True),
    sa.Column('lease_until', UTCDateTime(), nullable=True),
    sa.Column('message_id', sa.String(length=300), nullable=True),
    sa.Column('sent_at', UTCDateTime(), nullable=True),
    sa.Column('smtp_reply', sa.Text(), nullable=True),
    sa.Column('failure_reason', sa.Text(), nullable=True),
    sa.Column('resent_from', sa.String(length=36), nullable=True),
    sa.Column('created_at', UTCDateTime(), nullable=False),
    sa.Column('created_by', sa.String(length=36), nullable=True),
    sa.CheckConstraint("recipient_kind IN ('user', 'party', 'address')", name=op.f('ck_notifications_recipient_kind')),
    sa.CheckConstraint("status IN ('queued', 'sent', 'failed')", name=op.f('ck_notifications_status')),
    sa.ForeignKeyConstraint(['created_by'], ['users.id'], name=op.f('fk_notifications_created_by_users')),
    sa.ForeignKeyConstraint(['permit_id'], ['permits.id'], name=op.f('fk_notifications_permit_id_permits')),
    sa.ForeignKeyConstraint(['recipient_party_id'], ['parties.id'], name=op.f('fk_notifications_recipient_party_id_parties')),
    sa.ForeignKeyConstraint(['recipient_user_id'], ['users.id'], name=op.f('fk_notifications_recipient_user_id_users')),
    sa.ForeignKeyConstraint(['resent_from'], ['notifications.id'], name=op.f('fk_notifications_resent_from_notifications')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_notifications')),
    sa.UniqueConstraint('dedupe_key', name=op.f('uq_notifications_dedupe_key')),
    sa.UniqueConstraint('resent_from', name=op.f('uq_notifications_resent_from'))
    )
    with op.batch_alter_table('notifications', schema=None) as batch_op:
        batch_op.create_index('ix_notifications_due', ['status', 'next_attempt_at'], unique=False)
        batch_op.create_index(batch_op.f('ix_notifications_event'), ['event'], unique=False)
        batch_op.create_index(batch_op.f('ix_notifications_permit_id'), ['permit_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_notifications_recipient_party_id'), ['recipient_party_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_notifications_recipient_user_id'), ['recipient_user_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_notifications_record_id'), ['record_id'], unique=False)



def downgrade():
    with op.batch_alter_table('notifications', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_notifications_record_id'))
        batch_op.drop_index(batch_op.f('ix_notifications_recipient_user_id'))
        batch_op.drop_index(batch_op.f('ix_notifications_recipient_party_id'))
        batch_op.drop_index(batch_op.f('ix_notifications_permit_id'))
        batch_op.drop_index(batch_op.f('ix_notifications_event'))
        batch_op.drop_index('ix_notifications_due')

    op.drop_table('notifications')
