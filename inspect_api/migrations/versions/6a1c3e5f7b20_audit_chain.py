"""the audit log's commit-order numbers, row hashes and daily seals (tamper evidence)

Revision ID: 6a1c3e5f7b20
Revises: 5d7e2c9a1b46
Create Date: 2026-12-04 05:00:00.000000

"""
from alembic import op
import sqlalchemy as sa

from inspect_api.audit_chain import row_hash_of
from inspect_api.db import UTCDateTime


# revision identifiers, used by Alembic.
revision = '6a1c3e5f7b20'
down_revision = '5d7e2c9a1b46'
branch_labels = None
depends_on = None

SPAN = 1 << 20  # inspect_api.audit.SPAN, frozen here

# inspect_api.audit.APPEND_ONLY_FUNCTION, frozen here.
APPEND_ONLY_FUNCTION = """
CREATE OR REPLACE FUNCTION audit_append_only() RETURNS trigger AS $$
BEGIN
    IF coalesce(current_setting('inspect_api.audit_maintenance', true), '') = 'on' THEN
        IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
        RETURN NEW;
    END IF;
    IF TG_OP = 'UPDATE' AND TG_TABLE_NAME = 'audit_seals' AND to_jsonb(OLD) ->> 'emailed_at' IS NULL
       AND (to_jsonb(NEW) - 'emailed_at' - 'message_id') = (to_jsonb(OLD) - 'emailed_at' - 'message_id') THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege',
        MESSAGE = 'the audit trail is append-only: ' || TG_OP || ' on ' || TG_TABLE_NAME || ' refused';
END
$$ LANGUAGE plpgsql
"""


def _backfill(bind) -> None:
    """Rows written before the chain: numbered in the order they were written (time, then id), from
    block 1 on (SPAN + 0, 1, 2 ...; a block every SPAN rows), each hashed as a new row is."""
    log = sa.table('audit_log', sa.column('id', sa.String), sa.column('at', UTCDateTime()),
                   sa.column('actor_id', sa.String), sa.column('device_id', sa.String),
                   sa.column('ip_address', sa.String), sa.column('action', sa.String),
                   sa.column('record_type', sa.String), sa.column('record_id', sa.String),
                   sa.column('permit_id', sa.String), sa.column('changes', sa.JSON),
                   sa.column('seq', sa.BigInteger), sa.column('row_hash', sa.String))
    rows = bind.execute(sa.select(log.c.id, log.c.at, log.c.actor_id, log.c.device_id, log.c.ip_address,
                                  log.c.action, log.c.record_type, log.c.record_id, log.c.permit_id,
                                  log.c.changes).order_by(log.c.at, log.c.id)).mappings().all()
    updates = []
    for index, row in enumerate(rows):
        values = dict(row)
        values['seq'] = SPAN + index  # block 1, then 2 ... every SPAN rows: still 0, 1, 2 ... per block
        values['row_hash'] = row_hash_of(values)
        updates.append({'b_id': values['id'], 'b_seq': values['seq'], 'b_hash': values['row_hash']})
    if updates:
        bind.execute(log.update().where(log.c.id == sa.bindparam('b_id'))
                     .values(seq=sa.bindparam('b_seq'), row_hash=sa.bindparam('b_hash')), updates)


def upgrade():
    with op.batch_alter_table('audit_log', schema=None) as batch_op:
        batch_op.add_column(sa.Column('seq', sa.BigInteger(), nullable=True))
        batch_op.add_column(sa.Column('row_hash', sa.String(length=64), nullable=True))
    _backfill(op.get_bind())
    with op.batch_alter_table('audit_log', schema=None) as batch_op:
        batch_op.alter_column('seq', existing_type=sa.BigInteger(), nullable=False)
        batch_op.alter_column('row_hash', existing_type=sa.String(length=64), nullable=False)
        batch_op.create_unique_constraint(batch_op.f('uq_audit_log_seq'), ['seq'])

    op.create_table(
        'audit_seals',
        sa.Column('number', sa.Integer(), autoincrement=False, nullable=False),
        sa.Column('day', sa.Date(), nullable=False),
        sa.Column('first_seq', sa.BigInteger(), nullable=False),
        sa.Column('last_seq', sa.BigInteger(), nullable=False),
        sa.Column('row_count', sa.Integer(), nullable=False),
        sa.Column('merkle_root', sa.String(length=64), nullable=False),
        sa.Column('prev_seal_hash', sa.String(length=64), nullable=False),
        sa.Column('seal_hash', sa.String(length=64), nullable=False),
        sa.Column('seqs', sa.JSON(), nullable=False),
        sa.Column('sealed_at', UTCDateTime(), nullable=False),
        sa.Column('emailed_at', UTCDateTime(), nullable=True),
        sa.Column('message_id', sa.String(length=255), nullable=True),
        sa.PrimaryKeyConstraint('number', name=op.f('pk_audit_seals')),
        sa.UniqueConstraint('day', name=op.f('uq_audit_seals_day')),
        sa.UniqueConstraint('seal_hash', name=op.f('uq_audit_seals_seal_hash')),
    )
    if op.get_bind().dialect.name == 'postgresql':
        op.execute(APPEND_ONLY_FUNCTION)
        for table in ('audit_log', 'audit_seals'):
            op.execute(f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
                       "FOR EACH ROW EXECUTE FUNCTION audit_append_only()")


def downgrade():
    if op.get_bind().dialect.name == 'postgresql':
        for table in ('audit_log', 'audit_seals'):
            op.execute(f"DROP TRIGGER IF EXISTS {table}_append_only ON {table}")
        op.execute("DROP FUNCTION IF EXISTS audit_append_only()")
    op.drop_table('audit_seals')
    with op.batch_alter_table('audit_log', schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f('uq_audit_log_seq'), type_='unique')
        batch_op.drop_column('row_hash')
        batch_op.drop_column('seq')
