-- Migration 5 (PostgreSQL): the outbox's priority classes, expiry and indexes, as
-- bot/store/migrations/0005_outbox_priority.sql.
-- 0 replies and turn pings, 1 game news, 2 table edits (merged), 3 chatter that may expire.
ALTER TABLE outbox ADD COLUMN priority INTEGER NOT NULL DEFAULT 1;
-- Wall-clock time after which the row is dropped unsent (a stale /games answer).
ALTER TABLE outbox ADD COLUMN expires_at DOUBLE PRECISION;
-- When the oldest change the row carries was committed (the group view's lag).
ALTER TABLE outbox ADD COLUMN created_at DOUBLE PRECISION;
-- The next row of one chat: an index seek, whatever the backlog.
CREATE INDEX outbox_next ON outbox(chat_id, priority, id) WHERE status = 'pending';
-- outbox_merge: PostgreSQL's 0001 already has it, on (merge_key, id) WHERE status = 'pending'.
CREATE INDEX IF NOT EXISTS outbox_merge ON outbox(merge_key, id) WHERE status = 'pending';
