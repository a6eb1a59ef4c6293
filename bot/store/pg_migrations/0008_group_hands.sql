-- Migration 8 (PostgreSQL): where a chat's players see their hands and whether the bot is an
-- administrator there, as bot/store/migrations/0008_group_hands.sql.
ALTER TABLE chats ADD COLUMN hands TEXT NOT NULL DEFAULT 'group';
ALTER TABLE chats ADD COLUMN bot_admin INTEGER NOT NULL DEFAULT 0;
