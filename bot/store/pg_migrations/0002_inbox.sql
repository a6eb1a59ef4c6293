-- Migration 2 (PostgreSQL): the inbox, as bot/store/migrations/0002_inbox.sql.
CREATE TABLE inbox (
    update_id   BIGINT PRIMARY KEY,
    payload     TEXT NOT NULL,
    received_at DOUBLE PRECISION NOT NULL,
    -- PostgreSQL only: the worker that took it (each connection sets kozyr.worker); a dead worker's rows are
    -- handled by another one (bot/store/postgres.py, inbox_orphans)
    worker      BIGINT DEFAULT NULLIF(current_setting('kozyr.worker', true), '')::bigint
);
