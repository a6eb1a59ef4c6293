-- Migration 2 (PostgreSQL): the inbox, as bot/store/migrations/0002_inbox.sql.
CREATE TABLE inbox (
    update_id   BIGINT PRIMARY KEY,
    payload     TEXT NOT NULL,
    received_at DOUBLE PRECISION NOT NULL
);
