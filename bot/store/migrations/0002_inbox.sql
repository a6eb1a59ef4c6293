-- Migration 2: updates taken from Telegram but not yet handled (bot/intake.py). An update is written
-- here before Telegram is told it was received, and removed in the transaction that marks it handled,
-- so a crash in between means it is handled after the restart, never lost.
CREATE TABLE IF NOT EXISTS inbox (
    update_id   INTEGER PRIMARY KEY,
    payload     TEXT NOT NULL,               -- the update as Telegram sent it (JSON)
    received_at REAL NOT NULL
);
