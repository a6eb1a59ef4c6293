-- Kozyr's SQLite schema. Every statement is idempotent; the store runs it at start.
CREATE TABLE IF NOT EXISTS users (
    user_id     INTEGER PRIMARY KEY,
    first_name  TEXT NOT NULL DEFAULT '',
    username    TEXT,
    lang        TEXT NOT NULL DEFAULT 'en',
    lang_set    INTEGER NOT NULL DEFAULT 0,  -- chosen in /settings: Telegram's language_code no longer overrides it
    started     INTEGER NOT NULL DEFAULT 0,  -- has opened the DM, so the bot may write to them
    blocked     INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS chats (
    chat_id     INTEGER PRIMARY KEY,
    title       TEXT NOT NULL DEFAULT '',
    lang        TEXT NOT NULL DEFAULT 'en'
);
CREATE TABLE IF NOT EXISTS tables (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    chat_id     INTEGER NOT NULL,
    thread_id   INTEGER NOT NULL DEFAULT 0,
    game        TEXT NOT NULL,
    status      TEXT NOT NULL,               -- lobby | playing | finished | cancelled
    creator_id  INTEGER NOT NULL,
    options     TEXT NOT NULL DEFAULT '{}',
    seed        INTEGER NOT NULL,
    version     INTEGER NOT NULL DEFAULT 0,  -- bumped by every change; buttons carry it
    state       TEXT,                        -- engine snapshot (JSON) while playing and after
    ui          TEXT NOT NULL DEFAULT '{}',  -- the bot's own bookkeeping: which messages show this table
    created_at  REAL NOT NULL,
    updated_at  REAL NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS one_open_table_per_chat
    ON tables(chat_id, thread_id) WHERE status IN ('lobby', 'playing');
CREATE TABLE IF NOT EXISTS seats (
    table_id    INTEGER NOT NULL REFERENCES tables(id),
    seat        INTEGER NOT NULL,
    user_id     INTEGER,                     -- NULL for an AI seat
    name        TEXT NOT NULL,
    PRIMARY KEY (table_id, seat)
);
CREATE TABLE IF NOT EXISTS actions (
    table_id    INTEGER NOT NULL REFERENCES tables(id),
    idx         INTEGER NOT NULL,
    seat        INTEGER NOT NULL,
    action      TEXT NOT NULL,
    at          REAL NOT NULL,
    PRIMARY KEY (table_id, idx)
);
CREATE TABLE IF NOT EXISTS updates (
    update_id   INTEGER PRIMARY KEY
);
CREATE TABLE IF NOT EXISTS outbox (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    chat_id     INTEGER NOT NULL,
    method      TEXT NOT NULL,               -- send | edit | photo | edit_photo | document | delete
    slot        TEXT,                        -- logical message this row creates or edits
    merge_key   TEXT,                        -- pending rows with the same key are merged
    payload     TEXT NOT NULL,
    status      TEXT NOT NULL DEFAULT 'pending',  -- pending | failed
    attempts    INTEGER NOT NULL DEFAULT 0,
    error       TEXT
);
CREATE INDEX IF NOT EXISTS outbox_pending ON outbox(status, chat_id, id);
CREATE TABLE IF NOT EXISTS slots (
    slot        TEXT PRIMARY KEY,
    chat_id     INTEGER NOT NULL,
    message_id  INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS blobs (
    key         TEXT PRIMARY KEY,            -- sha1 of the bytes
    data        BLOB NOT NULL,
    file_id     TEXT                         -- Telegram's id once uploaded: never upload it again
);
CREATE TABLE IF NOT EXISTS results (
    table_id    INTEGER NOT NULL,
    seat        INTEGER NOT NULL,
    chat_id     INTEGER NOT NULL,
    game        TEXT NOT NULL,
    user_id     INTEGER,
    name        TEXT NOT NULL,
    score       INTEGER NOT NULL,
    place       INTEGER NOT NULL,
    players     INTEGER NOT NULL,
    finished_at REAL NOT NULL,
    PRIMARY KEY (table_id, seat)
);
-- ---- flow branch (issues 11, 9.10, 14): outbox priority classes, expiry, commit time, indexes --------
-- Applied idempotently by bot/store/outbox_schema.py (SQLite has no ADD COLUMN IF NOT EXISTS); for the
-- numbered migrations this block is:
--   ALTER TABLE outbox ADD COLUMN priority INTEGER NOT NULL DEFAULT 1;
--   ALTER TABLE outbox ADD COLUMN expires_at REAL;
--   ALTER TABLE outbox ADD COLUMN created_at REAL;
--   CREATE INDEX outbox_next ON outbox(chat_id, priority, id) WHERE status = 'pending';
--   CREATE INDEX outbox_merge ON outbox(merge_key) WHERE status = 'pending';
