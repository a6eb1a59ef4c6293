-- The outbox's priority classes, expiry and indexes.
-- 0 replies and turn pings, 1 game news, 2 table edits (merged), 3 chatter that may expire.
ALTER TABLE outbox ADD COLUMN priority INTEGER NOT NULL DEFAULT 1;
-- Wall-clock time after which the row is dropped unsent (a stale /games answer).
ALTER TABLE outbox ADD COLUMN expires_at REAL;
-- When the oldest change the row carries was committed (the group view's lag).
ALTER TABLE outbox ADD COLUMN created_at REAL;
-- The next row of one chat: an index seek, whatever the backlog (a chat with 200,000 queued rows).
CREATE INDEX outbox_next ON outbox(chat_id, priority, id) WHERE status = 'pending';
-- Merging an edit into its pending row without a scan of every pending row.
CREATE INDEX outbox_merge ON outbox(merge_key) WHERE status = 'pending';
