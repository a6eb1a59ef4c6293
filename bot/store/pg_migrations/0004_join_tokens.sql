-- Migration 4 (PostgreSQL): Join-link tokens, as bot/store/migrations/0004_join_tokens.sql.
CREATE TABLE join_tokens (
    token       TEXT PRIMARY KEY,
    table_id    BIGINT NOT NULL UNIQUE
);
