"""photo markup: annotations drawn over a photo as vectors, synced like any field record

Revision ID: 5d2f8a1c7e40
Revises: 0eabd334477e
Create Date: 2026-12-10 10:00:00.000000

"""
from alembic import op
import sqlalchemy as sa

from inspect_api.db import UTCDateTime


# revision identifiers, used by Alembic.
revision = '5d2f8a1c7e40'
down_revision = '0eabd334477e'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('photo_annotations',
    sa.Column('photo_id', sa.String(length=36), nullable=False),
    sa.Column('permit_id', sa.String(length=36), nullable=False),
    sa.Column('shapes', sa.JSON(), nullable=False),
    sa.Column('deleted_at', UTCDateTime(), nullable=True),
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('created_at', UTCDateTime(), nullable=False),
    sa.Column('updated_at', UTCDateTime(), nullable=False),
    sa.Column('created_by', sa.String(length=36), nullable=True),
    sa.Column('device_id', sa.String(length=64), nullable=True),
    sa.Column('device_created_at', UTCDateTime(), nullable=True),
    sa.ForeignKeyConstraint(['created_by'], ['users.id'], name=op.f('fk_photo_annotations_created_by_users')),
    sa.ForeignKeyConstraint(['permit_id'], ['permits.id'], name=op.f('fk_photo_annotations_permit_id_permits')),
    sa.ForeignKeyConstraint(['photo_id'], ['photos.id'], name=op.f('fk_photo_annotations_photo_id_photos')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_photo_annotations'))
    )
    with op.batch_alter_table('photo_annotations', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_photo_annotations_permit_id'), ['permit_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_photo_annotations_photo_id'), ['photo_id'], unique=False)


def downgrade():
    with op.batch_alter_table('photo_annotations', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_photo_annotations_photo_id'))
        batch_op.drop_index(batch_op.f('ix_photo_annotations_permit_id'))

    op.drop_table('photo_annotations')
