-- Migration 9 (PostgreSQL): whether the bot's rights in a chat were learned, and the paid broadcasts'
-- spending per hour, as bot/store/migrations/0009_bot_rights_known.sql.
ALTER TABLE chats ADD COLUMN bot_rights_known INTEGER NOT NULL DEFAULT 0;
CREATE TABLE paid_spend (
    hour     BIGINT PRIMARY KEY,
    messages INTEGER NOT NULL
);
